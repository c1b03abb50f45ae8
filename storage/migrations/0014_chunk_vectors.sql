-- Search by meaning: each chunk's embedding, per embedding model, with the
-- model's dimension so that a model that changes its size is caught
-- rather than compared with vectors of another. A chunk whose text changes
-- is a new chunk (OCR again deletes and inserts them), so its vectors go
-- with the old one and the new one waits to be embedded.
--
-- id only grows (AUTOINCREMENT), so a process that keeps the vectors in
-- memory learns of the new ones from the largest id it has not seen.
-- vec is dim little-endian float32 numbers, of length 1.
CREATE TABLE chunk_vectors (
    id       INTEGER PRIMARY KEY AUTOINCREMENT,
    chunk_id INTEGER NOT NULL REFERENCES chunks (id) ON DELETE CASCADE,
    model    TEXT NOT NULL CHECK (model <> ''),
    dim      INTEGER NOT NULL CHECK (dim > 0),
    vec      BLOB NOT NULL CHECK (length(vec) = 4 * dim),
    UNIQUE (model, chunk_id)
) STRICT;

CREATE INDEX chunk_vectors_chunk ON chunk_vectors (chunk_id);
