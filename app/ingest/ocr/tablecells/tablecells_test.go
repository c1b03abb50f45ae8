package tablecells

import (
	"image"
	"strings"
	"testing"
)

type word struct {
	x, y, w, h int
	text       string
}

func (w word) box() image.Rectangle { return image.Rect(w.x, w.y, w.x+w.w, w.y+w.h) }

// text is rows as lines of words joined by spaces.
func text(rows [][]word) string {
	var lines []string
	for _, r := range rows {
		var ws []string
		for _, w := range r {
			ws = append(ws, w.text)
		}
		lines = append(lines, strings.Join(ws, " "))
	}
	return strings.Join(lines, "\n")
}

func join(rows [][]word) string {
	return text(Join(rows, word.box))
}

// The rows of a rental invoice's table as Tesseract read them at 200 dpi
// (zugferd/v2_zugferd_2p0_EN16931_Miete.pdf, page 2): the boxes are
// Tesseract's.
var (
	navigation = []word{{161, 1228, 11, 17, "2"}, {387, 1227, 281, 23, "Navigationssystem"}, {796, 1228, 95, 21, "5,0400"},
		{1033, 1228, 11, 17, "2"}, {1065, 1228, 48, 17, "Stk"}, {1432, 1228, 77, 21, "10,08"}}
	garantie  = []word{{388, 1268, 12, 2, "-"}, {420, 1259, 130, 18, "Garantie"}}
	inklusiv  = []word{{444, 1330, 294, 18, "Inklusiv-Kilometer"}, {758, 1336, 92, 12, "waren:"}, {877, 1331, 45, 17, "873"}}
	vollkasko = []word{{166, 1435, 11, 17, "3"}, {432, 1435, 147, 17, "Vollkasko"}, {695, 1435, 112, 21, "23,1000"},
		{977, 1435, 11, 17, "2"}, {1009, 1435, 48, 17, "Stk"}, {1432, 1435, 77, 21, "46,20"}}
	minimale = []word{{163, 1574, 10, 17, "4"}, {390, 1573, 130, 18, "minimale"}, {772, 1574, 111, 21, "15,5500"},
		{1027, 1574, 11, 17, "2"}, {1060, 1574, 48, 17, "Stk"}, {1432, 1574, 77, 21, "31,10"}}
	selbst = []word{{392, 1605, 279, 23, "Selbstbeteiligung"}}
	choice = []word{{168, 1853, 10, 17, "6"}, {443, 1852, 95, 18, "Choice"}, {694, 1853, 94, 21, "5,0400"},
		{964, 1853, 11, 17, "2"}, {997, 1853, 48, 17, "Stk"}, {1432, 1853, 77, 21, "10,08"}}
	upgrade = []word{{442, 1884, 113, 22, "Upgrade"}}
)

// TestWrappedCellsJoinTheirRow: a description wrapped in its cell is read
// on its row, after the cell's first line and before the row's numbers;
// a note further below and the next rows stay where they were.
func TestWrappedCellsJoinTheirRow(t *testing.T) {
	got := join([][]word{navigation, garantie, inklusiv, vollkasko, minimale, selbst, choice, upgrade})
	want := strings.Join([]string{
		"2 Navigationssystem - Garantie 5,0400 2 Stk 10,08",
		"Inklusiv-Kilometer waren: 873",
		"3 Vollkasko 23,1000 2 Stk 46,20",
		"4 minimale Selbstbeteiligung 15,5500 2 Stk 31,10",
		"6 Choice Upgrade 5,0400 2 Stk 10,08",
	}, "\n")
	if got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}

