package server

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"maps"
	"net/http"
	"slices"
	"strconv"
	"strings"

	"github.com/docent/docent/app/export"
	"github.com/docent/docent/app/internal/listarg"
	"github.com/docent/docent/storage"
	"github.com/docent/docent/storage/fault"
)

// The export routes, GET /api/schemas/{schema_id}/export and GET
// /api/prompts/{prompt_id}/export: `docent export` as a download, both
// written by package export.

// exportSchema answers GET /api/schemas/{schema_id}/export?format=&prompt=
// &tag=&explode=&raw=: `docent export --schema` as a download. It also
// takes the rows route's sort, order, filter and status, so that the data
// view exports what it shows.
func (s *Server) exportSchema(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	opts, ctype, err := exportOptions(r)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	sel := export.Selection{Schema: r.PathValue("schema_id"), Prompt: q.Get("prompt"), Tags: listarg.Split(q["tag"])}
	var rows storage.SchemaRowsQuery
	err = rowSelection(r, nil, &rows) // LoadSchema checks the paths
	var data export.Data
	if err == nil {
		sel.Sort, sel.Desc, sel.Filters, sel.Status = rows.Sort, rows.Desc, rows.Filters, rows.Status
		data, err = export.LoadSchema(r.Context(), s.cfg.DB, sel)
	}
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	s.writeExport(w, r, data, opts, ctype)
}

// exportContentTypes are the media types of the export formats.
var exportContentTypes = map[string]string{
	export.CSV:   "text/csv; charset=utf-8",
	export.JSON:  "application/json; charset=utf-8",
	export.JSONL: "application/x-ndjson; charset=utf-8",
	export.XLSX:  "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
}

// exportOptions reads an export's format (default CSV) and its content
// type, explode, raw (whether CSV cells are written as extracted) and
// evidence (page columns), as both export routes take them.
func exportOptions(r *http.Request) (opts export.Options, ctype string, err error) {
	q := r.URL.Query()
	opts.Format, opts.Explode = cmp.Or(q.Get("format"), export.CSV), q.Get("explode")
	ctype, ok := exportContentTypes[opts.Format]
	if !ok {
		return opts, "", fault.Errorf(fault.Invalid, "format %q: want csv, json, jsonl or xlsx", opts.Format)
	}
	for name, flag := range map[string]*bool{"raw": &opts.Raw, "evidence": &opts.Evidence} {
		if v := q.Get(name); v != "" {
			if *flag, err = strconv.ParseBool(v); err != nil {
				return opts, "", fault.Errorf(fault.Invalid, "%s %q: want 1 or 0", name, v)
			}
		}
	}
	return opts, ctype, nil
}

// promptExportParams are the query parameters the prompt's export takes;
// it refuses others rather than ignore them and export every row.
var promptExportParams = []string{"format", "explode", "raw", "evidence", "tag"}

// checkPromptExportParams refuses a query parameter the prompt's export
// does not take. The data view's row selection is the schema export's: a
// prompt's rows are its latest extraction of each document, whatever
// schema that used, so the view's columns do not apply to them.
func checkPromptExportParams(r *http.Request) error {
	takes := strings.Join(promptExportParams, ", ")
	for _, name := range slices.Sorted(maps.Keys(r.URL.Query())) {
		switch {
		case slices.Contains(promptExportParams, name):
		case slices.Contains([]string{"sort", "order", "filter", "status", "prompt"}, name):
			return fault.Errorf(fault.Invalid, "the prompt's export takes %s, not %s: sort, order, filter and status select rows of a schema's export (GET /api/schemas/{schema_id}/export)", takes, name)
		default:
			return fault.Errorf(fault.Invalid, "unknown query parameter %q: the prompt's export takes %s", name, takes)
		}
	}
	return nil
}

// exportPrompt answers GET /api/prompts/{prompt_id}/export?format=&explode=&raw=&evidence=&tag=:
// the prompt's latest extraction of each document (of the documents that
// have every tag, ids or names, comma-separated or repeated), as `docent
// export` writes it, as a download. CSV cells that a spreadsheet would
// run as formulas are neutralised unless raw=1 (see package export).
func (s *Server) exportPrompt(w http.ResponseWriter, r *http.Request) {
	opts, ctype, err := exportOptions(r)
	if err == nil {
		err = checkPromptExportParams(r)
	}
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	data, err := export.LoadPrompt(r.Context(), s.cfg.DB, r.PathValue("prompt_id"), listarg.Split(r.URL.Query()["tag"]))
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	s.writeExport(w, r, data, opts, ctype)
}

// writeExport answers an export as a download named after data.Name. It
// is built in memory first, so that a bad explode path is a clean 400
// rather than a half-written download.
func (s *Server) writeExport(w http.ResponseWriter, r *http.Request, data export.Data, opts export.Options, ctype string) {
	var buf bytes.Buffer
	if err := export.Write(&buf, data, opts); err != nil {
		var fe *fault.Error
		if !errors.As(err, &fe) {
			err = fault.Errorf(fault.Invalid, "%v", err)
		}
		s.writeError(w, r, err)
		return
	}
	w.Header().Set("Content-Type", ctype)
	w.Header().Set("Content-Disposition", fmt.Sprintf("attachment; filename=%q", exportFileName(data.Name, opts.Format)))
	_, _ = w.Write(buf.Bytes())
}

// exportFileName is a download name made of the prompt's name.
func exportFileName(name, format string) string {
	safe := strings.Map(func(r rune) rune {
		if r == '/' || r == '\\' || r == '"' || r < ' ' {
			return '_'
		}
		return r
	}, strings.TrimSpace(name))
	if safe == "" {
		safe = "export"
	}
	return safe + "." + format
}
