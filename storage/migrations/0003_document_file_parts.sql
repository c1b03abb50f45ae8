-- A document's original bytes are stored in parts of at most 1 MiB: the
-- first part in document_files.bytes, the rest here, part 1, 2, … in order.
-- One 256 MiB blob would have to be in memory whole, several times over,
-- while it is written (the driver copies a bound blob to C memory, and
-- SQLite builds each row's record in memory before it writes its pages);
-- parts let the importer stream a file into the store a megabyte at a time.
-- Files stored before this migration are whole in document_files and have
-- no parts, which reads the same.
CREATE TABLE document_file_parts (
    document_id TEXT NOT NULL REFERENCES documents (id) ON DELETE CASCADE,
    part        INTEGER NOT NULL CHECK (part >= 1),
    bytes       BLOB NOT NULL,
    PRIMARY KEY (document_id, part)
) STRICT;
