package cli

import (
	"bufio"
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/docent/docent/agent/textfmt"
	"github.com/docent/docent/app/export"
	"github.com/docent/docent/storage/fault"
)

// runExport is `docent export`: a thin adapter over package export, which
// the HTTP exports use too. --schema exports every document whose latest
// extraction used the schema (--prompt then narrows to one prompt);
// --prompt alone exports a prompt's latest extraction of each document, as
// before there were kinds.
func runExport(ctx context.Context, env *Env, args []string) error {
	fs := flag.NewFlagSet("export", flag.ContinueOnError)
	schema := fs.String("schema", "", "")
	prompt := fs.String("prompt", "", "")
	var tags stringList
	fs.Var(&tags, "tag", "")
	format := fs.String("format", "", "")
	out := fs.String("out", "", "")
	explode := fs.String("explode", "", "")
	// CSV cells that begin like a formula get a leading ' unless --raw
	// (package export says why).
	raw := fs.Bool("raw", false, "")
	evidence := fs.Bool("evidence", false, "")
	rest, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if (*schema == "" && *prompt == "") || len(rest) > 0 {
		return usagef("export needs --schema or --prompt and nothing else\n%s", usageLine("export"))
	}
	f := strings.ToLower(*format)
	if f == "" {
		// The file's extension, else CSV.
		switch strings.ToLower(strings.TrimPrefix(filepath.Ext(*out), ".")) {
		case export.JSON:
			f = export.JSON
		case export.JSONL, "ndjson":
			f = export.JSONL
		case export.XLSX:
			f = export.XLSX
		default:
			f = export.CSV
		}
	}
	if !slices.Contains(export.Formats, f) {
		return usagef("--format must be csv, json, jsonl or xlsx\n%s", usageLine("export"))
	}
	toStdout := *out == "" || *out == "-"
	if f == export.XLSX && toStdout && env.IO.OutTTY {
		return usagef("an xlsx file is binary: write it with --out FILE.xlsx (or redirect stdout)")
	}
	db, err := env.Store(ctx)
	if err != nil {
		return err
	}
	var data export.Data
	if *schema != "" {
		data, err = export.LoadSchema(ctx, db, export.Selection{Schema: *schema, Prompt: *prompt, Tags: tags})
	} else {
		data, err = export.LoadPrompt(ctx, db, *prompt, tags)
	}
	if err != nil {
		return err
	}
	opts := export.Options{Format: f, Explode: *explode, Raw: *raw, Evidence: *evidence}
	if toStdout {
		w := bufio.NewWriter(env.IO.Out)
		if err := export.Write(w, data, opts); err != nil {
			return err
		}
		return w.Flush()
	}
	// Written beside the target and renamed into place, so that a failed
	// export never leaves half a file where a spreadsheet expects one.
	tmp, err := os.CreateTemp(filepath.Dir(*out), "."+filepath.Base(*out)+".*")
	if err != nil {
		return fault.Errorf(fault.Invalid, "export: %w", err)
	}
	defer os.Remove(tmp.Name())
	w := bufio.NewWriter(tmp)
	err = export.Write(w, data, opts)
	if err == nil {
		err = w.Flush()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), *out)
	}
	if err != nil {
		return fault.Errorf(fault.Invalid, "export to %s: %w", *out, err)
	}
	what := fmt.Sprintf("with prompt %q", data.Name)
	if *schema != "" {
		what = fmt.Sprintf("of schema %q", data.Name)
		if *prompt != "" {
			what += fmt.Sprintf(" with prompt %q", data.Prompt.Name)
		}
	}
	fmt.Fprintf(env.IO.Err, "exported %s %s to %s\n", textfmt.Count(len(data.Rows), "document"), what, *out)
	return nil
}
