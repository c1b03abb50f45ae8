// The Inbox page's data, without React: GET /api/inbox once, then the
// library's stream keeps it current. An `inbox` event replaces its file in
// place; a `document` or `row` event about a listed file's document loads
// the list again (its stage, kind and row come from the server, which
// knows how the document's statuses make a stage). Without a stream (the
// desktop window, or one the browser gave up) it polls.

import { subscribeLibrary, type LibraryStreamOptions } from "../api/libraryEvents";
import { api } from "../api/routes.gen";
import { errorInput, type ErrorInput } from "../lib/errors";
import { FILE_LIMIT, mergeFile } from "./inbox";
import type { InboxActivity, InboxFile, LibraryEvent } from "./types";

/** How often the list is asked for when no stream tells of changes. */
export const POLL_MS = 3000;

export class InboxFeed {
  activity: InboxActivity | null = null;
  error: ErrorInput | null = null;
  /** "live" while the stream serves, "polling" without one. */
  live: "live" | "polling" = "live";
  private version = 0;
  private listeners = new Set<() => void>();
  private inflight = false;
  private again = false;
  /** Files of events that came while a load was under way: the answer may be older than they are. */
  private arrived: InboxFile[] = [];
  private timer: ReturnType<typeof setInterval> | null = null;
  private stopped = false;

  constructor(private readonly opts: Pick<LibraryStreamOptions, "source"> = {}) {}

  subscribe = (fn: () => void): (() => void) => {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  };

  getVersion = (): number => this.version;

  /** Whether a load is under way. */
  loading(): boolean {
    return this.inflight;
  }

  private emit() {
    this.version++;
    this.listeners.forEach((fn) => fn());
  }

  /** Loads and listens until the returned function is called. */
  start(): () => void {
    this.stopped = false;
    const unsubscribe = subscribeLibrary((e) => this.apply(e), {
      source: this.opts.source,
      onReconnect: () => this.reload(),
      onUnavailable: () => this.poll(),
    });
    this.reload();
    return () => {
      this.stopped = true;
      unsubscribe();
      if (this.timer) clearInterval(this.timer);
      this.timer = null;
    };
  }

  private poll() {
    this.live = "polling";
    this.emit();
    if (!this.timer && !this.stopped) this.timer = setInterval(() => this.reload(), POLL_MS);
  }

  /** Loads the list again; a call during a load makes one more after it. */
  reload(): void {
    if (this.inflight) {
      this.again = true;
      return;
    }
    this.inflight = true;
    this.arrived = [];
    api.inbox({ limit: FILE_LIMIT }).then(
      (a) => {
        if (this.stopped) return;
        this.activity = { ...a, files: this.arrived.reduce((files, f) => mergeFile(files, f), a.files ?? []) };
        this.error = null;
      },
      (e: unknown) => {
        if (!this.stopped) this.error = errorInput(e);
      },
    ).finally(() => {
      this.inflight = false;
      this.arrived = [];
      if (this.stopped) return;
      this.emit();
      if (this.again) {
        this.again = false;
        this.reload();
      }
    });
  }

  private listed(documentId: string): boolean {
    return !!this.activity?.files.some((f) => f.document_id === documentId || f.duplicate_of === documentId);
  }

  apply(e: LibraryEvent): void {
    switch (e.type) {
      case "inbox":
        if (this.inflight) this.arrived.push(e.file);
        if (this.activity) {
          this.activity = { ...this.activity, files: mergeFile(this.activity.files, e.file) };
          this.emit();
        }
        return;
      case "document":
        if (this.listed(e.document.id)) this.reload();
        return;
      case "row":
        if (this.listed(e.row.document_id)) this.reload();
        return;
    }
  }
}
