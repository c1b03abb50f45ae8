-- The model a queued auto-create run uses, chosen when it was queued (the
-- HTTP route's "model", `docent import --auto-create --model M`), so that
-- it survives a restart; '' is the default model of whoever runs it. It
-- stays while the run runs, so that an interrupted run put back in the
-- queue runs again with it, and is cleared when the run ends.
ALTER TABLE documents ADD COLUMN auto_create_model TEXT NOT NULL DEFAULT '';
