-- journal_pauses ties each pause of a chat turn (turn_states.id, the
-- turn_id that `docent chat` and `docent approve` print and approve takes)
-- to the turn's id in the history (journal.turn_id, its history_turn_id),
-- so that either id names the turn's changes. A turn_states row is deleted
-- once claimed or expired; its pause row stays as long as the history
-- keeps what undo needs (PruneJournal drops older ones).
CREATE TABLE journal_pauses (
    pause_id TEXT PRIMARY KEY,
    turn_id  TEXT NOT NULL,
    at       TEXT NOT NULL
) STRICT;
CREATE INDEX journal_pauses_at ON journal_pauses (at);
