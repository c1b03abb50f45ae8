package ppocr

import (
	"bufio"
	"fmt"
	"image"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unicode"

	"github.com/docent/docent/app/internal/testcorpus"
)

// BenchmarkSpacing measures markSpaces on the labelled lines of the 40
// receipts (sroie/NNN.boxes.txt: each line's box and its text as
// printed). Each box is read by the recogniser as detection's box would
// be, and the spaces of its text compared with the label's: a boundary
// between two neighbouring characters counts where both are aligned with
// neighbouring characters of the label (an edit-distance alignment,
// spaces and case ignored), so a misread letter costs its own gaps only.
// Precision is the share of the spaces written that the label has, recall
// the share of the label's spaces written, both for the recogniser's own
// spaces and with markSpaces at several thresholds, on the first 20
// receipts (on which minSpaceProb was chosen) and on the last 20 apart:
//
//	go test -run '^$' -bench Spacing -benchtime 1x ./app/ingest/ocr/ppocr
func BenchmarkSpacing(b *testing.B) {
	e := openEngine(b)
	dir := filepath.Join(testcorpus.Dir(b), "sroie")
	files, _ := filepath.Glob(filepath.Join(dir, "*.jpg"))
	if len(files) == 0 {
		b.Fatal("no receipts in the corpus's sroie/")
	}
	half := (len(files) + 1) / 2
	// A threshold above 1 writes the recogniser's spaces alone; 0 writes
	// a space at every gap wider than the pitch.
	thresholds := []float32{2, 0, 0.001, 0.003, 0.01, 0.03, 0.1, 0.3}
	if !slices.Contains(thresholds, minSpaceProb) {
		thresholds = append(thresholds, minSpaceProb)
	}
	for range b.N {
		scores := make([][2]spacingScore, len(thresholds)) // [threshold][half]
		for n, f := range files {
			id := strings.TrimSuffix(filepath.Base(f), ".jpg")
			img, _ := receipt(b, id)
			src := toRGBA(img)
			for _, l := range labelledLines(b, filepath.Join(dir, id+".boxes.txt")) {
				r := l.r.Intersect(src.Bounds())
				if r.Dx() < 4 || r.Dy() < 4 {
					continue
				}
				chars, px, err := e.readChars(src, box{r: r})
				if err != nil {
					b.Fatalf("%s: %v", id, err)
				}
				for i, th := range thresholds {
					marked := slices.Clone(chars)
					markSpaces(marked, th)
					scores[i][min(n/half, 1)].add(toLine(r, marked, px).text, l.text)
				}
			}
		}
		for i, th := range thresholds {
			rule := fmt.Sprintf("space probability ≥ %g and a gap wider than the pitch", th)
			switch {
			case th > 1:
				rule = "the recogniser's spaces alone"
			case th == 0:
				rule = "a gap wider than the pitch alone"
			}
			first, last := scores[i][0], scores[i][1]
			id := func(n int) string { return strings.TrimSuffix(filepath.Base(files[n]), ".jpg") }
			b.Logf("%s: receipts %s-%s precision %.3f recall %.3f (%d labelled spaces), receipts %s-%s precision %.3f recall %.3f (%d)",
				rule, id(0), id(half-1), first.precision(), first.recall(), first.labelled, id(half), id(len(files)-1), last.precision(), last.recall(), last.labelled)
			if th == minSpaceProb {
				b.ReportMetric(last.precision(), "precision")
				b.ReportMetric(last.recall(), "recall")
			}
		}
	}
}

// labelledLine is one line of a receipt's boxes.txt.
type labelledLine struct {
	r    image.Rectangle
	text string
}

// labelledLines reads a boxes.txt: per line the four corners x1,y1,...,x4,y4
// and the text, each line as the upright rectangle around its corners.
func labelledLines(tb testing.TB, path string) []labelledLine {
	tb.Helper()
	f, err := os.Open(path)
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	var out []labelledLine
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		parts := strings.SplitN(sc.Text(), ",", 9)
		if len(parts) < 9 {
			continue
		}
		var v [8]int
		for i := range v {
			if v[i], err = strconv.Atoi(strings.TrimSpace(parts[i])); err != nil {
				tb.Fatalf("%s: %q: %v", path, sc.Text(), err)
			}
		}
		r := image.Rect(min(v[0], v[2], v[4], v[6]), min(v[1], v[3], v[5], v[7]), max(v[0], v[2], v[4], v[6])+1, max(v[1], v[3], v[5], v[7])+1)
		out = append(out, labelledLine{r: r, text: parts[8]})
	}
	if err := sc.Err(); err != nil {
		tb.Fatal(err)
	}
	return out
}

// spacingScore counts word boundaries: written and labelled (tp), written
// only, labelled only.
type spacingScore struct{ tp, written, labelled int }

func (s spacingScore) precision() float64 { return float64(s.tp) / float64(max(s.written, 1)) }
func (s spacingScore) recall() float64    { return float64(s.tp) / float64(max(s.labelled, 1)) }

// add compares the spaces of a line read with those of its label, at the
// gaps whose two characters are aligned with two neighbouring ones of the
// label.
func (s *spacingScore) add(read, label string) {
	readChars, readSpaced := spacedRunes(read)
	labelChars, labelSpaced := spacedRunes(label)
	at := align(readChars, labelChars)
	for i := 0; i+1 < len(readChars); i++ {
		j := at[i]
		if j < 0 || at[i+1] != j+1 {
			continue
		}
		if readSpaced[i] {
			s.written++
		}
		if labelSpaced[j] {
			s.labelled++
		}
		if readSpaced[i] && labelSpaced[j] {
			s.tp++
		}
	}
}

// spacedRunes is s's characters other than spaces, upper case, and for
// each whether a space follows it.
func spacedRunes(s string) (chars []rune, spaceAfter []bool) {
	for _, c := range strings.ToUpper(strings.TrimSpace(s)) {
		if unicode.IsSpace(c) {
			spaceAfter[len(spaceAfter)-1] = true
			continue
		}
		chars = append(chars, c)
		spaceAfter = append(spaceAfter, false)
	}
	return chars, spaceAfter
}

// align maps each rune of a to the rune of b it is aligned with (the same
// or substituted) by a least-edits alignment, -1 for a rune inserted.
func align(a, b []rune) []int {
	d := make([][]int, len(a)+1)
	for i := range d {
		d[i] = make([]int, len(b)+1)
		d[i][0] = i
	}
	for j := range d[0] {
		d[0][j] = j
	}
	cost := func(i, j int) int {
		if a[i-1] == b[j-1] {
			return 0
		}
		return 1
	}
	for i := 1; i <= len(a); i++ {
		for j := 1; j <= len(b); j++ {
			d[i][j] = min(d[i-1][j]+1, d[i][j-1]+1, d[i-1][j-1]+cost(i, j))
		}
	}
	at := make([]int, len(a))
	for i := range at {
		at[i] = -1
	}
	for i, j := len(a), len(b); i > 0 && j > 0; {
		switch {
		case d[i][j] == d[i-1][j-1]+cost(i, j):
			at[i-1] = j - 1
			i, j = i-1, j-1
		case d[i][j] == d[i-1][j]+1:
			i--
		default:
			j--
		}
	}
	return at
}
