-- A document's newest extraction is the one with the latest (created_at,
-- id). With id in the index, finding it needs no look into the table and
-- no sort: the data view checks it for every row of a schema's table, and
-- the documents list reads each document's extraction status by it. This
-- index begins with the columns of extractions_document, which it replaces.
CREATE INDEX extractions_document_latest ON extractions (document_id, created_at, id);
DROP INDEX extractions_document;
