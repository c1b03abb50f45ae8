-- The whole product's tables. Later features (schemas, prompts, extraction,
-- the agent, auto-create) add queries, not tables; a change to a released
-- schema is a new migration file, never an edit of this one.
--
-- Conventions:
--   * ids are TEXT made in Go: a prefix and a ULID (doc_01J…), except the
--     INTEGER AUTOINCREMENT ids of chunks and thread messages, which must
--     never be reused (citations and message order point at them);
--   * times are TEXT, UTC, fixed width with milliseconds
--     (2006-01-02T15:04:05.000Z), so text order is time order;
--   * JSON columns are TEXT checked with json_valid; "no value" is SQL NULL
--     only where the absence means something (a model that produced no JSON);
--   * enums are CHECK constraints, so a typo in Go fails loudly;
--   * tables are STRICT: a value of the wrong type is an error, not coerced;
--   * every foreign key column has an index (SQLite does not add one), or a
--     partial index when the column is mostly NULL, so that deleting a parent
--     does not scan the child table.

CREATE TABLE documents (
    id         TEXT PRIMARY KEY,
    name       TEXT NOT NULL CHECK (name <> ''),
    media_type TEXT NOT NULL,
    size       INTEGER NOT NULL CHECK (size >= 0),
    sha256     TEXT NOT NULL UNIQUE CHECK (length(sha256) = 64),
    pages      INTEGER NOT NULL DEFAULT 0 CHECK (pages >= 0),
    status     TEXT NOT NULL CHECK (status IN ('ready', 'needs_ocr', 'failed')),
    error      TEXT NOT NULL DEFAULT '',
    metadata   TEXT NOT NULL DEFAULT '{}'
               CHECK (json_valid(metadata) AND json_type(metadata) = 'object'),
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL,

    -- Auto-create: the agent proposes a schema, a prompt and an extraction
    -- for a new document, in a thread the user can open. The links are
    -- cleared, not cascaded, when what they name is deleted.
    auto_create_status TEXT NOT NULL DEFAULT 'none'
        CHECK (auto_create_status IN ('none', 'pending', 'running', 'proposed', 'accepted', 'rejected', 'failed')),
    auto_create_error         TEXT NOT NULL DEFAULT '',
    auto_create_schema_id     TEXT REFERENCES schemas (id) ON DELETE SET NULL,
    auto_create_prompt_id     TEXT REFERENCES prompts (id) ON DELETE SET NULL,
    auto_create_extraction_id TEXT REFERENCES extractions (id) ON DELETE SET NULL,
    auto_create_thread_id     TEXT REFERENCES threads (id) ON DELETE SET NULL,
    auto_create_updated_at    TEXT
) STRICT;

-- Listing is newest first; id breaks ties between equal timestamps (ids made
-- by one process sort in the order they were made).
CREATE INDEX documents_created ON documents (created_at, id);
CREATE INDEX documents_name ON documents (name);
CREATE INDEX documents_auto_create_status ON documents (auto_create_status) WHERE auto_create_status <> 'none';
CREATE INDEX documents_auto_create_schema ON documents (auto_create_schema_id) WHERE auto_create_schema_id IS NOT NULL;
CREATE INDEX documents_auto_create_prompt ON documents (auto_create_prompt_id) WHERE auto_create_prompt_id IS NOT NULL;
CREATE INDEX documents_auto_create_extraction ON documents (auto_create_extraction_id) WHERE auto_create_extraction_id IS NOT NULL;
CREATE INDEX documents_auto_create_thread ON documents (auto_create_thread_id) WHERE auto_create_thread_id IS NOT NULL;

-- The original bytes, apart from the documents row so that listing and
-- searching never read a blob.
CREATE TABLE document_files (
    document_id TEXT PRIMARY KEY REFERENCES documents (id) ON DELETE CASCADE,
    bytes       BLOB NOT NULL
) STRICT;

