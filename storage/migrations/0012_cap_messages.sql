-- Messages are capped at 4 KiB since round three of the integrity work
-- (storage.CapMessage): an OCR engine that printed 100 MB of stderr had
-- made a document's error 100 MB, and every document list carried it.
-- Writers cap what they store now; this cuts what older versions stored,
-- in the same shape (the start, a note, the last 1,024 characters).
-- SQLite's length and substr count characters here, not bytes, so a cut
-- message of non-ASCII text may stay a little above 4 KiB: it is bounded,
-- which is what matters.
UPDATE documents
   SET error = substr(error, 1, 3008) || ' … (' || (length(error) - 4032) || ' characters left out) … ' || substr(error, -1024)
 WHERE length(error) > 4096;
UPDATE documents
   SET auto_create_error = substr(auto_create_error, 1, 3008) || ' … (' || (length(auto_create_error) - 4032) || ' characters left out) … ' || substr(auto_create_error, -1024)
 WHERE length(auto_create_error) > 4096;