// TestCellOfThreeLines: each further line of the same cell follows the
// one before it.
func TestCellOfThreeLines(t *testing.T) {
	third := []word{{442, 1915, 80, 22, "Premium"}}
	got := join([][]word{choice, upgrade, third})
	if want := "6 Choice Upgrade Premium 5,0400 2 Stk 10,08"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

// TestLinesThatAreNotACellsContinuation stay as they are read.
func TestLinesThatAreNotACellsContinuation(t *testing.T) {
	for _, c := range []struct {
		name string
		next []word
	}{
		// A full row right under the row: two cells.
		{"a row of its own", []word{{168, 1884, 10, 17, "7"}, {443, 1884, 95, 18, "Extra"}, {1432, 1884, 77, 21, "1,00"}}},
		// A line more than a line's height below.
		{"a line further down", []word{{442, 1930, 113, 22, "Upgrade"}}},
		// A line spanning two columns.
		{"a sentence under the table", []word{{442, 1884, 500, 22, "Thank you for your business"}}},
		// Under a column, but neither its left, right nor middle.
		{"a line not aligned with the cell", []word{{500, 1884, 120, 22, "Upgrade"}}},
		// Reaching into the next column's cell.
		{"a line reaching the next column", []word{{442, 1884, 260, 22, "Upgrade-and-more"}}},
	} {
		t.Run(c.name, func(t *testing.T) {
			want := text([][]word{choice, c.next})
			if got := join([][]word{choice, c.next}); got != want {
				t.Errorf("got\n%s\nwant\n%s", got, want)
			}
		})
	}
}

// TestOneCellRowsAreKept: lines of running text, one cell each, are no
// table: nothing moves.
func TestOneCellRowsAreKept(t *testing.T) {
	rows := [][]word{
		{{100, 100, 80, 20, "Dear"}, {190, 100, 120, 20, "customer,"}},
		{{100, 125, 60, 20, "thank"}, {170, 125, 40, 20, "you."}},
	}
	if got, want := join(rows), "Dear customer,\nthank you."; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	if got := Join[word](nil, word.box); len(got) != 0 {
		t.Errorf("no rows gave %d", len(got))
	}
}

// TestCellsOfTwoColumnsWrapTogether: the line under a row may continue
// two of its cells at once, one of them a column the row's first line
// leaves empty (the article number printed under the position); each goes
// after the column to its left
// (zugferd/v2_zugferd_2p0_EN16931_Rechnungskorrektur.pdf, page 2). A line
// only in that empty column continues nothing: it could as well be a
// note under the row.
func TestCellsOfTwoColumnsWrapTogether(t *testing.T) {
	row := []word{{163, 1103, 11, 17, "2"}, {436, 1102, 196, 18, "Gelierzucker"}, {756, 1103, 94, 21, "1,4500"},
		{1250, 1103, 45, 17, "7%"}, {1431, 1103, 78, 21, "-2,90"}}
	second := []word{{204, 1134, 79, 17, "GZ250"}, {435, 1135, 80, 16, "Extra"}, {535, 1134, 64, 22, "250g"}}
	third := []word{{205, 1165, 210, 17, "4123456000021"}}
	fourth := []word{{210, 1197, 85, 20, "(GTIN)"}}
	note := []word{{1112, 1259, 214, 18, "Artikelrabatt"}, {1347, 1260, 24, 17, "1:"}, {1396, 1260, 96, 21, "-2,00%"}}
	got := join([][]word{row, second, third, fourth, note})
	want := "2 GZ250 Gelierzucker Extra 250g 1,4500 7% -2,90\n4123456000021\n(GTIN)\nArtikelrabatt 1: -2,00%"
	if got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}

// TestLastColumnStartsARow: a line with something under the row's last
// column (an amount) is a row of its own, however close.
func TestLastColumnStartsARow(t *testing.T) {
	amount := []word{{1432, 1884, 77, 21, "5,00"}}
	withText := []word{{443, 1884, 95, 18, "Rabatt"}, {1432, 1884, 77, 21, "-1,00"}}
	for _, next := range [][]word{amount, withText} {
		want := text([][]word{choice, next})
		if got := join([][]word{choice, next}); got != want {
			t.Errorf("got\n%s\nwant\n%s", got, want)
		}
	}
}

// TestFirstColumnIsALabel: on a receipt the line under a label is the
// next label, not the rest of it; receipt 005's and 022's lines of the
// SROIE corpus as PP-OCR boxed them.
func TestFirstColumnIsALabel(t *testing.T) {
	for _, rows := range [][][]word{
		{{{40, 700, 150, 30, "Change:"}, {600, 700, 90, 30, "70.00"}}, {{40, 735, 420, 30, "*GoodsSold are non-refundable"}}},
		{{{40, 700, 300, 30, "Total Includes GST 6%"}, {600, 700, 80, 30, "9.00"}}, {{40, 734, 250, 30, "Customer's Payment"}}},
		{{{40, 700, 200, 30, "Cashier: ANGELA"}, {500, 700, 140, 30, "Cover : 1"}}, {{40, 734, 330, 30, "Bill Date : 20/11/2017"}}},
	} {
		want := text(rows)
		if got := join(rows); got != want {
			t.Errorf("got\n%s\nwant\n%s", got, want)
		}
	}
}

// TestCentredLineIsNoCell: a line centred under a middle column is a
// receipt's footer, not the cell's second line (SROIE receipt 038 as
// PP-OCR boxed it, roughly).
func TestCentredLineIsNoCell(t *testing.T) {
	rows := [][]word{
		{{40, 900, 50, 30, "SR"}, {300, 900, 140, 30, "6 136"}, {600, 900, 70, 30, "0.74"}},
		{{220, 934, 300, 30, "****Thank You ****"}},
	}
	if got, want := join(rows), text(rows); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}

// TestFirstColumnOfAnItemRow: in a row of four cells or more (an item:
// description, quantity, price, amount) the first column's wrapped
// description continues (invoice2data/AzureInterior.pdf's "Beeswax XL"
// over "Acme beeswax", SROIE receipt 038's item code over its name); in a
// row of three, a label and its values, it does not.
func TestFirstColumnOfAnItemRow(t *testing.T) {
	item := [][]word{
		{{100, 500, 140, 24, "Beeswax XL"}, {700, 500, 60, 24, "1.00 kg"}, {900, 500, 70, 24, "42.00"}, {1100, 500, 60, 24, "15%"}, {1300, 500, 80, 24, "$ 42.00"}},
		{{100, 530, 170, 24, "Acme beeswax"}},
	}
	if got, want := join(item), "Beeswax XL Acme beeswax 1.00 kg 42.00 15% $ 42.00"; got != want {
		t.Errorf("item row: got %q, want %q", got, want)
	}
	label := [][]word{
		{{40, 300, 70, 30, "Name"}, {300, 300, 150, 30, "ESWARAN"}, {600, 300, 180, 30, "012-6369400"}},
		{{40, 334, 110, 30, "Address"}},
	}
	if got, want := join(label), text(label); got != want {
		t.Errorf("label row: got %q, want %q", got, want)
	}
}