-- The text of each page, 1-based; a page without text is an empty string,
-- so documents.pages rows always exist.
CREATE TABLE pages (
    document_id TEXT NOT NULL REFERENCES documents (id) ON DELETE CASCADE,
    page        INTEGER NOT NULL CHECK (page >= 1),
    text        TEXT NOT NULL,
    PRIMARY KEY (document_id, page)
) STRICT;

-- Pieces of page text of about 1,000 characters, overlapping a little; the
-- unit of full-text search and of citations. id is what search hits and
-- open_citation name, so it is AUTOINCREMENT: never reused after a delete.
CREATE TABLE chunks (
    id          INTEGER PRIMARY KEY AUTOINCREMENT,
    document_id TEXT NOT NULL REFERENCES documents (id) ON DELETE CASCADE,
    page        INTEGER NOT NULL CHECK (page >= 1),
    ord         INTEGER NOT NULL CHECK (ord >= 0), -- order within the page
    text        TEXT NOT NULL,
    UNIQUE (document_id, page, ord)
) STRICT;

-- The full-text index holds only the index; the text stays in chunks
-- (external content). remove_diacritics 2 lets "resume" find "résumé".
CREATE VIRTUAL TABLE chunks_fts USING fts5 (
    text,
    content = 'chunks',
    content_rowid = 'id',
    tokenize = 'unicode61 remove_diacritics 2'
);

-- External-content FTS tables are kept in sync by hand. These triggers also
-- fire for rows deleted by ON DELETE CASCADE, so deleting a document cleans
-- its index entries.
CREATE TRIGGER chunks_fts_insert AFTER INSERT ON chunks BEGIN
    INSERT INTO chunks_fts (rowid, text) VALUES (new.id, new.text);
END;
CREATE TRIGGER chunks_fts_delete AFTER DELETE ON chunks BEGIN
    INSERT INTO chunks_fts (chunks_fts, rowid, text) VALUES ('delete', old.id, old.text);
END;
CREATE TRIGGER chunks_fts_update AFTER UPDATE OF id, text ON chunks BEGIN
    INSERT INTO chunks_fts (chunks_fts, rowid, text) VALUES ('delete', old.id, old.text);
    INSERT INTO chunks_fts (rowid, text) VALUES (new.id, new.text);
END;

CREATE TABLE tags (
    id          TEXT PRIMARY KEY,
    name        TEXT NOT NULL COLLATE NOCASE UNIQUE CHECK (trim(name) <> ''),
    color       TEXT NOT NULL DEFAULT ''
                CHECK (color = '' OR (length(color) = 7 AND color GLOB '#[0-9A-Fa-f][0-9A-Fa-f][0-9A-Fa-f][0-9A-Fa-f][0-9A-Fa-f][0-9A-Fa-f]')),
    description TEXT NOT NULL DEFAULT '',
    created_at  TEXT NOT NULL,
    updated_at  TEXT NOT NULL
) STRICT;

-- A tag in use cannot be deleted (RESTRICT): the store names its users.
CREATE TABLE document_tags (
    document_id TEXT NOT NULL REFERENCES documents (id) ON DELETE CASCADE,
    tag_id      TEXT NOT NULL REFERENCES tags (id) ON DELETE RESTRICT,
    PRIMARY KEY (document_id, tag_id)
) STRICT, WITHOUT ROWID;

CREATE INDEX document_tags_tag ON document_tags (tag_id, document_id);

