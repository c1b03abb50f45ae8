package storage

import "context"

// PeekTurnState returns a paused turn as saved, without claiming it, so that
// a caller holding only a turn id (the command line's `docent approve
// TURN_ID`) can find its document and pending calls before continuing it.
// An unknown turn is not found: "turn X is unknown". A turn already claimed
// or expired is still returned here; claiming it is what fails.
func (db *DB) PeekTurnState(ctx context.Context, turnID string) (TurnState, error) {
	ts, err := getTurnState(ctx, db.sql, turnID)
	if err != nil {
		return TurnState{}, translate("look up turn", err)
	}
	return ts, nil
}
