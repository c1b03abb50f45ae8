// The data view follows the library's stream: when an extraction with its
// schema is stored (a `row` event: the inbox, an upload's auto-create, a
// re-run elsewhere), the table is fetched again, so the row appears without
// a reload. A burst of rows (a folder of invoices) fetches at the start and
// once at the end, not once per row. Without a stream (the desktop window)
// the table is fetched every few seconds.

import { subscribeLibrary, type LibraryStreamOptions } from "../api/libraryEvents";

/** At most one fetch per this long while rows keep coming. */
export const ROWS_THROTTLE_MS = 1000;
/** How often the table is fetched when no stream tells of new rows. */
export const ROWS_POLL_MS = 5000;

/** Calls refresh as rows of schemaId arrive, until the returned function is called. */
export function followRows(schemaId: string, refresh: () => void, opts: Pick<LibraryStreamOptions, "source"> = {}): () => void {
  let poll: ReturnType<typeof setInterval> | null = null;
  let quiet: ReturnType<typeof setTimeout> | null = null;
  let pending = false;
  const throttled = () => {
    if (quiet) {
      pending = true;
      return;
    }
    refresh();
    const settle = () => {
      if (!pending) {
        quiet = null;
        return;
      }
      pending = false;
      refresh();
      quiet = setTimeout(settle, ROWS_THROTTLE_MS);
    };
    quiet = setTimeout(settle, ROWS_THROTTLE_MS);
  };
  const stop = subscribeLibrary(
    (e) => {
      if (e.type === "row" && e.row.schema_id === schemaId) throttled();
    },
    {
      source: opts.source,
      onReconnect: refresh,
      onUnavailable: () => {
        poll ??= setInterval(refresh, ROWS_POLL_MS);
      },
    },
  );
  return () => {
    stop();
    if (poll) clearInterval(poll);
    if (quiet) clearTimeout(quiet);
  };
}
