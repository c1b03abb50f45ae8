package export

import (
	"encoding/json"
	"io"
	"strconv"
	"strings"

	"github.com/xuri/excelize/v2"
)

// xlsxColumnWidth is the width of every column, in characters.
const xlsxColumnWidth = 18

// writeXLSX writes the table as a workbook of one sheet named after the
// export: a bold header row, frozen so it stays in view, then a row per
// table row. Written with excelize's stream writer, so a large export is
// not held as a document tree.
func (t Table) writeXLSX(w io.Writer, name string) error {
	f := excelize.NewFile()
	defer f.Close()
	sheet := sheetName(name)
	if err := f.SetSheetName(f.GetSheetName(0), sheet); err != nil {
		return err
	}
	sw, err := f.NewStreamWriter(sheet)
	if err != nil {
		return err
	}
	bold, err := f.NewStyle(&excelize.Style{Font: &excelize.Font{Bold: true}})
	if err != nil {
		return err
	}
	if err := sw.SetPanes(&excelize.Panes{Freeze: true, YSplit: 1, TopLeftCell: "A2", ActivePane: "bottomLeft"}); err != nil {
		return err
	}
	if len(t.Columns) > 0 {
		if err := sw.SetColWidth(1, len(t.Columns), xlsxColumnWidth); err != nil {
			return err
		}
	}
	header := make([]any, len(t.Columns))
	for i, c := range t.Columns {
		header[i] = excelize.Cell{StyleID: bold, Value: c}
	}
	if err := sw.SetRow("A1", header); err != nil {
		return err
	}
	cells := make([]any, len(t.Columns))
	for n, row := range t.Rows {
		for i, v := range row {
			cells[i] = xlsxValue(v)
		}
		ref, err := excelize.CoordinatesToCellName(1, n+2)
		if err != nil {
			return err
		}
		if err := sw.SetRow(ref, cells); err != nil {
			return err
		}
	}
	if err := sw.Flush(); err != nil {
		return err
	}
	return f.Write(w)
}

// xlsxValue is a table value as a cell value: a JSON number as a number
// (kept as text when a spreadsheet's 15 significant digits would change
// it), true and false as booleans, null as an empty cell, anything else as
// the text Cell gives, which stays text.
func xlsxValue(v any) any {
	switch x := v.(type) {
	case nil:
		return nil
	case bool:
		return x
	case json.Number:
		if f, ok := spreadsheetNumber(x.String()); ok {
			return f
		}
		return x.String()
	}
	return Cell(v)
}

// spreadsheetNumber parses a JSON number that a spreadsheet holds exactly
// enough: finite, with at most 15 significant digits (more, as in a long
// account number, would be rounded, so it stays text).
func spreadsheetNumber(s string) (float64, bool) {
	f, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return 0, false
	}
	mantissa := strings.TrimLeft(s, "-")
	if i := strings.IndexAny(mantissa, "eE"); i >= 0 {
		mantissa = mantissa[:i]
	}
	digits := strings.TrimLeft(strings.Replace(mantissa, ".", "", 1), "0")
	if strings.Contains(mantissa, ".") {
		digits = strings.TrimRight(digits, "0")
	}
	return f, len(digits) <= 15
}

// sheetName makes an export's name a valid sheet name: at most 31
// characters, none of : \ / ? * [ ], not starting or ending with '.
func sheetName(name string) string {
	name = strings.Map(func(r rune) rune {
		switch r {
		case ':', '\\', '/', '?', '*', '[', ']':
			return '_'
		}
		if r < ' ' {
			return -1
		}
		return r
	}, name)
	if r := []rune(name); len(r) > 31 {
		name = string(r[:31])
	}
	name = strings.Trim(name, "' ")
	if name == "" || strings.EqualFold(name, "History") {
		return "Export"
	}
	return name
}
