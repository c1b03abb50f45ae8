package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/docent/docent/agent/evidence"
	"github.com/docent/docent/agent/textfmt"
	"github.com/docent/docent/storage"
)

// writeJSON is the one encoder behind every --json output: indented on a
// terminal for reading, compact otherwise for pipes, and never HTML-escaped.
func writeJSON(ios *IOStreams, v any) error {
	enc := json.NewEncoder(ios.Out)
	enc.SetEscapeHTML(false)
	if ios.OutTTY {
		enc.SetIndent("", "  ")
	}
	if err := enc.Encode(v); err != nil {
		return fmt.Errorf("write JSON: %w", err)
	}
	return nil
}

// table writes aligned columns; off a terminal the output is the same, so
// scripts can rely on it, but --json is the stable interface.
type table struct{ tw *tabwriter.Writer }

func newTable(w io.Writer, header ...string) *table {
	t := &table{tw: tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)}
	t.row(header...)
	return t
}

// row writes one row. Every cell goes through textfmt.Visible: a cell is
// one line, and a name in it reaches the terminal with its control
// characters spelled out (a tab or newline too, which would break the
// columns). The caller's cells are left as they are.
func (t *table) row(cells ...string) {
	visible := make([]string, len(cells))
	for i, c := range cells {
		visible[i] = textfmt.Visible(c)
	}
	fmt.Fprintln(t.tw, strings.Join(visible, "\t"))
}

func (t *table) flush() error { return t.tw.Flush() }

// humanSize renders a byte count as a person reads it.
func humanSize(n int64) string {
	const unit = 1024
	if n < unit {
		return fmt.Sprintf("%d B", n)
	}
	div, exp := int64(unit), 0
	for m := n / unit; m >= unit; m /= unit {
		div *= unit
		exp++
	}
	return fmt.Sprintf("%.1f %ciB", float64(n)/float64(div), "KMGTPE"[exp])
}

func formatTime(t time.Time) string { return t.Local().Format("2006-01-02 15:04") }

// evidenceLine says how many of an extraction's values were found in its
// document and names those that were not: "" for an extraction without
// evidence.
func evidenceLine(x storage.Extraction) string {
	var m evidence.Map
	if json.Unmarshal(x.Evidence, &m) != nil || len(m) == 0 {
		return ""
	}
	c := m.Counts()
	line := fmt.Sprintf("evidence: %d found in the document", c.Grounded)
	if c.Ambiguous > 0 {
		line += fmt.Sprintf(", %d found in several places (%s)", c.Ambiguous, strings.Join(m.Paths(evidence.Ambiguous), ", "))
	}
	if c.Ungrounded > 0 {
		line += fmt.Sprintf(", %d NOT FOUND (%s)", c.Ungrounded, strings.Join(m.Paths(evidence.Ungrounded), ", "))
	}
	if c.Edited > 0 {
		line += fmt.Sprintf(", %d edited", c.Edited)
	}
	return textfmt.Visible(line) // the paths are a schema's field names
}
