-- An extraction whose prompt the model server cut to fit the model's
-- context window: Ollama does so silently, keeping the end of the prompt,
-- so the model saw only part of the document. prompt_truncated marks it;
-- note says for people what the model saw and what to change (a larger
-- DOCENT_MAX_CONTEXT, a model with a larger context). Extractions made
-- before this version are 0 and ''.
ALTER TABLE extractions ADD COLUMN prompt_truncated INTEGER NOT NULL DEFAULT 0
    CHECK (prompt_truncated IN (0, 1));
ALTER TABLE extractions ADD COLUMN note TEXT NOT NULL DEFAULT '';
