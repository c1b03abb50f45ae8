package agent

import (
	"context"
	"time"

	"github.com/docent/docent/storage"
)

// historyTools read the journal (storage/journal.go), so that "what did
// you change?" has an answer. Undo is a person's decision: no tool does it.
func historyTools() []Tool {
	return []Tool{{
		Name:        "get_history",
		Title:       "Read a document's history of changes",
		OnDocument:  true,
		Description: "List the changes made to the current document (by you, other chats, auto-create, the person, the CLI), newest first: when, who, what, and whether it was undone.",
		Parameters: params(nil, map[string]string{
			"limit": `{"type":"integer","minimum":1,"maximum":100,"description":"How many changes. Default 20."}`,
		}),
		Access:    ReadOnly,
		Run:       decodeArgs(getHistory),
		Summarize: summarizer(fixedSummary("Read the document's history"), listWords, listOutcome("changes", "change")),
	}}
}

// historyChange is one journal entry as the model sees it.
type historyChange struct {
	ID       int64     `json:"id"`
	At       time.Time `json:"at"`
	Edge     string    `json:"edge"`
	Actor    string    `json:"actor"`
	TurnID   string    `json:"turn_id,omitempty"`
	Summary  string    `json:"summary"`
	UndoneBy int64     `json:"undone_by,omitempty"`
	Undoes   int64     `json:"undoes,omitempty"`
}

func getHistory(ctx context.Context, env *ToolEnv, a struct {
	Limit int `json:"limit"`
}) (any, error) {
	id, err := env.documentID("")
	if err != nil {
		return nil, err
	}
	limit := a.Limit
	if limit <= 0 {
		limit = 20
	}
	es, err := env.DB.ListJournal(ctx, storage.JournalFilter{DocumentID: id, Limit: limit})
	if err != nil {
		return nil, err
	}
	out := make([]historyChange, len(es))
	for i, e := range es {
		out[i] = historyChange{ID: e.ID, At: e.At, Edge: e.Edge, Actor: e.Actor, TurnID: e.TurnID,
			Summary: e.Summary, UndoneBy: e.UndoneBy, Undoes: e.Undoes}
	}
	return map[string]any{"changes": out}, nil
}
