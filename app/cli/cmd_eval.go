package cli

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/docent/docent/agent"
	"github.com/docent/docent/agent/textfmt"
	"github.com/docent/docent/storage"
	"github.com/docent/docent/storage/fault"
)

// runEval measures a prompt against known values: the ground truth of a
// folder of JSON files (--truth), or the values people corrected by hand
// (--corrections).
func runEval(ctx context.Context, env *Env, args []string) error {
	fs := flag.NewFlagSet("eval", flag.ContinueOnError)
	promptRef := fs.String("prompt", "", "")
	truth := fs.String("truth", "", "")
	corrections := fs.Bool("corrections", false, "")
	baseline := fs.String("baseline", "", "")
	asJSON := fs.Bool("json", false, "")
	rest, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if *promptRef == "" || (*truth == "") == !*corrections || len(rest) > 0 {
		return usagef("eval needs --prompt and one of --truth DIR or --corrections\n%s", usageLine("eval"))
	}
	db, err := env.Store(ctx)
	if err != nil {
		return err
	}
	source, cases := storage.EvalCorrections, []agent.EvalCase(nil)
	if *truth != "" {
		source = storage.EvalTruth
		var missing []string
		cases, missing, err = truthCases(ctx, db, *truth)
		for _, name := range missing {
			fmt.Fprintf(env.IO.Err, "docent: %s: no imported document of that name; skipped\n", textfmt.Visible(name))
		}
	} else {
		cases, err = agent.CorrectionCases(ctx, db, *promptRef)
	}
	if err != nil {
		return err
	}
	a, err := env.Agent(ctx)
	if err != nil {
		return err
	}
	bar := newProgress(env.IO, len(cases), "evaluating")
	rep, err := a.Extractor.Evaluate(ctx, agent.EvalRequest{
		PromptID: *promptRef, Model: env.ModelFlag, Source: source, Cases: cases, BaselineID: *baseline,
		Progress: func(done, total int, d agent.EvalDocument) {
			what := fmt.Sprintf("%d/%d exact", d.Exact, d.Known)
			if d.Error != "" {
				what = "failed: " + d.Error
			}
			bar.step(done, fmt.Sprintf("%s: %s", textfmt.Visible(d.DocumentName), what))
		},
	})
	bar.finish()
	if err != nil {
		return err
	}
	if *asJSON {
		return writeJSON(env.IO, rep)
	}
	printEval(env, rep)
	return nil
}

// truthCases reads a folder of ground truth: for each imported document
// NAME.ext, the file NAME.expected.verified.json, NAME.expected.json or
// NAME.json beside the others (the first that exists: the most checked
// one). It returns the files that name no imported document too.
func truthCases(ctx context.Context, db *storage.DB, dir string) ([]agent.EvalCase, []string, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, nil, fault.Errorf(fault.Invalid, "read ground truth: %w", err)
	}
	files := map[string]string{} // document base name → truth file
	rank := map[string]int{}
	for _, e := range entries {
		name := e.Name()
		if e.IsDir() || !strings.HasSuffix(name, ".json") {
			continue
		}
		for r, suffix := range []string{".expected.verified.json", ".expected.json", ".json"} {
			if base, ok := strings.CutSuffix(name, suffix); ok {
				if old, seen := rank[base]; !seen || r < old {
					files[base], rank[base] = filepath.Join(dir, name), r
				}
				break
			}
		}
	}
	docs, err := documentsByBase(ctx, db)
	if err != nil {
		return nil, nil, err
	}
	var cases []agent.EvalCase
	var missing []string
	for _, base := range slices.Sorted(maps.Keys(files)) {
		doc, ok := docs[base]
		if !ok {
			missing = append(missing, filepath.Base(files[base]))
			continue
		}
		b, err := os.ReadFile(files[base])
		if err != nil {
			return nil, nil, fault.Errorf(fault.Invalid, "read ground truth: %w", err)
		}
		known, err := agent.KnownValues(b)
		if err != nil {
			return nil, nil, fmt.Errorf("%s: %w", files[base], err)
		}
		cases = append(cases, agent.EvalCase{DocumentID: doc.ID, Known: known, Complete: true})
	}
	return cases, missing, nil
}

