package agent

import (
	"context"
	"errors"
	"strings"

	"github.com/docent/docent/storage"
	"github.com/docent/docent/storage/fault"
)

// SearchRequest is one search over every document's text.
type SearchRequest struct {
	Query string
	// Limit is how many hits (storage.DefaultSearchLimit when 0).
	Limit int
	// TagIDs and KindID keep the documents with all those tags and of
	// that kind.
	TagIDs []string
	KindID string
	// By is "words", "meaning" or "both"; "" is both when an embedding
	// model is set, else words.
	By string
}

// SearchResult is what a search found: the same hits for the agent's
// search_docs, GET /api/search and docent search.
type SearchResult struct {
	Hits []storage.SearchHit `json:"hits"`
	// By is how the search was made: "words", "meaning" or "both".
	By string `json:"by"`
	// Model is the embedding model that answered, when one did.
	Model string `json:"model,omitempty"`
	// Note says why the search was by words alone when more was asked
	// for (no embedding model, or it failed), for a person to read.
	Note string `json:"note,omitempty"`
}

// Search searches by words, by meaning or both. Without an embedding
// model, or when it fails, a search that asked for both (or did not say)
// is made by words and says why in Note; one that asked for meaning alone
// fails.
func (e *Embedder) Search(ctx context.Context, db *storage.DB, req SearchRequest) (SearchResult, error) {
	if err := storage.CheckSearchQuery(req.Query); err != nil {
		return SearchResult{}, err
	}
	by := strings.TrimSpace(req.By)
	note := ""
	switch by {
	case "":
		by = storage.ByWords
		if e.On() {
			by = storage.ByBoth
		} else {
			note = errMeaningOff.Error()
		}
	case storage.ByWords, storage.ByMeaning, storage.ByBoth:
	default:
		return SearchResult{}, fault.Errorf(fault.Invalid, "search by %q: want words, meaning or both", req.By)
	}
	q := storage.SearchQuery{Text: req.Query, Limit: req.Limit, TagIDs: req.TagIDs, KindID: req.KindID, By: by}
	res := SearchResult{By: by, Note: note}
	words := func(note error) (SearchResult, error) {
		if by == storage.ByMeaning {
			return SearchResult{}, note
		}
		q.By, res.By, res.Model, res.Note = storage.ByWords, storage.ByWords, "", note.Error()
		hits, err := db.SearchBy(ctx, q)
		res.Hits = hits
		return res, err
	}
	if by != storage.ByWords {
		if !e.On() {
			return words(fault.Errorf(fault.Invalid, "%v", errMeaningOff))
		}
		vec, err := e.EmbedQuery(ctx, req.Query)
		if err != nil {
			if ctx.Err() != nil {
				return SearchResult{}, ctx.Err()
			}
			if by == storage.ByMeaning {
				return SearchResult{}, fault.Errorf(fault.Unavailable, "search by meaning failed: %s", fault.ErrorMessage(err))
			}
			return words(fault.Errorf(fault.Unavailable, "search by meaning failed, so this is by words alone: %s", fault.ErrorMessage(err)))
		}
		q.Model, q.Vector, res.Model = e.Model, vec, e.Model
	}
	hits, err := db.SearchBy(ctx, q)
	if errors.Is(err, storage.ErrConflict) && by == storage.ByBoth {
		return words(fault.Errorf(fault.Unavailable, "search by meaning failed, so this is by words alone: %s", fault.ErrorMessage(err)))
	}
	if errors.Is(err, storage.ErrConflict) {
		return SearchResult{}, fault.Errorf(fault.Conflict, "search by meaning failed: %s", fault.ErrorMessage(err))
	}
	if err != nil {
		return SearchResult{}, err
	}
	res.Hits = hits
	return res, nil
}