-- A schema is a name and a series of immutable revisions; schemas.name is
-- the current name (the latest revision's). Names are unique regardless of
-- case, as tag names are, so "Invoice" and "invoice" are never two schemas.
CREATE TABLE schemas (
    id         TEXT PRIMARY KEY,
    name       TEXT NOT NULL COLLATE NOCASE UNIQUE CHECK (trim(name) <> ''),
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL
) STRICT;

-- response_format is the OpenAI structured-output object
-- {type: "json_schema", json_schema: {name, schema, strict}}.
CREATE TABLE schema_revisions (
    id              TEXT PRIMARY KEY,
    schema_id       TEXT NOT NULL REFERENCES schemas (id) ON DELETE CASCADE,
    version         INTEGER NOT NULL CHECK (version >= 1),
    name            TEXT NOT NULL,
    response_format TEXT NOT NULL CHECK (json_valid(response_format) AND json_type(response_format) = 'object'),
    created_at      TEXT NOT NULL,
    UNIQUE (schema_id, version)
) STRICT;

-- Extractions and prompts point at a revision; if it could change, what they
-- were made with would silently change too.
CREATE TRIGGER schema_revisions_immutable BEFORE UPDATE ON schema_revisions BEGIN
    SELECT RAISE(ABORT, 'schema revisions are immutable: add a new version');
END;

CREATE TABLE prompts (
    id         TEXT PRIMARY KEY,
    name       TEXT NOT NULL COLLATE NOCASE UNIQUE CHECK (trim(name) <> ''),
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL
) STRICT;

-- model is a provider-prefixed id (ollama/qwen3:8b) or '' for the default.
-- schema_revid is cleared when that schema is deleted (which the store
-- refuses while the latest revision of a prompt uses it).
CREATE TABLE prompt_revisions (
    id           TEXT PRIMARY KEY,
    prompt_id    TEXT NOT NULL REFERENCES prompts (id) ON DELETE CASCADE,
    version      INTEGER NOT NULL CHECK (version >= 1),
    name         TEXT NOT NULL,
    content      TEXT NOT NULL,
    schema_revid TEXT REFERENCES schema_revisions (id) ON DELETE SET NULL,
    model        TEXT NOT NULL DEFAULT '',
    created_at   TEXT NOT NULL,
    UNIQUE (prompt_id, version)
) STRICT;

CREATE INDEX prompt_revisions_schema_revid ON prompt_revisions (schema_revid) WHERE schema_revid IS NOT NULL;

-- Immutable like schema revisions, except for schema_revid, which ON DELETE
-- SET NULL must be able to clear (that is an UPDATE of this table).
CREATE TRIGGER prompt_revisions_immutable
BEFORE UPDATE OF id, prompt_id, version, name, content, model, created_at ON prompt_revisions BEGIN
    SELECT RAISE(ABORT, 'prompt revisions are immutable: add a new version');
END;

CREATE TABLE prompt_revision_tags (
    prompt_revid TEXT NOT NULL REFERENCES prompt_revisions (id) ON DELETE CASCADE,
    tag_id       TEXT NOT NULL REFERENCES tags (id) ON DELETE RESTRICT,
    PRIMARY KEY (prompt_revid, tag_id)
) STRICT, WITHOUT ROWID;

CREATE INDEX prompt_revision_tags_tag ON prompt_revision_tags (tag_id, prompt_revid);

-- One run of a prompt on a document. original_value is what the model
-- produced (NULL when its output was not JSON; raw_output keeps the text);
-- value is the current value, which field edits change (edited = 1) while
-- original_value stays. validation_errors is a JSON array of {path, message}.
CREATE TABLE extractions (
    id                TEXT PRIMARY KEY,
    document_id       TEXT NOT NULL REFERENCES documents (id) ON DELETE CASCADE,
    prompt_revid      TEXT REFERENCES prompt_revisions (id) ON DELETE SET NULL,
    model             TEXT NOT NULL DEFAULT '',
    raw_output        TEXT NOT NULL DEFAULT '',
    original_value    TEXT CHECK (original_value IS NULL OR json_valid(original_value)),
    value             TEXT CHECK (value IS NULL OR json_valid(value)),
    edited            INTEGER NOT NULL DEFAULT 0 CHECK (edited IN (0, 1)),
    validation_status TEXT NOT NULL DEFAULT 'unvalidated'
                      CHECK (validation_status IN ('valid', 'invalid', 'unvalidated')),
    validation_errors TEXT NOT NULL DEFAULT '[]' CHECK (json_valid(validation_errors)),
    prompt_tokens     INTEGER NOT NULL DEFAULT 0 CHECK (prompt_tokens >= 0),
    completion_tokens INTEGER NOT NULL DEFAULT 0 CHECK (completion_tokens >= 0),
    created_at        TEXT NOT NULL,
    updated_at        TEXT NOT NULL
) STRICT;

CREATE INDEX extractions_document ON extractions (document_id, created_at);
CREATE INDEX extractions_prompt_revid ON extractions (prompt_revid, created_at) WHERE prompt_revid IS NOT NULL;

-- A conversation with the agent about one document. working_state is
-- {schema_revid, prompt_revid, extraction}, restored on the thread's next turn.
CREATE TABLE threads (
    id            TEXT PRIMARY KEY,
    document_id   TEXT NOT NULL REFERENCES documents (id) ON DELETE CASCADE,
    title         TEXT NOT NULL DEFAULT '',
    model         TEXT NOT NULL DEFAULT '',
    working_state TEXT NOT NULL DEFAULT '{}'
                  CHECK (json_valid(working_state) AND json_type(working_state) = 'object'),
    created_at    TEXT NOT NULL,
    updated_at    TEXT NOT NULL
) STRICT;

CREATE INDEX threads_document ON threads (document_id, updated_at);

-- Messages in the order the model saw them (seq, 0-based, so truncating a
-- thread to N messages deletes seq >= N). tool_calls is the assistant's
-- [{id, name, arguments}]; tool_call_id and tool_name belong to role 'tool'.
-- data holds what the protocol records beside a message: approvals, proposed
-- and executed arguments, usage, round index.
CREATE TABLE thread_messages (
    id           INTEGER PRIMARY KEY AUTOINCREMENT,
    thread_id    TEXT NOT NULL REFERENCES threads (id) ON DELETE CASCADE,
    seq          INTEGER NOT NULL CHECK (seq >= 0),
    role         TEXT NOT NULL CHECK (role IN ('system', 'user', 'assistant', 'tool')),
    content      TEXT NOT NULL DEFAULT '',
    thinking     TEXT NOT NULL DEFAULT '',
    tool_calls   TEXT CHECK (tool_calls IS NULL OR (json_valid(tool_calls) AND json_type(tool_calls) = 'array')),
    tool_call_id TEXT NOT NULL DEFAULT '',
    tool_name    TEXT NOT NULL DEFAULT '',
    data         TEXT NOT NULL DEFAULT '{}' CHECK (json_valid(data) AND json_type(data) = 'object'),
    created_at   TEXT NOT NULL,
    UNIQUE (thread_id, seq)
) STRICT;

-- A turn paused for approval. thread_id is NULL for a stateless turn (the
-- client carries the history) that paused. A state is used once: approve
-- sets consumed_at in the same transaction that reads it, and expired rows
-- are swept by expires_at.
CREATE TABLE turn_states (
    id          TEXT PRIMARY KEY,
    thread_id   TEXT REFERENCES threads (id) ON DELETE CASCADE,
    document_id TEXT NOT NULL REFERENCES documents (id) ON DELETE CASCADE,
    state       TEXT NOT NULL CHECK (json_valid(state) AND json_type(state) = 'object'),
    created_at  TEXT NOT NULL,
    expires_at  TEXT NOT NULL,
    consumed_at TEXT
) STRICT;

CREATE INDEX turn_states_expires ON turn_states (expires_at);
CREATE INDEX turn_states_thread ON turn_states (thread_id) WHERE thread_id IS NOT NULL;
CREATE INDEX turn_states_document ON turn_states (document_id);

-- Preferences the app keeps between runs (default model, auto-approved
-- tools…); value is JSON so each setting keeps its type.
CREATE TABLE settings (
    key        TEXT PRIMARY KEY,
    value      TEXT NOT NULL CHECK (json_valid(value)),
    updated_at TEXT NOT NULL
) STRICT, WITHOUT ROWID;
