// Uploads go through XMLHttpRequest, the one browser API that reports upload
// progress. One request per file, so each file has its own progress bar and
// its own error.

import { ApiError, reportUnauthorized } from "./http";
import type { ErrorBody, UploadAnswer } from "./types";
import { uploadDocumentsURL } from "./routes.gen";

export interface UploadOptions {
  autoCreate?: boolean;
  tagIds?: string[];
  onProgress?: (fraction: number) => void;
  signal?: AbortSignal;
}

export function uploadFile(file: File, opts: UploadOptions = {}): Promise<UploadAnswer> {
  return new Promise((resolve, reject) => {
    const form = new FormData();
    form.append("file", file, file.name);
    if (opts.autoCreate) form.append("auto_create", "true");
    for (const id of opts.tagIds ?? []) form.append("tag_ids", id);

    const xhr = new XMLHttpRequest();
    xhr.open("POST", uploadDocumentsURL());
    xhr.withCredentials = true;
    xhr.setRequestHeader("Accept", "application/json");
    xhr.upload.onprogress = (e) => {
      if (e.lengthComputable) opts.onProgress?.(e.loaded / e.total);
    };
    xhr.onload = () => {
      let body: unknown = null;
      try {
        body = xhr.responseText ? JSON.parse(xhr.responseText) : null;
      } catch {
        body = null;
      }
      if (xhr.status >= 200 && xhr.status < 300) {
        opts.onProgress?.(1);
        const a = (body ?? {}) as Partial<UploadAnswer>;
        resolve({ documents: a.documents ?? [], duplicates: a.duplicates ?? [], errors: a.errors ?? [] });
        return;
      }
      if (xhr.status === 401) reportUnauthorized();
      const b = (body ?? {}) as Partial<ErrorBody>;
      reject(new ApiError(xhr.status, b.error ?? `Upload failed (${xhr.status})`, b.code ?? "", b.field ?? ""));
    };
    xhr.onerror = () => reject(new ApiError(0, "Upload failed: the server could not be reached.", "network"));
    xhr.onabort = () => reject(new DOMException("Upload cancelled", "AbortError"));
    opts.signal?.addEventListener("abort", () => xhr.abort());
    xhr.send(form);
  });
}
