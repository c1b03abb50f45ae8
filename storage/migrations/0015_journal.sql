-- The journal: every change to documents, schemas, prompts, tags, kinds and
-- extractions is one entry, written in the transaction of the change (see
-- storage/journal.go). An entry says when, through which edge and by whom,
-- what changed (object and a summary with names), and keeps the before-state
-- its undo restores.
CREATE TABLE journal (
    id          INTEGER PRIMARY KEY AUTOINCREMENT,
    at          TEXT NOT NULL,
    edge        TEXT NOT NULL CHECK (edge IN ('agent', 'auto_create', 'ui', 'cli', 'mcp', 'system')),
    -- actor: the thread (agent), the auto-create run's thread, "person"
    -- (ui), the CLI command, the MCP client's name.
    actor       TEXT NOT NULL DEFAULT '',
    turn_id     TEXT NOT NULL DEFAULT '',
    -- call_id is the tool call of the turn or run that made the change.
    call_id     TEXT NOT NULL DEFAULT '',
    run_id      TEXT NOT NULL DEFAULT '',
    op          TEXT NOT NULL,
    object_kind TEXT NOT NULL,
    object_id   TEXT NOT NULL,
    -- document_id is the document the change concerns, for the history of
    -- one document; no foreign key, since the document may be gone.
    document_id TEXT NOT NULL DEFAULT '',
    summary     TEXT NOT NULL,
    undoes      INTEGER REFERENCES journal (id) ON DELETE SET NULL,
    undone_by   INTEGER REFERENCES journal (id) ON DELETE SET NULL,
    -- size is the bytes of before-state kept; pruned is set when retention
    -- dropped it (the entry stays listed but cannot be undone).
    size        INTEGER NOT NULL DEFAULT 0,
    pruned      INTEGER NOT NULL DEFAULT 0 CHECK (pruned IN (0, 1))
) STRICT;
CREATE INDEX journal_document ON journal (document_id, id) WHERE document_id <> '';
CREATE INDEX journal_turn ON journal (turn_id) WHERE turn_id <> '';
CREATE INDEX journal_run ON journal (run_id) WHERE run_id <> '';
CREATE INDEX journal_at ON journal (at);

-- journal_keys are what an entry changed (writes = 1) or relied on
-- (writes = 0), as paths like "document:doc_…/extraction:ext_…": an undo
-- is refused while a later entry has a key equal to, above or below one it
-- wrote.
CREATE TABLE journal_keys (
    key      TEXT NOT NULL,
    entry_id INTEGER NOT NULL REFERENCES journal (id) ON DELETE CASCADE,
    writes   INTEGER NOT NULL CHECK (writes IN (0, 1)),
    PRIMARY KEY (key, entry_id)
) STRICT, WITHOUT ROWID;
CREATE INDEX journal_keys_entry ON journal_keys (entry_id);

-- journal_scopes are the parts of the store an entry's before-state covers
-- (a document with everything that belongs to it, some columns of a row,
-- the latest version of a schema), and journal_rows the rows each held.
CREATE TABLE journal_scopes (
    entry_id INTEGER NOT NULL REFERENCES journal (id) ON DELETE CASCADE,
    ord      INTEGER NOT NULL,
    scope    TEXT NOT NULL,
    PRIMARY KEY (entry_id, ord)
) STRICT;
CREATE TABLE journal_rows (
    entry_id  INTEGER NOT NULL,
    scope_ord INTEGER NOT NULL,
    ord       INTEGER NOT NULL,
    tbl       TEXT NOT NULL,
    -- data is the row as JSON, {"c": columns, "v": values}; a blob's value
    -- is {"ref": 1}, its bytes in journal_blobs (copied there by SQLite,
    -- so a deleted document's file is never held in memory whole).
    data      TEXT NOT NULL,
    PRIMARY KEY (entry_id, scope_ord, ord),
    FOREIGN KEY (entry_id, scope_ord) REFERENCES journal_scopes (entry_id, ord) ON DELETE CASCADE
) STRICT;
CREATE TABLE journal_blobs (
    entry_id  INTEGER NOT NULL,
    scope_ord INTEGER NOT NULL,
    ord       INTEGER NOT NULL,
    col       TEXT NOT NULL,
    bytes     BLOB NOT NULL,
    PRIMARY KEY (entry_id, scope_ord, ord, col),
    FOREIGN KEY (entry_id, scope_ord, ord) REFERENCES journal_rows (entry_id, scope_ord, ord) ON DELETE CASCADE
) STRICT;
