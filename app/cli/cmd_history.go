package cli

import (
	"cmp"
	"context"
	"errors"
	"flag"
	"fmt"
	"strconv"
	"strings"

	"github.com/docent/docent/agent/textfmt"
	"github.com/docent/docent/storage"
)

// historyList is `docent history --json`: the entries, newest first.
type historyList struct {
	Entries []storage.JournalEntry `json:"entries"`
}

func runHistory(ctx context.Context, env *Env, args []string) error {
	fs := flag.NewFlagSet("history", flag.ContinueOnError)
	document := fs.String("document", "", "")
	limit := fs.Int("limit", 50, "")
	asJSON := fs.Bool("json", false, "")
	rest, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(rest) > 0 {
		return usagef("history takes no arguments but flags\n%s", usageLine("history"))
	}
	if *limit < 1 || *limit > 1000 {
		return usagef("--limit must be from 1 to 1000\n%s", usageLine("history"))
	}
	db, err := env.Store(ctx)
	if err != nil {
		return err
	}
	f := storage.JournalFilter{Limit: *limit}
	if ref := strings.TrimSpace(*document); ref != "" {
		// A deleted document has a history too: its id still selects it.
		doc, err := db.FindDocument(ctx, ref)
		switch {
		case err == nil:
			f.DocumentID = doc.ID
		case errors.Is(err, storage.ErrNotFound):
			f.DocumentID = ref
		default:
			return err
		}
	}
	es, err := db.ListJournal(ctx, f)
	if err != nil {
		return err
	}
	if *asJSON {
		return writeJSON(env.IO, historyList{Entries: es})
	}
	if len(es) == 0 {
		fmt.Fprintln(env.IO.Err, "no changes in the history")
		return nil
	}
	// An auto-create run's entries show the run (docent undo --run), a
	// chat's the turn (docent undo --turn).
	t := newTable(env.IO.Out, "ENTRY", "WHEN", "EDGE", "WHO", "RUN/TURN", "CHANGE")
	for _, e := range es {
		change := textfmt.Shorten(e.Summary, 80)
		switch {
		case e.UndoneBy != 0:
			change += fmt.Sprintf(" [undone by %d]", e.UndoneBy)
		case e.Pruned:
			change += " [no longer undoable]"
		}
		t.row(strconv.FormatInt(e.ID, 10), formatTime(e.At), e.Edge, e.Actor, cmp.Or(e.RunID, e.TurnID, "-"), change)
	}
	return t.flush()
}

func runUndo(ctx context.Context, env *Env, args []string) error {
	fs := flag.NewFlagSet("undo", flag.ContinueOnError)
	turn := fs.String("turn", "", "")
	run := fs.String("run", "", "")
	cascade := fs.Bool("cascade", false, "")
	asJSON := fs.Bool("json", false, "")
	rest, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	given := 0
	for _, set := range []bool{len(rest) > 0, *turn != "", *run != ""} {
		if set {
			given++
		}
	}
	if given != 1 || len(rest) > 1 {
		return usagef("undo takes one history entry, or --turn TURN, or --run RUN\n%s", usageLine("undo"))
	}
	db, err := env.Store(ctx)
	if err != nil {
		return err
	}
	var res storage.UndoResult
	switch {
	case *turn != "":
		res, err = db.UndoTurn(ctx, *turn, *cascade)
	case *run != "":
		res, err = db.UndoRun(ctx, *run, *cascade)
	default:
		id, perr := strconv.ParseInt(rest[0], 10, 64)
		if perr != nil || id < 1 {
			return usagef("%q is not a history entry (a number, as docent history shows)\n%s", rest[0], usageLine("undo"))
		}
		res, err = db.Undo(ctx, id, *cascade)
	}
	if err != nil {
		return err
	}
	if *asJSON {
		return writeJSON(env.IO, res)
	}
	for _, e := range res.Undone {
		fmt.Fprintf(env.IO.Out, "undid %d: %s\n", e.ID, textfmt.Visible(e.Summary))
	}
	return nil
}
