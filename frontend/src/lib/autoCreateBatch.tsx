// Auto-create of an upload's documents as one batch: the app asks the
// server what the batch would cost (POST /api/auto-create/estimate), shows
// it, asks first when it is over the person's threshold or its price is
// unknown, then queues each document (POST /api/documents/{id}/auto-create).
// The upload itself goes without auto_create, so that nothing starts
// before the estimate is seen.

import { useCallback, useRef, useState } from "react";
import { api } from "../api/routes.gen";
import type { UploadAnswer } from "../api/types";
import { EstimateDialog, estimateText, needsConfirm } from "../usage/estimate";
import type { AutoCreateEstimate } from "../usage/wire";
import { errorInput, type ErrorInput } from "./errors";
import { formatCount } from "./format";

export interface AutoCreateBatch {
  key: number;
  /** The documents it queues. */
  ids: string[];
  status: "estimating" | "asking" | "starting" | "started" | "declined" | "failed";
  estimate?: AutoCreateEstimate;
  /** Why the batch, or its first document that did not start, failed. */
  error?: ErrorInput;
  /** The documents queued so far. */
  started?: string[];
}

/** The documents of a batch not queued yet. */
export function notStarted(b: AutoCreateBatch): string[] {
  return b.ids.filter((id) => !b.started?.includes(id));
}

/** The auto-create statuses a document can be queued from (the server refuses the others). */
const QUEUEABLE = new Set(["none", "failed", "rejected"]);

/** The uploaded documents auto-create can run on, each once, in upload order (a failed upload is null). */
export function autoCreateCandidates(answers: (UploadAnswer | null)[]): string[] {
  const ids: string[] = [];
  for (const a of answers) for (const d of a?.documents ?? []) if (QUEUEABLE.has(d.auto_create_status) && !ids.includes(d.id)) ids.push(d.id);
  return ids;
}

const docs = (n: number) => `${formatCount(n)} ${n === 1 ? "document" : "documents"}`;

/** Where a batch is, in words; a line ending in ":" is followed by its error. */
export function batchText(b: AutoCreateBatch): string {
  const est = b.estimate ? estimateText(b.estimate) : "";
  switch (b.status) {
    case "estimating":
      return `Auto-create of ${docs(b.ids.length)}: estimating the cost…`;
    case "asking":
      return `Auto-create of ${docs(b.ids.length)} waits for you: ${est}`;
    case "starting":
      return `Auto-create of ${docs(b.ids.length)}: starting… ${est}`;
    case "declined":
      return `Auto-create not started, as you chose: ${est}`;
    case "failed":
      return `Auto-create of ${docs(b.ids.length)} did not start:`;
    case "started": {
      const missed = notStarted(b).length;
      if (missed === 0) return `Auto-create started: ${est}`;
      const started = b.ids.length - missed;
      const others = missed === 1 ? "The other did not start:" : `The other ${formatCount(missed)} did not start:`;
      return `Auto-create started for ${formatCount(started)} of ${docs(b.ids.length)}: ${est} ${others}`;
    }
  }
}

let nextKey = 1;

/**
 * The batches of this window and the dialog that asks for the first one
 * waiting. begin(ids) estimates and starts a batch; onStarted is called
 * after documents were queued (lists refetch).
 */
export function useAutoCreateBatches(onStarted: () => void) {
  const [batches, setBatches] = useState<AutoCreateBatch[]>([]);
  const patch = useCallback((key: number, p: Partial<AutoCreateBatch>) => setBatches((bs) => bs.map((b) => (b.key === key ? { ...b, ...p } : b))), []);
  const started = useRef(onStarted);
  started.current = onStarted;

  // Queues the documents not queued yet, one after another (each is a
  // model-calling request to the server's per-minute limit); a refusal of
  // the whole server (a spending or request limit, 429) stops the rest,
  // which would be refused the same way, and they can be tried again.
  const start = useCallback(
    async (b: AutoCreateBatch) => {
      patch(b.key, { status: "starting", error: undefined });
      let error: ErrorInput | undefined;
      const done = [...(b.started ?? [])];
      for (const id of notStarted(b)) {
        try {
          await api.startAutoCreate(id, {});
          done.push(id);
        } catch (e) {
          error ??= errorInput(e);
          if (errorInput(e).status === 429) break;
        }
      }
      patch(b.key, { status: done.length === 0 ? "failed" : "started", error, started: done });
      if (done.length > (b.started?.length ?? 0)) started.current();
    },
    [patch],
  );
  const retry = useCallback((b: AutoCreateBatch) => void start(b), [start]);

  const begin = useCallback(
    async (ids: string[]) => {
      if (ids.length === 0) return;
      const b: AutoCreateBatch = { key: nextKey++, ids, status: "estimating" };
      setBatches((bs) => [...bs, b]);
      let estimate: AutoCreateEstimate;
      try {
        estimate = await api.estimateAutoCreate({ document_ids: ids });
      } catch (e) {
        patch(b.key, { status: "failed", error: errorInput(e) });
        return;
      }
      if (needsConfirm(estimate)) patch(b.key, { status: "asking", estimate });
      else {
        patch(b.key, { estimate });
        await start({ ...b, estimate });
      }
    },
    [patch, start],
  );

  const clearFinished = useCallback(() => setBatches((bs) => bs.filter((b) => ["estimating", "asking", "starting"].includes(b.status))), []);

  const asking = batches.find((b) => b.status === "asking");
  const dialog = asking?.estimate ? (
    <EstimateDialog
      key={asking.key}
      estimate={asking.estimate}
      onStart={() => void start(asking)}
      onCancel={() => patch(asking.key, { status: "declined" })}
    />
  ) : null;
  return { batches, begin, retry, clearFinished, dialog };
}
