package pdftext

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/docent/docent/app/internal/testcorpus"
)

// TestGroundTruthValuesInText checks that Docent's text holds the invoice
// values that pdftotext's text holds: for each invoice with a verified
// ground-truth file (the values of its expected JSON that were found in
// pdftotext's output), it counts how many of those values Docent's text
// contains, and compares the rate with the manifest's rate for pdftotext
// (gt_values_found_in_text, found/total over the full expected JSON).
func TestGroundTruthValuesInText(t *testing.T) {
	dir, entries := testcorpus.Manifest(t)
	if testing.Short() {
		t.Skip("skipping the ground-truth check in -short mode")
	}
	var gt []testcorpus.Entry
	for _, e := range entries {
		if e.GroundTruthVerified != "" && e.GTValuesFound != "" {
			gt = append(gt, e)
		}
	}
	if len(gt) == 0 {
		t.Fatal("no invoice in the manifest has a verified ground-truth file")
	}
	outcomes := readCorpus(t, dir, gt, true)
	_, popplerErr := exec.LookPath("pdftotext")

	var docentFound, popplerFound, popplerRecheck, total int
	for _, o := range outcomes {
		e := o.entry
		var found, all int
		if _, err := fmt.Sscanf(e.GTValuesFound, "%d/%d", &found, &all); err != nil || all == 0 {
			t.Errorf("%s: bad gt_values_found_in_text %q", e.File, e.GTValuesFound)
			continue
		}
		values := groundTruthValues(t, filepath.Join(dir, e.GroundTruthVerified))
		if o.err != nil {
			t.Errorf("%s: %v", e.File, o.err)
			continue
		}
		text := strings.Join(o.res.Pages, "\n")
		got, missing := countFound(text, values)
		docentFound += got
		popplerFound += found
		total += all
		recheck := ""
		if popplerErr == nil {
			if ptext, err := pdftotextLayout(filepath.Join(dir, e.File), e.Password); err == nil {
				n, _ := countFound(ptext, values)
				popplerRecheck += n
				recheck = fmt.Sprintf(" (this matcher on pdftotext -layout: %d)", n)
			}
		}
		t.Logf("%-75s Docent %2d/%d, pdftotext %2d/%d%s", e.File, got, all, found, all, recheck)
		if len(missing) > 0 {
			t.Logf("    not in Docent's text: %q", missing)
		}
	}
	rate := func(n int) float64 { return 100 * float64(n) / float64(max(total, 1)) }
	t.Logf("ground truth over %d invoices: Docent %d/%d (%.1f%%), pdftotext %d/%d (%.1f%%) by the manifest",
		len(gt), docentFound, total, rate(docentFound), popplerFound, total, rate(popplerFound))
	if popplerErr == nil {
		t.Logf("the same matcher on pdftotext -layout output: %d/%d (%.1f%%)", popplerRecheck, total, rate(popplerRecheck))
	}
	if docentFound < popplerFound {
		t.Errorf("Docent's text holds %d ground-truth values, pdftotext's %d: Docent must find at least as many", docentFound, popplerFound)
	}
}

// groundTruthValues returns the leaf values of a verified ground-truth file.
func groundTruthValues(t *testing.T, path string) []any {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	var leaves []any
	var walk func(any)
	walk = func(v any) {
		switch x := v.(type) {
		case map[string]any:
			for _, c := range x {
				walk(c)
			}
		case []any:
			for _, c := range x {
				walk(c)
			}
		case nil:
		default:
			leaves = append(leaves, x)
		}
	}
	walk(v)
	return leaves
}

func pdftotextLayout(file, password string) (string, error) {
	args := []string{"-layout"}
	if password != "" {
		args = append(args, "-upw", password)
	}
	args = append(args, file, "-")
	out, err := exec.Command("pdftotext", args...).Output()
	return string(out), err
}

// countFound counts the values that text contains, in any of their usual
// spellings, and lists the ones it does not.
func countFound(text string, values []any) (int, []string) {
	spaced := strings.ToLower(strings.Join(strings.Fields(text), " "))
	compact := strings.ToLower(strings.Join(strings.Fields(text), ""))
	n := 0
	var missing []string
	for _, v := range values {
		ok := false
		for _, s := range spellings(v) {
			s = strings.ToLower(s)
			if strings.Contains(spaced, strings.Join(strings.Fields(s), " ")) || strings.Contains(compact, strings.Join(strings.Fields(s), "")) {
				ok = true
				break
			}
		}
		if ok {
			n++
		} else {
			missing = append(missing, fmt.Sprint(v))
		}
	}
	return n, missing
}

