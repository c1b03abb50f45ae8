package storage

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"strings"
	"time"
)

// Evaluation sources: what the extracted values were compared with.
const (
	// EvalTruth: JSON files of known values, one per document.
	EvalTruth = "truth"
	// EvalCorrections: the values people corrected by hand.
	EvalCorrections = "corrections"
)

// Evaluation is one run of a prompt over documents with known values.
type Evaluation struct {
	ID       string `json:"evaluation_id"`
	PromptID string `json:"prompt_id"`
	// PromptRevID is the revision that ran; "" once it is deleted.
	PromptRevID string `json:"prompt_revid"`
	Model       string `json:"model"`
	// Source is EvalTruth or EvalCorrections.
	Source string `json:"source"`
	// BaselineID is the evaluation this one was compared with, if any.
	BaselineID string `json:"baseline_id,omitempty"`
	// Report is the whole result, as `docent eval --json` prints it.
	Report    json.RawMessage `json:"report" ts:"EvalReport"`
	CreatedAt time.Time       `json:"created_at"`
}

// NewEvaluation is what CreateEvaluation stores.
type NewEvaluation struct {
	PromptRevID, Model, Source, BaselineID string
	// Report must be a JSON object.
	Report json.RawMessage
}

const evaluationColumns = `id, prompt_id, coalesce(prompt_revid, ''), model, source, coalesce(baseline_id, ''), report, created_at`

func scanEvaluation(s scanner) (Evaluation, error) {
	var e Evaluation
	var report, created string
	if err := s.Scan(&e.ID, &e.PromptID, &e.PromptRevID, &e.Model, &e.Source, &e.BaselineID, &report, &created); err != nil {
		return Evaluation{}, err
	}
	e.Report = json.RawMessage(report)
	var err error
	e.CreatedAt, err = parseTime(created)
	return e, err
}

// CreateEvaluation stores an evaluation of a prompt revision.
func (db *DB) CreateEvaluation(ctx context.Context, ne NewEvaluation) (Evaluation, error) {
	if ne.Source != EvalTruth && ne.Source != EvalCorrections {
		return Evaluation{}, Errorf(ErrInvalid, "unknown evaluation source %q (want %s or %s)", ne.Source, EvalTruth, EvalCorrections)
	}
	report, ok := compactJSON(ne.Report)
	if !ok || report[0] != '{' {
		return Evaluation{}, Errorf(ErrInvalid, "evaluation report must be a JSON object")
	}
	var out Evaluation
	err := db.update(ctx, "create evaluation", func(tx *writeTx) error {
		rev, err := promptArtifact.revision(ctx, tx, ne.PromptRevID)
		if err != nil {
			return err
		}
		var baseline any
		if id := strings.TrimSpace(ne.BaselineID); id != "" {
			if _, err := getEvaluation(ctx, tx, id); err != nil {
				return err
			}
			baseline = id
		}
		id := newID(prefixEvaluation)
		if _, err := tx.ExecContext(ctx, `INSERT INTO evaluations
			(id, prompt_id, prompt_revid, model, source, baseline_id, report, created_at)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
			id, rev.PromptID, rev.PromptRevID, strings.TrimSpace(ne.Model), ne.Source, baseline, string(report), tx.nowText()); err != nil {
			return err
		}
		out, err = getEvaluation(ctx, tx, id)
		return err
	})
	return out, err
}

func getEvaluation(ctx context.Context, q queryer, id string) (Evaluation, error) {
	e, err := scanEvaluation(q.QueryRowContext(ctx, `SELECT `+evaluationColumns+` FROM evaluations WHERE id = ?`, id))
	if errors.Is(err, sql.ErrNoRows) {
		return Evaluation{}, Errorf(ErrNotFound, "evaluation %s not found", id)
	}
	return e, err
}

// GetEvaluation returns the evaluation with this id.
func (db *DB) GetEvaluation(ctx context.Context, id string) (Evaluation, error) {
	e, err := getEvaluation(ctx, db.sql, strings.TrimSpace(id))
	return e, translate("get evaluation", err)
}

// ListEvaluations returns the evaluations of a prompt (any revision),
// newest first.
func (db *DB) ListEvaluations(ctx context.Context, promptID string) ([]Evaluation, error) {
	out, err := queryRows(ctx, db.sql, scanEvaluation, `SELECT `+evaluationColumns+` FROM evaluations
		WHERE prompt_id = ? ORDER BY created_at DESC, id DESC`, promptID)
	return out, translate("list evaluations", err)
}
