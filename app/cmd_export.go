package app

import (
	"bufio"
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/docent/docent/app/export"
	"github.com/docent/docent/storage/fault"
)

// runExport is `docent export`: a thin adapter over package export, which
// the HTTP export uses too.
func runExport(ctx context.Context, env *Env, args []string) error {
	fs := flag.NewFlagSet("export", flag.ContinueOnError)
	prompt := fs.String("prompt", "", "")
	format := fs.String("format", "", "")
	out := fs.String("out", "", "")
	explode := fs.String("explode", "", "")
	// CSV cells that begin like a formula get a leading ' unless --raw
	// (package export says why).
	raw := fs.Bool("raw", false, "")
	rest, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if *prompt == "" || len(rest) > 0 {
		return usagef("export needs --prompt and nothing else\n%s", usageLine("export"))
	}
	f := strings.ToLower(*format)
	if f == "" {
		// The file's extension, else CSV.
		switch strings.ToLower(strings.TrimPrefix(filepath.Ext(*out), ".")) {
		case export.JSON:
			f = export.JSON
		case export.JSONL, "ndjson":
			f = export.JSONL
		default:
			f = export.CSV
		}
	}
	if f != export.CSV && f != export.JSON && f != export.JSONL {
		return usagef("--format must be csv, json or jsonl\n%s", usageLine("export"))
	}
	db, err := env.Store(ctx)
	if err != nil {
		return err
	}
	data, err := export.Load(ctx, db, *prompt)
	if err != nil {
		return err
	}
	opts := export.Options{Format: f, Explode: *explode, Raw: *raw}
	if *out == "" || *out == "-" {
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
	fmt.Fprintf(env.IO.Err, "exported %s with prompt %q to %s\n", plural(len(data.Rows), "document"), data.Prompt.Name, *out)
	return nil
}
