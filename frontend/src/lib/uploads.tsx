// Uploads in progress, shared by the window-wide drop zone and the Documents
// page. Files go one request each so each has its own progress and error;
// with auto-create, the documents of one pick or drop are then one
// auto-create batch, estimated before it starts.

import { createContext, useCallback, useContext, useEffect, useMemo, useState, type ReactNode } from "react";
import type { UploadAnswer } from "../api/types";
import { uploadFile } from "../api/upload";
import { autoCreateCandidates, useAutoCreateBatches, type AutoCreateBatch } from "./autoCreateBatch";
import { baseName, watchDesktopImports, type DesktopImport } from "./desktop";
import { errorInput, type ErrorInput } from "./errors";

export interface UploadItem {
  key: number;
  name: string;
  progress: number;
  status: "uploading" | "done" | "error";
  /** Why it failed (or a note on a file that was added); a failed request keeps its code, status and field, so the list classifies it like an error box. */
  error?: ErrorInput;
  docId?: string;
}

interface UploadsValue {
  items: UploadItem[];
  /** The auto-create batches of uploads made with autoCreate: their estimates and whether they started. */
  batches: AutoCreateBatch[];
  /** Queues a batch's documents that did not start (refused by a limit) again. */
  retryBatch(b: AutoCreateBatch): void;
  autoCreate: boolean;
  setAutoCreate(v: boolean): void;
  upload(files: File[]): void;
  clearFinished(): void;
  /** Bumped when an upload finished, so lists can refetch. */
  generation: number;
}

const Ctx = createContext<UploadsValue | null>(null);
let nextKey = 1;

/** What an upload's answer makes of its item: added (with a note on the first file that was not), or failed when nothing was added. */
export function answeredItem(a: UploadAnswer): Partial<UploadItem> {
  const err = a.errors[0];
  if (err && a.documents.length === 0) return { status: "error", error: errorInput(err.error) };
  return { status: "done", progress: 1, docId: a.documents[0]?.id, ...(err ? { error: errorInput(err.error) } : {}) };
}

/** An upload whose request failed: the error as the server (or the network) gave it. */
export function failedItem(e: unknown): Partial<UploadItem> {
  return { status: "error", error: errorInput(e) };
}

/** The items of a finished desktop import: each document added, each duplicate, each file that failed, and the import's own error. */
export function importedItems(e: DesktopImport): UploadItem[] {
  const r = e.report;
  const done: UploadItem[] = [];
  for (const d of r?.documents ?? []) done.push({ key: nextKey++, name: d.name, progress: 1, status: "done", docId: d.id });
  for (const d of r?.duplicates ?? [])
    done.push({ key: nextKey++, name: baseName(d.file), progress: 1, status: "done", docId: d.document_id, error: errorInput("already imported") });
  for (const x of r?.errors ?? [])
    done.push({ key: nextKey++, name: baseName(x.file), progress: 1, status: "error", error: errorInput(x.error), docId: x.document_id });
  if (e.error) done.push({ key: nextKey++, name: e.paths.map(baseName).join(", "), progress: 1, status: "error", error: errorInput(e.error) });
  return done;
}

export function UploadsProvider({ children }: { children: ReactNode }) {
  const [items, setItems] = useState<UploadItem[]>([]);
  const [generation, setGeneration] = useState(0);
  const [autoCreate, setAutoCreateState] = useState(() => localStorage.getItem("docent.autoCreate") === "1");

  const setAutoCreate = useCallback((v: boolean) => {
    setAutoCreateState(v);
    try {
      localStorage.setItem("docent.autoCreate", v ? "1" : "0");
    } catch {
      /* ignore */
    }
  }, []);

  const patch = (key: number, p: Partial<UploadItem>) =>
    setItems((xs) => xs.map((x) => (x.key === key ? { ...x, ...p } : x)));

  const auto = useAutoCreateBatches(() => setGeneration((g) => g + 1));
  const begin = auto.begin;

  // With autoCreate the files are uploaded without it, and the documents
  // they made go to auto-create as one batch once all have arrived, after
  // its estimate (autoCreateBatch.tsx).
  const upload = useCallback(
    (files: File[]) => {
      const answers = files.map((file) => {
        const key = nextKey++;
        setItems((xs) => [...xs, { key, name: file.name, progress: 0, status: "uploading" }]);
        return uploadFile(file, { onProgress: (f) => patch(key, { progress: f }) }).then(
          (a) => {
            patch(key, answeredItem(a));
            setGeneration((g) => g + 1);
            return a;
          },
          (e) => {
            patch(key, failedItem(e));
            return null;
          },
        );
      });
      if (autoCreate) void Promise.all(answers).then((as) => begin(autoCreateCandidates(as)));
    },
    [autoCreate, begin],
  );

  // The desktop window imports dropped and picked files itself (from their
  // paths); show those imports here too and refresh the lists after them.
  useEffect(() => {
    const pending = new Map<string, number>();
    const keyOf = (e: DesktopImport) => e.paths.join("\n");
    return watchDesktopImports(
      (e) => {
        const key = nextKey++;
        pending.set(keyOf(e), key);
        const name = e.paths.length === 1 ? baseName(e.paths[0]) : `${e.paths.length} items`;
        setItems((xs) => [...xs, { key, name, progress: 0, status: "uploading" }]);
      },
      (e) => {
        const key = pending.get(keyOf(e));
        pending.delete(keyOf(e));
        const done = importedItems(e);
        setItems((xs) => [...xs.filter((x) => x.key !== key), ...done]);
        setGeneration((g) => g + 1);
      },
    );
  }, []);

  const clearBatches = auto.clearFinished;
  const clearFinished = useCallback(() => {
    setItems((xs) => xs.filter((x) => x.status === "uploading"));
    clearBatches();
  }, [clearBatches]);

  const { batches, retry: retryBatch } = auto;
  const value = useMemo(
    () => ({ items, batches, retryBatch, autoCreate, setAutoCreate, upload, clearFinished, generation }),
    [items, batches, retryBatch, autoCreate, setAutoCreate, upload, clearFinished, generation],
  );
  return (
    <Ctx.Provider value={value}>
      {children}
      {auto.dialog}
    </Ctx.Provider>
  );
}

export function useUploads(): UploadsValue {
  const v = useContext(Ctx);
  if (!v) throw new Error("useUploads outside UploadsProvider");
  return v;
}
