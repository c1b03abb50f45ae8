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

// exportOptions are the flags of `docent export`.
type exportOptions struct {
	// Schema exports every document whose latest extraction used the
	// schema, Prompt then narrowing to one prompt; Prompt alone exports a
	// prompt's latest extraction of each document, as before there were
	// kinds.
	Schema, Prompt string
	Tags           []string
	// Format is --format, else the one --out's extension names, else CSV.
	Format string
	// Out is the file to write; "" or "-" is stdout.
	Out     string
	Explode string
	// Raw leaves CSV cells that begin like a formula as they are; without
	// it they get a leading ' (package export says why).
	Raw      bool
	Evidence bool
}

func parseExport(args []string) (exportOptions, error) {
	var o exportOptions
	fs := flag.NewFlagSet("export", flag.ContinueOnError)
	fs.StringVar(&o.Schema, "schema", "", "")
	fs.StringVar(&o.Prompt, "prompt", "", "")
	fs.Var((*stringList)(&o.Tags), "tag", "")
	fs.StringVar(&o.Format, "format", "", "")
	fs.StringVar(&o.Out, "out", "", "")
	fs.StringVar(&o.Explode, "explode", "", "")
	fs.BoolVar(&o.Raw, "raw", false, "")
	fs.BoolVar(&o.Evidence, "evidence", false, "")
	rest, err := parseFlags(fs, args)
	if err != nil {
		return o, err
	}
	if (o.Schema == "" && o.Prompt == "") || len(rest) > 0 {
		return o, usagef("export needs --schema or --prompt and nothing else\n%s", usageLine("export"))
	}
	o.Format = strings.ToLower(o.Format)
	if o.Format == "" {
		switch strings.ToLower(strings.TrimPrefix(filepath.Ext(o.Out), ".")) {
		case export.JSON:
			o.Format = export.JSON
		case export.JSONL, "ndjson":
			o.Format = export.JSONL
		case export.XLSX:
			o.Format = export.XLSX
		default:
			o.Format = export.CSV
		}
	}
	if !slices.Contains(export.Formats, o.Format) {
		return o, usagef("--format must be csv, json, jsonl or xlsx\n%s", usageLine("export"))
	}
	return o, nil
}

func (o exportOptions) toStdout() bool { return o.Out == "" || o.Out == "-" }

// runExport is `docent export`: a thin adapter over package export, which
// the HTTP exports use too.
func runExport(ctx context.Context, env *Env, o exportOptions) error {
	if o.Format == export.XLSX && o.toStdout() && env.IO.OutTTY {
		return usagef("an xlsx file is binary: write it with --out FILE.xlsx (or redirect stdout)")
	}
	db, err := env.Store(ctx)
	if err != nil {
		return err
	}
	var data export.Data
	if o.Schema != "" {
		data, err = export.LoadSchema(ctx, db, export.Selection{Schema: o.Schema, Prompt: o.Prompt, Tags: o.Tags})
	} else {
		data, err = export.LoadPrompt(ctx, db, o.Prompt, o.Tags)
	}
	if err != nil {
		return err
	}
	opts := export.Options{Format: o.Format, Explode: o.Explode, Raw: o.Raw, Evidence: o.Evidence}
	if o.toStdout() {
		w := bufio.NewWriter(env.IO.Out)
		if err := export.Write(w, data, opts); err != nil {
			return err
		}
		return w.Flush()
	}
	// Written beside the target and renamed into place, so that a failed
	// export never leaves half a file where a spreadsheet expects one.
	tmp, err := os.CreateTemp(filepath.Dir(o.Out), "."+filepath.Base(o.Out)+".*")
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
		err = os.Rename(tmp.Name(), o.Out)
	}
	if err != nil {
		return fault.Errorf(fault.Invalid, "export to %s: %w", o.Out, err)
	}
	what := fmt.Sprintf("with prompt %q", data.Name)
	if o.Schema != "" {
		what = fmt.Sprintf("of schema %q", data.Name)
		if o.Prompt != "" {
			what += fmt.Sprintf(" with prompt %q", data.Prompt.Name)
		}
	}
	fmt.Fprintf(env.IO.Err, "exported %s %s to %s\n", textfmt.Count(len(data.Rows), "document"), what, o.Out)
	return nil
}
