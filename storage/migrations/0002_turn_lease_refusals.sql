-- One turn at a time per thread: a running turn holds the thread with a
-- lease (a random token and when it lapses), renewed while it works and
-- released when it ends. A lapsed lease (a killed process) frees the thread.
ALTER TABLE threads ADD COLUMN running_token TEXT NOT NULL DEFAULT '';
ALTER TABLE threads ADD COLUMN running_since TEXT NOT NULL DEFAULT '';
ALTER TABLE threads ADD COLUMN running_until TEXT NOT NULL DEFAULT '';

-- What an unattended auto-create run tried to do outside its scope and was
-- refused: a JSON array of {"tool", "reason"}, shown with its proposal.
ALTER TABLE documents ADD COLUMN auto_create_refused TEXT NOT NULL DEFAULT '[]'
    CHECK (json_valid(auto_create_refused) AND json_type(auto_create_refused) = 'array');
