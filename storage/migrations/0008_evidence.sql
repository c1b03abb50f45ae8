-- Evidence for each extracted value: where in the document it stands.
--
-- evidence is a JSON object keyed by the field's path (the dotted path that
-- field edits use, "lines.0.amount"), each {status, page, quote, bbox,
-- candidates}: status 'grounded' (found in one place), 'ambiguous' (found in
-- several; candidates lists them), 'ungrounded' (not found: invented or
-- computed) or 'edited' (set by a person). The agent computes it after each
-- extraction from the pages' words; extractions made before this version
-- have {} until they are grounded again.
ALTER TABLE extractions ADD COLUMN evidence TEXT NOT NULL DEFAULT '{}'
    CHECK (json_valid(evidence) AND json_type(evidence) = 'object');

-- Evaluations of a prompt against known values: the ground truth of a
-- folder of JSON files, or the values people corrected by hand. report is
-- the whole result (per field and overall, per document), as the eval
-- command prints it with --json; baseline_id the run it was compared with.
CREATE TABLE evaluations (
    id           TEXT PRIMARY KEY,
    prompt_id    TEXT NOT NULL REFERENCES prompts (id) ON DELETE CASCADE,
    prompt_revid TEXT REFERENCES prompt_revisions (id) ON DELETE SET NULL,
    model        TEXT NOT NULL DEFAULT '',
    source       TEXT NOT NULL CHECK (source IN ('truth', 'corrections')),
    baseline_id  TEXT REFERENCES evaluations (id) ON DELETE SET NULL,
    report       TEXT NOT NULL CHECK (json_valid(report) AND json_type(report) = 'object'),
    created_at   TEXT NOT NULL
) STRICT;

CREATE INDEX evaluations_prompt ON evaluations (prompt_id, created_at);
