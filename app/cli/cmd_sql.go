package cli

import (
	"context"
	"encoding/csv"
	"flag"
	"fmt"
	"strconv"
	"strings"

	"github.com/docent/docent/storage"
)

// sqlMaxRows is how many rows `docent sql` prints at most; it says how
// many more there were.
const sqlMaxRows = 10_000

// runSQL is `docent sql`: one read-only SELECT over the data views, as
// the agent's query_data runs it (storage.QueryData).
func runSQL(ctx context.Context, env *Env, args []string) error {
	fs := flag.NewFlagSet("sql", flag.ContinueOnError)
	format := fs.String("format", "table", "")
	words, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(words) == 0 {
		return usagef("sql needs a query\n%s", usageLine("sql"))
	}
	switch *format {
	case "table", "csv", "json":
	default:
		return usagef("--format %q: want table, csv or json\n%s", *format, usageLine("sql"))
	}
	db, err := env.Store(ctx)
	if err != nil {
		return err
	}
	res, err := db.QueryData(ctx, storage.DataQuery{SQL: strings.Join(words, " "), MaxRows: sqlMaxRows})
	if err != nil {
		return err
	}
	switch *format {
	case "json":
		return writeJSON(env.IO, res)
	case "csv":
		err = writeSQLCSV(env, res)
	default:
		err = writeSQLTable(env, res)
	}
	if err != nil {
		return err
	}
	if res.Truncated {
		fmt.Fprintf(env.IO.Err, "note: %d of %d rows shown\n", len(res.Rows), res.RowCount)
	}
	return nil
}

func writeSQLTable(env *Env, res storage.DataResult) error {
	t := newTable(env.IO.Out, res.Columns...)
	for _, row := range res.Rows {
		cells := make([]string, len(row))
		for i, v := range row {
			if v == nil {
				cells[i] = "NULL"
			} else {
				cells[i] = sqlCell(v)
			}
		}
		t.row(cells...)
	}
	return t.flush()
}

// writeSQLCSV writes the result as CSV, values as they are (unlike
// `docent export`, which guards cells that a spreadsheet would read as
// formulas: this is the data as SQL gave it) and NULL as an empty cell.
func writeSQLCSV(env *Env, res storage.DataResult) error {
	w := csv.NewWriter(env.IO.Out)
	if err := w.Write(res.Columns); err != nil {
		return fmt.Errorf("write CSV: %w", err)
	}
	for _, row := range res.Rows {
		cells := make([]string, len(row))
		for i, v := range row {
			if v != nil {
				cells[i] = sqlCell(v)
			}
		}
		if err := w.Write(cells); err != nil {
			return fmt.Errorf("write CSV: %w", err)
		}
	}
	w.Flush()
	if err := w.Error(); err != nil {
		return fmt.Errorf("write CSV: %w", err)
	}
	return nil
}

// sqlCell is a value of a query's row as text: numbers as SQLite prints
// them, text as it is.
func sqlCell(v any) string {
	switch x := v.(type) {
	case int64:
		return strconv.FormatInt(x, 10)
	case float64:
		return strconv.FormatFloat(x, 'f', -1, 64)
	case string:
		return x
	}
	return fmt.Sprint(v)
}
