-- A document's kind: the schema that documents like it are extracted with.
-- Auto-create sets it with its proposal (reusing a kind or making one), and
-- a person can move a document to another kind. NULL: no kind yet.
ALTER TABLE documents ADD COLUMN schema_id TEXT REFERENCES schemas (id) ON DELETE SET NULL;
CREATE INDEX documents_schema ON documents (schema_id) WHERE schema_id IS NOT NULL;
