import { renderToString } from "react-dom/server";
import { describe, expect, it } from "vitest";
import type { InboxActivity, InboxFile } from "../inbox/types";
import { InboxView } from "./InboxPage";

const file = (rel: string, over: Partial<InboxFile> = {}): InboxFile => ({
  path: `/scans/${rel}`,
  rel,
  size: 2048,
  modified: "2026-11-28T10:00:00Z",
  status: "stored",
  tags: [],
  updated_at: "2026-11-28T10:00:00Z",
  ...over,
});

const activity: InboxActivity = {
  folder: "/scans",
  watching: true,
  polling: false,
  files: [
    file("travel/hotel.pdf", { document_id: "doc_1", document_name: "hotel.pdf", stage: "done", kind: "sch_1", kind_name: "Invoice", extraction_id: "ext_1" }),
    file("copy.pdf", { status: "duplicate", duplicate_of: "doc_1" }),
    file("locked.pdf", { document_id: "doc_2", document_name: "locked.pdf", stage: "needs_password" }),
    file("broken.pdf", { status: "failed", error: "read /scans/broken.pdf: permission denied", error_code: "unreadable" }),
    file("half.pdf", { status: "waiting" }),
  ],
};

describe("the Inbox panel", () => {
  const html = renderToString(<InboxView activity={activity} live="live" />);
  const rows = html.split('data-testid="inbox-file"').slice(1);

  it("says which folder is watched", () => {
    expect(html).toContain("Watching /scans for new files.");
  });

  it("lists each file with its stage in words, its kind and links to what it made", () => {
    expect(rows).toHaveLength(5);
    expect(rows[0]).toContain("travel/hotel.pdf");
    expect(rows[0]).toContain("Done");
    expect(rows[0]).toContain('href="#/data/sch_1"');
    expect(rows[0]).toContain("Row in Invoice");
    expect(rows[0]).toContain('href="#/documents/doc_1"');
    expect(rows[1]).toContain("Duplicate");
    expect(rows[1]).toMatch(/href="#\/documents\/doc_1"[^>]*>The original/);
    expect(rows[2]).toContain("Needs a password");
    expect(rows[2]).toContain("give its password");
    expect(rows[3]).toContain("Failed");
    expect(rows[3]).toContain("permission denied");
    expect(rows[4]).toContain("Waiting for the file to settle");
  });

  it("marks each row with its status and stage for styling and tests", () => {
    expect(rows[0]).toMatch(/^[^>]*data-status="stored"[^>]*data-stage="done"/);
    expect(rows[4]).toMatch(/^[^>]*data-status="waiting"/);
  });

  it("shows the folder's trouble as an alert, and says when it only polls", () => {
    const gone = renderToString(<InboxView activity={{ ...activity, watching: false, error: "folder /scans is gone (USB stick removed?); waiting for it to come back" }} live="polling" />);
    expect(gone).toMatch(/role="alert"[^>]*>[^<]*folder \/scans is gone/);
    expect(gone).toContain("asked for every few seconds");
  });

  it("tells where to set a folder when there is none, and when no file came yet", () => {
    const none = renderToString(<InboxView activity={{ folder: "", watching: false, polling: false, files: [] }} live="live" />);
    expect(none).toContain("No inbox folder is set.");
    expect(none).toContain('href="#/settings"');
    const empty = renderToString(<InboxView activity={{ ...activity, files: [] }} live="live" />);
    expect(empty).toContain("No files yet");
  });
});
