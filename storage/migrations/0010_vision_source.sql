-- The vision-model tier of OCR: a page's text may be read by a vision
-- model (a multimodal model of Ollama or an OpenAI-compatible server)
-- rather than by the OCR engine.
--
-- pages.source gains 'vision'; engine is then the model's id
-- ('ollama/qwen2.5vl:7b') and confidence is NULL (a model gives none).
-- The CHECK is widened in place, as 0006_ocr.sql widened documents.status
-- (SQLite's lang_altertable.html, "Making Other Kinds Of Table Schema
-- Changes"): no stored row can break a wider rule. The CREATE TABLE below
-- changes the schema cookie, so every other connection reads the new text;
-- RESET (rather than OFF) makes this one read it again too, which 0006 got
-- from the ALTER TABLE that followed its change.
PRAGMA writable_schema = ON;
UPDATE sqlite_schema
   SET sql = replace(sql, 'CHECK (source IN (''text_layer'', ''ocr'', ''none''))',
                          'CHECK (source IN (''text_layer'', ''ocr'', ''vision'', ''none''))')
 WHERE type = 'table' AND name = 'pages';
PRAGMA writable_schema = RESET;

-- A replace that found nothing would leave the old rule: fail the
-- migration rather than every later write of a vision page.
CREATE TEMP TABLE migration_0010_check (pages_source_allows_vision INTEGER CHECK (pages_source_allows_vision = 1));
INSERT INTO migration_0010_check
SELECT instr(sql, '''ocr'', ''vision'', ''none''') > 0 FROM sqlite_schema WHERE type = 'table' AND name = 'pages';
DROP TABLE migration_0010_check;

-- What a run of OCR has read so far, page by page, so that a run stopped
-- before its end (Ctrl-C, a crash, a lapsed lease) resumes at the next
-- page instead of reading every page again: a vision model takes tens of
-- seconds a page. The document's own pages keep their text until the run
-- finishes, which stores every page at once and deletes these rows.
-- run_key names how the pages were read (the model, the languages, ...):
-- a run that reads differently does not take another's pages. result is
-- the page as JSON: text, source, engine, lang, confidence, note, words.
CREATE TABLE ocr_kept_pages (
    document_id TEXT NOT NULL,
    page        INTEGER NOT NULL,
    run_key     TEXT NOT NULL,
    result      TEXT NOT NULL CHECK (json_valid(result) AND json_type(result) = 'object'),
    kept_at     TEXT NOT NULL,
    PRIMARY KEY (document_id, page),
    FOREIGN KEY (document_id, page) REFERENCES pages (document_id, page) ON DELETE CASCADE
) STRICT;