// documentsByBase maps each document's name without its extension to the
// document (the newest, when two share one).
func documentsByBase(ctx context.Context, db *storage.DB) (map[string]storage.Document, error) {
	out := map[string]storage.Document{}
	for offset := 0; ; {
		page, total, err := db.ListDocuments(ctx, storage.DocumentFilter{Limit: 500, Offset: offset, Sort: storage.SortCreatedAt, Order: "asc"})
		if err != nil {
			return nil, err
		}
		for _, d := range page {
			out[strings.TrimSuffix(d.Name, filepath.Ext(d.Name))] = d
		}
		offset += len(page)
		if len(page) == 0 || offset >= total {
			return out, nil
		}
	}
}

// printEval prints an evaluation for a person: per field, overall, the
// documents' mismatches, and how to compare a later run with this one.
func printEval(env *Env, rep agent.EvalReport) {
	out := env.IO.Out
	fmt.Fprintf(out, "Prompt %q v%d with %s, %d documents (%s)\n\n", rep.PromptName, rep.Version, textfmt.Visible(rep.Model), len(rep.Documents), textfmt.Visible(rep.Source))
	tw := tabwriter.NewWriter(out, 2, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "FIELD\tKNOWN\tEXACT\tWRONG\tMISSING\tEXTRA\tGROUNDED")
	for _, f := range rep.Fields {
		fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%d\t%d\t%d\n", textfmt.Visible(f.Field), f.Known, f.Exact, f.Wrong, f.Missing, f.Extra, f.Grounded)
	}
	tw.Flush()
	o := rep.Overall
	fmt.Fprintf(out, "\nOverall: %d of %d exact (%.1f%%), %d wrong, %d missing, %d extra; %.1f%% of the exact values found in their document\n",
		o.Exact, o.Known, o.Accuracy*100, o.Wrong, o.Missing, o.Extra, o.GroundedShare*100)
	if b := rep.Baseline; b != nil {
		fmt.Fprintf(out, "Against %s: %+d exact (%.1f%% → %.1f%%)", b.BaselineID, b.ExactChange, b.BaselineAccuracy*100, o.Accuracy*100)
		for _, f := range slices.Sorted(maps.Keys(b.Fields)) {
			fmt.Fprintf(out, "; %s %+d", f, b.Fields[f])
		}
		fmt.Fprintln(out)
	}
	for _, d := range rep.Documents {
		if d.Error != "" {
			fmt.Fprintf(out, "\n%s: not extracted: %s\n", textfmt.Visible(d.DocumentName), textfmt.Visible(d.Error))
			continue
		}
		if len(d.Mismatches) == 0 {
			continue
		}
		fmt.Fprintf(out, "\n%s:\n", textfmt.Visible(d.DocumentName))
		for _, m := range d.Mismatches {
			switch m.Kind {
			case "missing":
				fmt.Fprintf(out, "  %s: missing (want %s)\n", textfmt.Visible(m.Path), textfmt.Visible(evalValue(m.Want)))
			case "extra":
				fmt.Fprintf(out, "  %s: extra %s\n", textfmt.Visible(m.Path), textfmt.Visible(evalValue(m.Got)))
			default:
				note := ""
				if m.Status == "ungrounded" {
					note = " — not found in the document"
				}
				fmt.Fprintf(out, "  %s: got %s, want %s%s\n", textfmt.Visible(m.Path), textfmt.Visible(evalValue(m.Got)), textfmt.Visible(evalValue(m.Want)), note)
			}
		}
	}
	fmt.Fprintf(out, "\nEvaluation %s (compare a later run with --baseline %s)\n", rep.EvaluationID, rep.EvaluationID)
}

// evalValue prints a value as JSON, short.
func evalValue(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return textfmt.Shorten(string(b), 60)
}
