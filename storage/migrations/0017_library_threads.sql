-- Library threads: a conversation about all the documents (Ask Docent)
-- belongs to no document, so threads.document_id becomes nullable. SQLite
-- cannot drop NOT NULL with ALTER TABLE, and rebuilding threads in this
-- transaction (foreign keys on) would cascade-delete every message, so the
-- column's constraint is removed in Go right after this file runs
-- (librarythreads.go: SQLite's documented procedure for it, lang_altertable
-- section 7). Here: the index that lists library threads.
CREATE INDEX threads_library ON threads (updated_at, id) WHERE document_id IS NULL;
