-- The inbox folder's memory (storage/inbox.go): every file the watcher has
-- seen, by its path, with what became of it. A file whose size and mtime
-- still match its row is not read again, so a restart imports nothing
-- twice; a row left waiting by a process that stopped mid-file is taken up
-- again at the next start. document_id and duplicate_of are not foreign
-- keys: a document deleted by hand must not make the inbox import its file
-- again, and the row still says what happened.
CREATE TABLE inbox_files (
  path         TEXT PRIMARY KEY,       -- absolute path in the inbox folder
  rel          TEXT NOT NULL,          -- path under the folder, slash-separated
  size         INTEGER NOT NULL CHECK (size >= 0),
  mtime_ns     INTEGER NOT NULL,       -- the file's modification time, Unix ns
  sha256       TEXT NOT NULL DEFAULT '',
  status       TEXT NOT NULL CHECK (status IN ('waiting', 'stored', 'duplicate', 'failed')),
  error        TEXT NOT NULL DEFAULT '',
  error_code   TEXT NOT NULL DEFAULT '',
  document_id  TEXT NOT NULL DEFAULT '',
  duplicate_of TEXT NOT NULL DEFAULT '',
  tags         TEXT NOT NULL DEFAULT '[]' CHECK (json_valid(tags) AND json_type(tags) = 'array'),
  seen_at      TEXT NOT NULL,          -- first seen at this size and mtime
  updated_at   TEXT NOT NULL
) STRICT;
CREATE INDEX inbox_files_updated ON inbox_files (updated_at, path);
CREATE INDEX inbox_files_document ON inbox_files (document_id) WHERE document_id <> '';