// spellings lists the ways a value may be written on an invoice: numbers
// with either decimal separator and with or without thousands separators,
// dates in the common European and American orders and with month names.
func spellings(v any) []string {
	switch x := v.(type) {
	case float64:
		return numberSpellings(x)
	case string:
		out := []string{x}
		if d, err := time.Parse("2006-01-02", x); err == nil {
			out = append(out, dateSpellings(d)...)
		}
		if f, err := strconv.ParseFloat(x, 64); err == nil && strings.Contains(x, ".") {
			out = append(out, numberSpellings(f)...)
		}
		return out
	default:
		return []string{fmt.Sprint(x)}
	}
}

func numberSpellings(f float64) []string {
	var out []string
	abs := math.Abs(f)
	for _, decimals := range []int{2, -1, 0, 1, 3} {
		var s string
		switch {
		case decimals == -1:
			s = strconv.FormatFloat(abs, 'f', -1, 64)
		case decimals == 0 && abs != math.Trunc(abs):
			continue
		default:
			s = strconv.FormatFloat(abs, 'f', decimals, 64)
		}
		intPart, frac, _ := strings.Cut(s, ".")
		for _, sep := range [][2]string{{",", "."}, {".", ","}, {" ", ","}, {"", "."}, {"", ","}, {"'", "."}} {
			grouped := group(intPart, sep[0])
			if frac != "" {
				out = append(out, grouped+sep[1]+frac)
			} else {
				out = append(out, grouped)
			}
		}
	}
	return out
}

func group(intPart, sep string) string {
	if sep == "" || len(intPart) <= 3 {
		return intPart
	}
	var b strings.Builder
	lead := len(intPart) % 3
	if lead > 0 {
		b.WriteString(intPart[:lead])
	}
	for i := lead; i < len(intPart); i += 3 {
		if b.Len() > 0 {
			b.WriteString(sep)
		}
		b.WriteString(intPart[i : i+3])
	}
	return b.String()
}

var monthNames = [][]string{
	{"January", "Januar", "janvier", "januari", "Jan", "Jan."},
	{"February", "Februar", "février", "februari", "Feb", "Feb."},
	{"March", "März", "mars", "maart", "Mar", "Mar."},
	{"April", "avril", "Apr", "Apr."},
	{"May", "Mai", "mei"},
	{"June", "Juni", "juin", "juni", "Jun", "Jun."},
	{"July", "Juli", "juillet", "Jul", "Jul."},
	{"August", "août", "augustus", "Aug", "Aug."},
	{"September", "septembre", "Sep", "Sep.", "Sept"},
	{"October", "Oktober", "octobre", "oktober", "Oct", "Oct.", "Okt"},
	{"November", "novembre", "Nov", "Nov."},
	{"December", "Dezember", "décembre", "december", "Dec", "Dec.", "Dez"},
}

func dateSpellings(d time.Time) []string {
	out := []string{}
	for _, layout := range []string{"02.01.2006", "2.1.2006", "02/01/2006", "01/02/2006", "1/2/2006", "2/1/2006", "02-01-2006", "01-02-2006", "20060102", "02.01.06", "2-1-2006", "02/01/06", "01/02/06", "2006/01/02", "2006.01.02"} {
		out = append(out, d.Format(layout))
	}
	day, year := d.Day(), d.Year()
	for _, m := range monthNames[d.Month()-1] {
		out = append(out,
			fmt.Sprintf("%s %d, %d", m, day, year),
			fmt.Sprintf("%s %02d, %d", m, day, year),
			fmt.Sprintf("%d %s %d", day, m, year),
			fmt.Sprintf("%02d %s %d", day, m, year),
			fmt.Sprintf("%d. %s %d", day, m, year),
			fmt.Sprintf("%d-%s-%d", day, m, year),
			fmt.Sprintf("%02d-%s-%d", day, m, year),
		)
	}
	return out
}
