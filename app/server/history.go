package server

import (
	"context"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/docent/docent/storage"
	"github.com/docent/docent/storage/fault"
)

// The history (storage's journal): every change with who made it and
// through which edge, and undo of an entry, a chat turn or an auto-create
// run.

// historyList answers GET /api/history.
type historyList struct {
	Entries []storage.JournalEntry `json:"entries"`
}

// undoBody is the optional body of the undo routes.
type undoBody struct {
	// Cascade also undoes the later changes that depend on what is undone
	// (newest first); without it such an undo is refused (409) saying
	// which.
	Cascade bool `json:"cascade,omitempty"`
	// CallID, on a turn's undo, undoes only that tool call's changes (an
	// approved card's Undo).
	CallID string `json:"call_id,omitempty"`
}

// historySettings answers GET and PUT /api/history/settings.
type historySettings struct {
	// RetentionDays is how long an entry's saved state (a deleted
	// document's bytes among it) is kept for undo.
	RetentionDays float64 `json:"retention_days"`
	// Entries and Bytes are what the history holds now.
	Entries int64 `json:"entries"`
	Bytes   int64 `json:"bytes"`
	// FileBytes is the whole store's size on disk (database file and
	// WAL): what emptying or pruning the history gives back shows here.
	FileBytes int64 `json:"file_bytes"`
}

// historySettingsBody is the body of PUT /api/history/settings.
type historySettingsBody struct {
	RetentionDays float64 `json:"retention_days"`
}

// asPerson journals the store writes of a request as the person's in the
// UI (an MCP or other edge that set its own actor keeps it).
func asPerson(h http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if _, ok := storage.ActorFrom(r.Context()); !ok {
			r = r.WithContext(storage.WithActor(r.Context(), storage.Actor{Edge: storage.EdgeUI, Name: storage.ActorPerson}))
		}
		h(w, r)
	}
}

// historyPruneInterval is how often a running server drops the history's
// saved state that has outlived the retention (opening the store does it
// too): a server can run for weeks.
const historyPruneInterval = time.Hour

func (s *Server) pruneHistory(ctx context.Context) {
	tick := time.NewTicker(historyPruneInterval)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
			if _, err := s.cfg.DB.PruneJournal(ctx); err != nil && ctx.Err() == nil {
				s.cfg.Logger.WarnContext(ctx, "history: drop what outlived the retention", "err", err)
			}
		}
	}
}

func (s *Server) listHistory(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	f := storage.JournalFilter{DocumentID: q.Get("document"), Edge: q.Get("edge"), Actor: q.Get("actor"),
		TurnID: q.Get("turn"), RunID: q.Get("run"), CallID: q.Get("call")}
	for name, dst := range map[string]*int{"limit": &f.Limit} {
		if v := q.Get(name); v != "" {
			n, err := strconv.Atoi(v)
			if err != nil || n < 1 || n > 1000 {
				s.writeError(w, r, fault.Errorf(fault.Invalid, "%s must be a number from 1 to 1000, not %q", name, v))
				return
			}
			*dst = n
		}
	}
	if v := q.Get("before"); v != "" {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil || n < 1 {
			s.writeError(w, r, fault.Errorf(fault.Invalid, "before must be an entry id, not %q", v))
			return
		}
		f.Before = n
	}
	es, err := s.cfg.DB.ListJournal(r.Context(), f)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, historyList{Entries: es})
}

func (s *Server) undoHistoryEntry(w http.ResponseWriter, r *http.Request) {
	id, err := strconv.ParseInt(r.PathValue("entry_id"), 10, 64)
	if err != nil || id < 1 {
		s.writeError(w, r, fault.Errorf(fault.NotFound, "history entry %q not found", r.PathValue("entry_id")))
		return
	}
	s.undo(w, r, func(b undoBody) (storage.UndoResult, error) { return s.cfg.DB.Undo(r.Context(), id, b.Cascade) })
}

func (s *Server) undoHistoryTurn(w http.ResponseWriter, r *http.Request) {
	s.undo(w, r, func(b undoBody) (storage.UndoResult, error) {
		turn := strings.TrimSpace(r.PathValue("turn_id"))
		if b.CallID != "" {
			return s.cfg.DB.UndoCall(r.Context(), turn, b.CallID, b.Cascade)
		}
		return s.cfg.DB.UndoTurn(r.Context(), turn, b.Cascade)
	})
}

func (s *Server) undoHistoryRun(w http.ResponseWriter, r *http.Request) {
	s.undo(w, r, func(b undoBody) (storage.UndoResult, error) {
		return s.cfg.DB.UndoRun(r.Context(), strings.TrimSpace(r.PathValue("run_id")), b.Cascade)
	})
}

func (s *Server) undo(w http.ResponseWriter, r *http.Request, do func(undoBody) (storage.UndoResult, error)) {
	var body undoBody
	if err := s.decodeJSON(w, r, &body, true); err != nil {
		s.writeError(w, r, err)
		return
	}
	res, err := do(body)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, res)
}

func (s *Server) historySettingsNow(r *http.Request) (historySettings, error) {
	keep, err := s.cfg.DB.JournalRetention(r.Context())
	if err != nil {
		return historySettings{}, err
	}
	st, err := s.cfg.DB.JournalStats(r.Context())
	if err != nil {
		return historySettings{}, err
	}
	size, err := s.cfg.DB.FileSize()
	if err != nil {
		return historySettings{}, err
	}
	return historySettings{RetentionDays: keep.Hours() / 24, Entries: st.Entries, Bytes: st.Bytes, FileBytes: size}, nil
}

func (s *Server) getHistorySettings(w http.ResponseWriter, r *http.Request) {
	hs, err := s.historySettingsNow(r)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, hs)
}

func (s *Server) putHistorySettings(w http.ResponseWriter, r *http.Request) {
	var body historySettingsBody
	if err := s.decodeJSON(w, r, &body, false); err != nil {
		s.writeError(w, r, err)
		return
	}
	if body.RetentionDays <= 0 || body.RetentionDays > 3650 {
		s.writeError(w, r, fault.Errorf(fault.Invalid, "retention_days must be more than 0 and at most 3650, not %v", body.RetentionDays).On("retention_days"))
		return
	}
	if err := s.cfg.DB.SetSetting(r.Context(), storage.SettingJournalRetentionDays, body.RetentionDays); err != nil {
		s.writeError(w, r, err)
		return
	}
	if _, err := s.cfg.DB.PruneJournal(r.Context()); err != nil {
		s.writeError(w, r, err)
		return
	}
	s.getHistorySettings(w, r)
}

func (s *Server) emptyHistory(w http.ResponseWriter, r *http.Request) {
	if err := s.cfg.DB.EmptyJournal(r.Context()); err != nil {
		s.writeError(w, r, err)
		return
	}
	s.getHistorySettings(w, r)
}
