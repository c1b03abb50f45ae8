-- A document's error gets a code beside its words, so that what a client
-- offers (the password form of a PDF that needs one) is decided by the
-- code, not by matching the message (storage.ErrorCodePasswordRequired).
-- Documents that failed before codes existed get theirs from the message
-- once, here: the web UI offered the password form for a failed document
-- whose error mentioned a password ("encrypted: password required …",
-- "encrypted: wrong password"), and so these are the ones.
ALTER TABLE documents ADD COLUMN error_code TEXT NOT NULL DEFAULT '';
UPDATE documents
   SET error_code = 'password_required'
 WHERE status = 'failed' AND error LIKE '%password%';
