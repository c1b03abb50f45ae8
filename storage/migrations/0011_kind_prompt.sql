-- A kind's prompt: the prompt documents of a kind (a schema) are extracted
-- with when nothing else names one (a kind change, a re-run of a document
-- never extracted with the schema, an auto-create run that reuses the
-- kind). It was "the newest prompt linking the schema", which let any
-- prompt made later take a kind over, an unattended run's included. Now it
-- is a choice stored with the schema: made when a person creates a prompt
-- linking it, or accepts a proposal of that kind. NULL: none chosen.
ALTER TABLE schemas ADD COLUMN kind_prompt_id TEXT REFERENCES prompts (id) ON DELETE SET NULL;
CREATE INDEX schemas_kind_prompt ON schemas (kind_prompt_id) WHERE kind_prompt_id IS NOT NULL;

-- Existing stores keep the prompt the old rule chose (the prompt whose
-- latest revision links the schema and was written last), except a prompt
-- that an auto-create run still running or waiting for review made: nobody
-- has accepted it. A run made a prompt when the prompt's id (a ULID) is
-- later than the run's thread, the first thing a run makes.
UPDATE schemas SET kind_prompt_id = (
    SELECT p.prompt_id
      FROM prompt_revisions p JOIN schema_revisions sr ON sr.id = p.schema_revid
     WHERE sr.schema_id = schemas.id
       AND p.version = (SELECT max(version) FROM prompt_revisions WHERE prompt_id = p.prompt_id)
       AND NOT EXISTS (
           SELECT 1 FROM documents d
            WHERE d.auto_create_status IN ('running', 'proposed')
              AND d.auto_create_prompt_id = p.prompt_id
              AND d.auto_create_thread_id IS NOT NULL
              AND substr(p.prompt_id, instr(p.prompt_id, '_') + 1) > substr(d.auto_create_thread_id, instr(d.auto_create_thread_id, '_') + 1))
     ORDER BY p.created_at DESC, p.prompt_id DESC LIMIT 1);
