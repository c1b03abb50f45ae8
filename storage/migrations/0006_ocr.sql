-- Text recognition (OCR) of scans and photos.
--
-- A document whose pages are images is 'needs_ocr' until OCR has read it;
-- while a worker reads it, it is 'ocr', with its progress and a lease (a
-- worker that dies leaves a lease that lapses, and another takes the
-- document over).
ALTER TABLE documents ADD COLUMN ocr_pages_done  INTEGER NOT NULL DEFAULT 0 CHECK (ocr_pages_done >= 0);
ALTER TABLE documents ADD COLUMN ocr_pages_total INTEGER NOT NULL DEFAULT 0 CHECK (ocr_pages_total >= 0);
ALTER TABLE documents ADD COLUMN ocr_token       TEXT NOT NULL DEFAULT '';
ALTER TABLE documents ADD COLUMN ocr_until       TEXT NOT NULL DEFAULT '';

-- The status gains 'ocr'. SQLite cannot alter a CHECK constraint, and
-- rebuilding documents would cascade deletes into every table that points
-- at it, so the constraint's text is widened in place, the procedure
-- SQLite documents for loosening a CHECK (lang_altertable.html, "Making
-- Other Kinds Of Table Schema Changes"): no stored row can break a wider
-- rule. The CREATE TABLE further down changes the schema cookie, so every
-- connection reads the new text.
PRAGMA writable_schema = ON;
UPDATE sqlite_schema
   SET sql = replace(sql, 'CHECK (status IN (''ready'', ''needs_ocr'', ''failed''))',
                          'CHECK (status IN (''ready'', ''needs_ocr'', ''ocr'', ''failed''))')
 WHERE type = 'table' AND name = 'documents';
PRAGMA writable_schema = OFF;

-- Where each page's text came from: 'text_layer' (the file's own text:
-- a PDF's text layer, a text file), 'ocr' (read from the page's image), or
-- 'none' (nothing read yet: an image waiting for OCR). needs_ocr marks the
-- pages OCR reads: pages that are images, and pages whose short text layer
-- lies over a full-page image (a scan with a junk text layer). engine is
-- the OCR engine and its version ('tesseract 5.3.0'), lang the language
-- data it used ('eng+deu'), confidence its mean word confidence, 0 to 1.
ALTER TABLE pages ADD COLUMN source TEXT NOT NULL DEFAULT 'text_layer'
    CHECK (source IN ('text_layer', 'ocr', 'none'));
ALTER TABLE pages ADD COLUMN needs_ocr INTEGER NOT NULL DEFAULT 0 CHECK (needs_ocr IN (0, 1));
ALTER TABLE pages ADD COLUMN engine TEXT NOT NULL DEFAULT '';
ALTER TABLE pages ADD COLUMN lang TEXT NOT NULL DEFAULT '';
ALTER TABLE pages ADD COLUMN confidence REAL CHECK (confidence IS NULL OR (confidence >= 0 AND confidence <= 1));
ALTER TABLE pages ADD COLUMN note TEXT NOT NULL DEFAULT '';

-- The words OCR found on a page, each with its box: the basis of per-field
-- evidence. width and height are the page image's size in pixels (the page
-- as shown, its rotation applied) and dpi its resolution (0 when the image
-- did not say); words is a JSON array of [x, y, w, h, confidence, text]
-- with x, y the top-left corner in those pixels and confidence 0-100: one
-- row per page, compact, read whole.
CREATE TABLE page_words (
    document_id TEXT NOT NULL,
    page        INTEGER NOT NULL,
    width       INTEGER NOT NULL CHECK (width > 0),
    height      INTEGER NOT NULL CHECK (height > 0),
    dpi         REAL NOT NULL DEFAULT 0,
    words       TEXT NOT NULL CHECK (json_valid(words) AND json_type(words) = 'array'),
    PRIMARY KEY (document_id, page),
    FOREIGN KEY (document_id, page) REFERENCES pages (document_id, page) ON DELETE CASCADE
) STRICT;

-- Documents an earlier version left waiting for OCR: every page of them.
UPDATE pages SET needs_ocr = 1, source = CASE WHEN text = '' THEN 'none' ELSE source END
 WHERE document_id IN (SELECT id FROM documents WHERE status = 'needs_ocr');

CREATE INDEX documents_ocr_queue ON documents (status, created_at) WHERE status IN ('needs_ocr', 'ocr');
