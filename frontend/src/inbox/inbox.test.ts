import { describe, expect, it } from "vitest";
import { errorField, fileState, folderState, formOf, inboxBody, mergeFile, resultLinks } from "./inbox";
import type { InboxFile, InboxSettings } from "./types";

const file = (over: Partial<InboxFile> = {}): InboxFile => ({
  path: "/scans/travel/x.pdf",
  rel: "travel/x.pdf",
  size: 1234,
  modified: "2026-11-28T10:00:00Z",
  status: "stored",
  tags: [],
  updated_at: "2026-11-28T10:00:00Z",
  ...over,
});

describe("fileState", () => {
  it("names every stage in words, with a tone that is never the only sign", () => {
    const cases: [Partial<InboxFile>, string, string][] = [
      [{ status: "waiting" }, "Waiting for the file to settle", "busy"],
      [{ status: "duplicate", duplicate_of: "doc_1" }, "Duplicate", "muted"],
      [{ status: "failed", error: "permission denied" }, "Failed", "err"],
      [{ status: "failed", error: "the PDF is encrypted", error_code: "password_required", stage: "needs_password", document_id: "doc_1" }, "Needs a password", "warn"],
      [{ stage: "stored" }, "Stored", "busy"],
      [{ stage: "reading" }, "Reading the text", "busy"],
      [{ stage: "embedding" }, "Embedding for search", "busy"],
      [{ stage: "extracting" }, "Extracting", "busy"],
      [{ stage: "done" }, "Done", "ok"],
      [{ stage: "needs_password" }, "Needs a password", "warn"],
      [{ stage: "waiting_for_model" }, "Waiting for the model", "warn"],
      [{ stage: "failed" }, "Failed", "err"],
      [{}, "Stored", "busy"],
    ];
    for (const [over, label, tone] of cases) {
      expect(fileState(file(over)), JSON.stringify(over)).toMatchObject({ label, tone });
    }
  });
  it("says what to do where the person must act", () => {
    expect(fileState(file({ stage: "needs_password" })).hint).toMatch(/password/);
    expect(fileState(file({ stage: "waiting_for_model" })).hint).toMatch(/model/);
    expect(fileState(file({ status: "failed", error: "x" })).hint).toMatch(/tried again when the file changes/);
    expect(fileState(file({ stage: "failed", document_id: "doc_1" })).hint).toMatch(/Open the document/);
  });
});

describe("resultLinks", () => {
  it("links a stored file to its document and to its kind's table once it has a row", () => {
    expect(resultLinks(file({ document_id: "doc_1", document_name: "x.pdf", kind: "sch_1", kind_name: "Invoice", extraction_id: "ext_1" }))).toEqual([
      { href: "#/documents/doc_1", label: "x.pdf", testid: "inbox-document-link" },
      { href: "#/data/sch_1", label: "Row in Invoice", testid: "inbox-row-link" },
    ]);
    expect(resultLinks(file({ document_id: "doc_1", kind: "sch_1", kind_name: "Invoice" }))).toEqual([
      { href: "#/documents/doc_1", label: "The document", testid: "inbox-document-link" },
    ]);
  });
  it("links a duplicate to the original", () => {
    expect(resultLinks(file({ status: "duplicate", duplicate_of: "doc_0" }))).toEqual([
      { href: "#/documents/doc_0", label: "The original", testid: "inbox-original-link" },
    ]);
  });
  it("links nothing for a file not yet stored", () => {
    expect(resultLinks(file({ status: "waiting" }))).toEqual([]);
  });
});

describe("mergeFile", () => {
  it("replaces the file of the same path in place, and puts a new one first", () => {
    const a = file({ path: "/s/a.pdf", rel: "a.pdf", status: "waiting" });
    const b = file({ path: "/s/b.pdf", rel: "b.pdf" });
    const a2 = { ...a, status: "stored" as const, stage: "reading" as const };
    expect(mergeFile([b, a], a2)).toEqual([b, a2]);
    const c = file({ path: "/s/c.pdf", rel: "c.pdf" });
    expect(mergeFile([b, a], c)).toEqual([c, b, a]);
  });
  it("keeps at most the limit, dropping the oldest", () => {
    const files = [file({ path: "/1" }), file({ path: "/2" })];
    expect(mergeFile(files, file({ path: "/3" }), 2).map((f) => f.path)).toEqual(["/3", "/1"]);
  });
});

describe("folderState", () => {
  it("says whether the folder is watched, polled or in trouble", () => {
    expect(folderState({ folder: "", watching: false, polling: false, files: [] })).toEqual({ text: "No inbox folder is set.", tone: "muted" });
    expect(folderState({ folder: "/scans", watching: true, polling: false, files: [] })).toEqual({ text: "Watching /scans for new files.", tone: "ok" });
    expect(folderState({ folder: "/net/scans", watching: true, polling: true, files: [] }).text).toBe(
      "Checking /net/scans for new files every few seconds (polling: notifications do not work there).",
    );
    expect(folderState({ folder: "/media/usb", watching: false, polling: false, error: "folder /media/usb is gone", files: [] })).toEqual({
      text: "folder /media/usb is gone",
      tone: "err",
    });
    expect(folderState({ folder: "/scans", watching: false, polling: false, files: [] }).text).toBe("/scans is not watched right now.");
  });
});

const settings: InboxSettings = {
  folder: "/scans",
  after: "move",
  done_folder: "",
  tag_subfolders: true,
  ignore: ["*.bak", "*.old"],
  stability_seconds: 5,
  poll: "auto",
  source: "settings",
};

describe("the settings form", () => {
  it("shows the saved settings, the patterns one a line", () => {
    expect(formOf(settings)).toEqual({
      folder: "/scans",
      after: "move",
      done_folder: "",
      tag_subfolders: true,
      ignore: "*.bak\n*.old",
      stability_seconds: "5",
      poll: "auto",
    });
  });
  it("sends every member, trimmed, without blank patterns", () => {
    const form = { ...formOf(settings), folder: " /home/me/Scans ", ignore: " *.bak \n\n~*.tmp\n", stability_seconds: " 2.5 " };
    expect(inboxBody(form)).toEqual({
      body: { folder: "/home/me/Scans", after: "move", done_folder: "", tag_subfolders: true, ignore: ["*.bak", "~*.tmp"], stability_seconds: 2.5, poll: "auto" },
    });
  });
  it("refuses a stability delay that is not a number of seconds, naming the field, before sending", () => {
    expect(inboxBody({ ...formOf(settings), stability_seconds: "soon" })).toEqual({
      field: "stability_seconds",
      error: 'stability seconds "soon": want a number of seconds, 0 or more',
    });
    expect(inboxBody({ ...formOf(settings), stability_seconds: "" })).toMatchObject({ field: "stability_seconds" });
  });
});

describe("errorField", () => {
  it("puts a refused setting's error on the field the server names", () => {
    expect(errorField({ message: "bad", code: "invalid", field: "stability_seconds" })).toBe("stability_seconds");
    expect(errorField({ message: "x", field: "ignore[2]" })).toBe("ignore");
  });
  it("finds the field in the message when the answer names none", () => {
    expect(errorField({ message: "done_folder /x: no such folder", code: "invalid" })).toBe("done_folder");
    expect(errorField({ message: "folder /nope does not exist", code: "invalid" })).toBe("folder");
    expect(errorField({ message: 'poll "sometimes": want auto, always or never' })).toBe("poll");
    expect(errorField({ message: "the database is locked" })).toBe("");
  });
});
