package ocr

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/docent/docent/app/ingest/pdftext"
	"github.com/docent/docent/app/internal/testcorpus"
)

// The figures of docs/benchmarks.md ("OCR"). Run with
//
//	go test ./app/ingest/ocr -run '^$' -bench . -benchtime 1x
//
// DOCENT_OCR_LANG sets the languages (default eng: the receipts and the
// invoices are English or German text that eng reads).

// childCPU is the CPU time (user and system) of this process's finished
// children: the reader children and tesseract. The machine these figures
// come from is shared, so CPU time per page says more than the wall clock.
func childCPU() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_CHILDREN, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func benchLang() string {
	if l := os.Getenv(LangEnv); l != "" {
		return l
	}
	return "eng"
}

// normalise drops whitespace and case, so that a value is found whatever
// the line breaks and spacing OCR put in it.
func normalise(s string) string {
	return strings.ToUpper(strings.Join(strings.Fields(s), ""))
}

// receiptReader is one way of reading a receipt photo that BenchmarkSROIE
// compares.
type receiptReader struct {
	name string
	// read returns the text of the receipt photo data (id names it) and
	// the peak resident memory, in bytes, of the processes it ran.
	read func(ctx context.Context, b *testing.B, id string, data []byte) (text string, peak int64, err error)
}

// extraReceiptReaders are further engines for BenchmarkSROIE: PP-OCR
// (app/ingest/ocr/ppocr) appends its reader here from an init function in
// a _test.go file, without this file depending on it.
var extraReceiptReaders []receiptReader

// tesseractReader reads a receipt the way Docent does with the scale rule
// rule, telling tesseract the file's density when passDPI (doubled where
// the page was enlarged when doubleDPI), with best_int data when best and
// the engine has it, else the system's.
func tesseractReader(name string, engine *Engine, rule scaleRule, passDPI, doubleDPI, best bool) receiptReader {
	e := *engine
	if !best {
		e.best = bestData{}
	}
	var peak int64
	e.onExit = func(ps *os.ProcessState) {
		if ru, ok := ps.SysUsage().(*syscall.Rusage); ok {
			peak = max(peak, ru.Maxrss<<10)
		}
	}
	return receiptReader{name: name, read: func(ctx context.Context, b *testing.B, id string, data []byte) (string, int64, error) {
		peak = 0
		req := pagesRequest{Pages: []int{1}, Dir: b.TempDir(), Scale: &rule}
		imgs, err := runPages(ctx, data, req, pdftext.Limits{})
		if err != nil {
			return "", 0, err
		}
		dpi := 0.0
		switch {
		case passDPI && doubleDPI:
			dpi = imgs[0].DPI
		case passDPI:
			dpi = imgs[0].ocrDPI()
		}
		text, _, err := e.Recognize(ctx, imgs[0].File, benchLang(), dpi, pdftext.Limits{})
		return text, peak, err
	}}
}

// selfAndChildCPU is the CPU time of this process and its children, the
// finished ones and the reader children that are kept between requests
// (liveChildren), so that an engine run inside the test process or in a
// reader child counts too.
func selfAndChildCPU() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	live, _ := liveChildren()
	return childCPU() + live + time.Duration(ru.Utime.Nano()+ru.Stime.Nano())
}

// receiptScore is one engine's result on the receipts.
type receiptScore struct {
	found, labels map[string]int
	edits, chars  int
	cpu           time.Duration
	peak          int64
	n             int
}

// BenchmarkSROIE reads the 40 receipt photos with every engine there is,
// side by side (each receipt by each engine in turn), and reports for each
// the share of the labelled company, date and total found in the text
// (whitespace and case ignored), the character error rate against the
// line transcripts, CPU seconds per receipt (this process and its
// children) and the peak resident memory of the engine's processes.
// DOCENT_BENCH_VARIANTS=1 adds the variants docs/benchmarks.md weighs;
// DOCENT_BENCH_ONLY=regexp keeps the readers whose name it matches.
// "Docent as it reads a photo" is the product's figure, the PP-OCR row
// the engine's.
func BenchmarkSROIE(b *testing.B) {
	dir := filepath.Join(testcorpus.Dir(b), "sroie")
	needTesseract(b)
	engine, err := FindEngine(context.Background())
	if err != nil {
		b.Fatal(err)
	}
	b.Log(engine.DataNote(benchLang()))
	readers := []receiptReader{
		tesseractReader("Tesseract as before (system data, 2x below 1000 px, Catmull-Rom, no dpi)", engine, scaleRule{Below: 1000, Kernel: "catmull-rom"}, false, false, false),
		tesseractReader("Tesseract now ("+engine.NameFor(benchLang())+", 2x below 2000 px, Mitchell, the file's dpi)", engine, defaultScale, true, false, true),
	}
	if os.Getenv("DOCENT_BENCH_VARIANTS") == "1" {
		readers = append(readers,
			tesseractReader("  now with Catmull-Rom", engine, scaleRule{Below: 2000, Kernel: "catmull-rom"}, true, false, true),
			tesseractReader("  now without dpi", engine, defaultScale, false, false, true),
			tesseractReader("  now with the dpi doubled", engine, defaultScale, true, true, true),
			tesseractReader("  now with the system data", engine, defaultScale, true, false, false),
			tesseractReader("  now, 2x below 1000 px", engine, scaleRule{Below: 1000, Kernel: "mitchell"}, true, false, true),
		)
	}
	readers = append(readers, extraReceiptReaders...)
	product := docentReceiptReader(engine)
	readers = append(readers, product.receiptReader)
	readers = append(readers, receiptReader{name: "ceiling: the line transcripts as the text", read: func(ctx context.Context, b *testing.B, id string, data []byte) (string, int64, error) {
		return boxText(b, filepath.Join(dir, id+".boxes.txt")), 0, nil
	}})
	if only := os.Getenv("DOCENT_BENCH_ONLY"); only != "" {
		re := regexp.MustCompile(only)
		readers = slices.DeleteFunc(readers, func(r receiptReader) bool { return !re.MatchString(r.name) })
	}
	files, _ := filepath.Glob(filepath.Join(dir, "*.jpg"))
	for range b.N {
		scores := make([]receiptScore, len(readers))
		for i := range scores {
			scores[i] = receiptScore{found: map[string]int{}, labels: map[string]int{}}
		}
		for _, f := range files {
			id := strings.TrimSuffix(filepath.Base(f), ".jpg")
			data, _ := os.ReadFile(f)
			var label map[string]string
			raw, _ := os.ReadFile(filepath.Join(dir, id+".expected.json"))
			_ = json.Unmarshal(raw, &label)
			truth := boxText(b, filepath.Join(dir, id+".boxes.txt"))
			for i, r := range readers {
				cpu := selfAndChildCPU()
				text, peak, err := r.read(context.Background(), b, id, data)
				if err != nil {
					b.Fatalf("%s, %s: %v", r.name, id, err)
				}
				sc := &scores[i]
				sc.cpu += selfAndChildCPU() - cpu
				sc.peak = max(sc.peak, peak)
				sc.n++
				for _, k := range []string{"company", "date", "total"} {
					if label[k] == "" {
						continue
					}
					sc.labels[k]++
					if strings.Contains(normalise(text), normalise(label[k])) {
						sc.found[k]++
					}
				}
				sc.edits += levenshtein([]rune(truth), []rune(strings.Join(strings.Fields(text), " ")))
				sc.chars += len([]rune(truth))
			}
		}
		// The table goes to stdout: a benchmark's log keeps only its first
		// lines.
		fmt.Printf("SROIE, %d receipts, %s, one page at a time:\n", len(files), benchLang())
		fmt.Println("| engine | company | date | total | company+date+total | page CER | CPU s/receipt | peak RSS |")
		fmt.Println("|---|---|---|---|---|---|---|---|")
		for i, r := range readers {
			sc := scores[i]
			var all, labels int
			for _, k := range []string{"company", "date", "total"} {
				all, labels = all+sc.found[k], labels+sc.labels[k]
			}
			peak := ""
			if sc.peak > 0 {
				peak = fmt.Sprintf("%d MB", sc.peak/1_000_000)
			}
			fmt.Printf("| %s | %d/%d | %d/%d | %d/%d | %d/%d (%.0f %%) | %.3f | %.2f | %s |\n", r.name,
				sc.found["company"], sc.labels["company"], sc.found["date"], sc.labels["date"], sc.found["total"], sc.labels["total"],
				all, labels, 100*float64(all)/float64(labels), float64(sc.edits)/float64(sc.chars), sc.cpu.Seconds()/float64(sc.n), peak)
			if r.name == readers[min(1, len(readers)-1)].name {
				b.ReportMetric(float64(all)/float64(labels), "found")
				b.ReportMetric(float64(sc.edits)/float64(sc.chars), "CER")
				b.ReportMetric(sc.cpu.Seconds()/float64(sc.n), "cpu-s/receipt")
			}
			if r.name == product.name {
				b.ReportMetric(float64(all)/float64(labels), "docent-found")
			}
		}
		fmt.Printf("%s: read again in another language: %d of %d %v; other notes: %v\n", product.name,
			len(product.reread), len(files), product.reread, product.notes)
		product.reread, product.notes = nil, map[string]string{}
	}
}

// productReceiptReader is docentReceiptReader's reader, with the
// receipts it read again in another language and the notes of the
// others.
type productReceiptReader struct {
	receiptReader
	reread []string
	notes  map[string]string
}

// docentReceiptReader reads a receipt photo as docent import does
// (readAsImport: the page image made as an OCR run makes a photo's, read
// by readPages in the run's languages, with PP-OCR where it is installed,
// read again in the page's language where readPages reads it again), so
// that its figure is the product's, where PP-OCR's own row is the
// engine's.
func docentReceiptReader(engine *Engine) *productReceiptReader {
	r := &productReceiptReader{notes: map[string]string{}}
	r.receiptReader = receiptReader{name: "Docent as it reads a photo (docent import's readPages)",
		read: func(ctx context.Context, b *testing.B, id string, data []byte) (string, int64, error) {
			pages, err := readAsImport(ctx, b, engine, benchLang(), data, false, []int{1})
			if err != nil {
				return "", 0, err
			}
			p := pages[0]
			switch {
			case p.Lang != benchLang():
				r.reread = append(r.reread, id)
			case p.Note != "":
				r.notes[id] = p.Note
			}
			_, peak := liveChildren()
			return p.Text, peak, nil
		}}
	return r
}

// boxText is a receipt's line transcripts in file order, one space
// between words.
func boxText(tb testing.TB, path string) string {
	raw, err := os.ReadFile(path)
	if err != nil {
		tb.Fatal(err)
	}
	var lines []string
	for _, l := range strings.Split(strings.ReplaceAll(string(raw), "\r", ""), "\n") {
		if f := strings.SplitN(l, ",", 9); len(f) == 9 {
			lines = append(lines, f[8])
		}
	}
	return strings.Join(strings.Fields(strings.Join(lines, " ")), " ")
}

func levenshtein(a, b []rune) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

// pageReader is one way of reading a rendered PDF page that
// BenchmarkRenderedInvoices compares: pages rendered at dpi, read by read,
// or a document's pages together by readDoc when it is set.
type pageReader struct {
	name    string
	dpi     int
	read    func(ctx context.Context, img PageImage) (string, error)
	readDoc func(ctx context.Context, name string, imgs []PageImage) ([]string, error)
}

// extraPageReaders are further engines for BenchmarkRenderedInvoices:
// PP-OCR appends its readers from ppocr_bench_test.go.
var extraPageReaders []pageReader

// tesseractPageReader reads a rendered page as Docent reads a PDF page
// (RecognizePage: the system's data), or with best_int when best; extra
// are more arguments for tesseract.
func tesseractPageReader(name string, engine *Engine, dpi int, best bool, extra ...string) pageReader {
	if len(extra) > 0 {
		e := *engine
		e.extra = extra
		engine = &e
	}
	return pageReader{name: name, dpi: dpi, read: func(ctx context.Context, img PageImage) (string, error) {
		var text string
		var err error
		if best {
			text, _, err = engine.Recognize(ctx, img.File, benchLang(), img.ocrDPI(), pdftext.Limits{})
		} else {
			text, _, err = engine.RecognizePage(ctx, img, benchLang(), pdftext.Limits{})
		}
		return text, err
	}}
}

// docentPageReader reads a rendered document as Docent reads a PDF
// without a text layer: readPages at RenderDPI in the run's languages,
// with PP-OCR when it is installed and spells them (usePPOCR) and each
// page read again in its language, or in its document's when it is too
// short to tell its own (pagelang.go), so that its figure is the
// product's. byDoc gathers the pages read again in their document's
// language.
func docentPageReader(engine *Engine) (r pageReader, byDoc *[]string) {
	byDoc = new([]string)
	return pageReader{name: fmt.Sprintf("Docent as it reads a page (%d dpi)", RenderDPI), dpi: RenderDPI,
		readDoc: func(ctx context.Context, name string, imgs []PageImage) ([]string, error) {
			lang := benchLang()
			var pp *ppocrEngine
			if usePPOCR(lang) {
				pp, _ = findPPOCR(ctx, nil)
			}
			same := func(img PageImage) (PageImage, error) { return img, nil }
			pages, err := readPages(ctx, engine, pp, lang, imgs, nil, nil, same, Options{}, &docLang{}, nil)
			var texts []string
			for _, p := range pages {
				texts = append(texts, p.Text)
				if strings.Contains(p.Note, "too short to tell its language") {
					*byDoc = append(*byDoc, fmt.Sprintf("%s p. %d", name, p.Page))
				}
			}
			return texts, err
		}}, byDoc
}

// BenchmarkRenderedInvoices renders the corpus's text-layer invoices with
// verified ground truth (their first three pages), reads them with every
// engine side by side (each document by each engine in turn), and
// compares the share of ground-truth values found in each engine's text
// with the share found in the text layer, by the same test (containsAny).
// DOCENT_BENCH_VARIANTS=1 adds the variants docs/benchmarks.md weighs;
// DOCENT_BENCH_MISSES=file writes each value the text layer holds and an
// engine missed, with what the engine read where it comes closest;
// DOCENT_BENCH_ONLY=regexp keeps the engines whose name it matches.
func BenchmarkRenderedInvoices(b *testing.B) {
	dir, entries := testcorpus.Manifest(b)
	needTesseract(b)
	engine, err := FindEngine(context.Background())
	if err != nil {
		b.Fatal(err)
	}
	type doc struct {
		file   string
		values []string
	}
	var docs []doc
	for _, e := range entries {
		if e.GroundTruthVerified == "" || !strings.HasSuffix(e.File, ".pdf") || e.Password != "" {
			continue
		}
		raw, err := os.ReadFile(filepath.Join(dir, e.GroundTruthVerified))
		if err != nil {
			continue
		}
		docs = append(docs, doc{file: e.File, values: gtValues(raw)})
	}
	sort.Slice(docs, func(i, j int) bool { return docs[i].file < docs[j].file })
	if n := os.Getenv("DOCENT_BENCH_DOCS"); n != "" {
		var k int
		fmt.Sscan(n, &k)
		docs = docs[:min(k, len(docs))]
	}
	readers := []pageReader{
		tesseractPageReader("Tesseract at 150 dpi", engine, 150, false),
		tesseractPageReader("Tesseract at 300 dpi", engine, 300, false),
	}
	if os.Getenv("DOCENT_BENCH_VARIANTS") == "1" {
		readers = append(readers,
			tesseractPageReader("  Tesseract at 200 dpi", engine, 200, false),
			tesseractPageReader("  Tesseract at 400 dpi", engine, 400, false),
			tesseractPageReader("  Tesseract at 300 dpi, best_int", engine, 300, true),
			tesseractPageReader("  Tesseract at 300 dpi, no word lists", engine, 300, false, "-c", "load_system_dawg=0", "-c", "load_freq_dawg=0"),
			tesseractPageReader("  Tesseract at 300 dpi, --psm 6", engine, 300, false, "--psm", "6"),
		)
	}
	readers = append(readers, extraPageReaders...)
	docent, byDoc := docentPageReader(engine)
	readers = append(readers, docent)
	if only := os.Getenv("DOCENT_BENCH_ONLY"); only != "" {
		re := regexp.MustCompile(only)
		readers = slices.DeleteFunc(readers, func(r pageReader) bool { return !re.MatchString(r.name) })
	}
	var misses *os.File
	if path := os.Getenv("DOCENT_BENCH_MISSES"); path != "" {
		if misses, err = os.Create(path); err != nil {
			b.Fatal(err)
		}
		defer misses.Close()
	}
	ctx := context.Background()
	for range b.N {
		var layerFound, layerFolded, total int
		found, folded := make([]int, len(readers)), make([]int, len(readers))
		pages := make([]int, len(readers))
		cpu := make([]time.Duration, len(readers))
		for _, d := range docs {
			data, _ := os.ReadFile(filepath.Join(dir, d.file))
			res, err := pdftext.ExtractIsolated(ctx, data, pdftext.Options{}, pdftext.Limits{})
			if err != nil {
				b.Logf("%s: %v", d.file, err)
				continue
			}
			layer := normalise(strings.Join(res.Pages, "\n"))
			n := min(len(res.Pages), 3) // the values are on the first pages
			var which []int
			for p := range n {
				which = append(which, p+1)
			}
			// Each resolution is rendered once; its CPU time counts for
			// every engine that reads it.
			rendered := map[int][]PageImage{}
			renderCPU := map[int]time.Duration{}
			texts := make([]string, len(readers))
			for i, r := range readers {
				if _, ok := rendered[r.dpi]; !ok {
					c := selfAndChildCPU()
					imgs, err := renderAt(data, which, b.TempDir(), r.dpi)
					if err != nil {
						b.Fatalf("%s at %d dpi: %v", d.file, r.dpi, err)
					}
					rendered[r.dpi], renderCPU[r.dpi] = imgs, selfAndChildCPU()-c
				}
				c := selfAndChildCPU()
				var sb strings.Builder
				if r.readDoc != nil {
					pageTexts, err := r.readDoc(ctx, d.file, rendered[r.dpi])
					if err != nil {
						b.Fatalf("%s, %s: %v", r.name, d.file, err)
					}
					sb.WriteString(strings.Join(pageTexts, "\n") + "\n")
				} else {
					for _, img := range rendered[r.dpi] {
						text, err := r.read(ctx, img)
						if err != nil {
							b.Fatalf("%s, %s page %d: %v", r.name, d.file, img.Page, err)
						}
						sb.WriteString(text + "\n")
					}
				}
				cpu[i] += selfAndChildCPU() - c + renderCPU[r.dpi]
				pages[i] += len(rendered[r.dpi])
				texts[i] = normalise(sb.String())
			}
			for _, v := range d.values {
				total++
				inLayer := containsAny(layer, v)
				if inLayer {
					layerFound++
				}
				if containsAny(foldQuotes(layer), foldQuotes(v)) {
					layerFolded++
				}
				for i, t := range texts {
					if containsAny(foldQuotes(t), foldQuotes(v)) {
						folded[i]++
					}
					if containsAny(t, v) {
						found[i]++
					} else if inLayer && misses != nil {
						fmt.Fprintf(misses, "%s\t%s\t%s\tlayer: %s\tread: %s\n", readers[i].name, d.file, v, nearValue(layer, v), closest(t, v))
					}
				}
			}
		}
		fmt.Printf("%d invoices, %d verified values, %s: text layer %d (%.1f %%), quotes folded %d\n", len(docs), total, benchLang(),
			layerFound, 100*float64(layerFound)/float64(total), layerFolded)
		fmt.Println("| engine | values found | of the text layer's | quotes folded: of the text layer's | pages per CPU second (render + OCR) |")
		fmt.Println("|---|---|---|---|---|")
		for i, r := range readers {
			fmt.Printf("| %s | %d (%.1f %%) | %.1f %% | %d, %.1f %% | %.2f |\n", r.name, found[i], 100*float64(found[i])/float64(total),
				100*float64(found[i])/float64(layerFound), folded[i], 100*float64(folded[i])/float64(layerFolded), float64(pages[i])/cpu[i].Seconds())
			b.ReportMetric(float64(found[i])/float64(layerFound), fmt.Sprintf("of-layer-%d", i))
		}
		if slices.ContainsFunc(readers, func(r pageReader) bool { return r.name == docent.name }) {
			fmt.Printf("%s: read again in their document's language, too short to tell their own: %d pages %v\n", docent.name, len(*byDoc), *byDoc)
			*byDoc = nil
		}
	}
}

// foldQuotes makes the quotation marks one: a text layer spells the
// inch mark as two apostrophes, and German quotes as „ and “, which print
// as the double quote OCR reads. Both sides of a comparison are folded
// alike.
func foldQuotes(s string) string {
	return strings.NewReplacer("''", `"`, "„", `"`, "“", `"`, "”", `"`, ",,", `"`).Replace(s)
}

// nearValue is the value as the text holds it (its first variant found)
// with a few characters either side.
func nearValue(text, v string) string {
	for _, x := range variants(v) {
		if i := strings.Index(text, x); i >= 0 {
			return text[max(0, i-12):i] + "[" + x + "]" + text[i+len(x):min(len(text), i+len(x)+12)]
		}
	}
	return ""
}

// closest is the part of text most like v (the fewest edits, Sellers'
// approximate matching), with a few characters either side, and the
// edits it takes.
func closest(text, v string) string {
	t, p := []rune(text), []rune(v)
	if len(t) == 0 || len(p) == 0 {
		return ""
	}
	// prev[j] is the fewest edits that make p[:i] end at t[j-1]; start[j]
	// where that match begins.
	prev, cur := make([]int, len(t)+1), make([]int, len(t)+1)
	ps, cs := make([]int, len(t)+1), make([]int, len(t)+1)
	for j := range ps {
		ps[j] = j
	}
	for i := 1; i <= len(p); i++ {
		cur[0], cs[0] = i, 0
		for j := 1; j <= len(t); j++ {
			cost := 1
			if p[i-1] == t[j-1] {
				cost = 0
			}
			cur[j], cs[j] = prev[j-1]+cost, ps[j-1]
			if prev[j]+1 < cur[j] {
				cur[j], cs[j] = prev[j]+1, ps[j]
			}
			if cur[j-1]+1 < cur[j] {
				cur[j], cs[j] = cur[j-1]+1, cs[j-1]
			}
		}
		prev, cur, ps, cs = cur, prev, cs, ps
	}
	best := 1
	for j := 1; j <= len(t); j++ {
		if prev[j] < prev[best] {
			best = j
		}
	}
	s := ps[best]
	return fmt.Sprintf("%s[%s]%s (%d edits)", string(t[max(0, s-12):s]), string(t[s:best]), string(t[best:min(len(t), best+12)]), prev[best])
}

// renderAt renders PDF pages at dpi, every page (not only scans) at that
// resolution.
func renderAt(data []byte, pages []int, dir string, dpi int) ([]PageImage, error) {
	return runPages(context.Background(), data, pagesRequest{PDF: true, Pages: pages, Dir: dir, DPI: dpi, CacheDir: wasmCacheDir()}, pdftext.Limits{})
}

var (
	spaces  = regexp.MustCompile(`\s+`)
	isoDate = regexp.MustCompile(`^(\d{4})-(\d{2})-(\d{2})$`)
	months  = []string{"JANUARY", "FEBRUARY", "MARCH", "APRIL", "MAY", "JUNE", "JULY", "AUGUST", "SEPTEMBER", "OCTOBER", "NOVEMBER", "DECEMBER"}
)

// containsAny reports whether text holds the value in one of the ways
// invoices print it (the same for the text layer and OCR): a decimal with
// a comma, an amount with thousands separators, a date in the usual
// orders or with the month's name.
func containsAny(text, v string) bool {
	for _, x := range variants(v) {
		if strings.Contains(text, x) {
			return true
		}
	}
	return false
}

func variants(v string) []string {
	out := []string{v}
	if m := isoDate.FindStringSubmatch(v); m != nil {
		y, mo, d := m[1], m[2], m[3]
		var mi int
		fmt.Sscan(mo, &mi)
		name := ""
		if mi >= 1 && mi <= 12 {
			name = months[mi-1]
		}
		dd := strings.TrimPrefix(d, "0")
		out = append(out, d+"."+mo+"."+y, d+"/"+mo+"/"+y, mo+"/"+d+"/"+y, d+"-"+mo+"-"+y, d+"."+mo+"."+y[2:], mo+"/"+d+"/"+y[2:], d+"/"+mo+"/"+y[2:])
		if name != "" {
			out = append(out, name+dd+","+y, dd+name+y, dd+"."+name+y, name[:3]+dd+","+y, dd+name[:3]+y, dd+"-"+name[:3]+"-"+y)
		}
		return out
	}
	var f float64
	if _, err := fmt.Sscanf(v, "%g", &f); err == nil && regexp.MustCompile(`^-?\d+(\.\d+)?$`).MatchString(v) {
		two := fmt.Sprintf("%.2f", f)
		out = append(out, two, strings.ReplaceAll(v, ".", ","), strings.ReplaceAll(two, ".", ","))
		if whole, frac, ok := strings.Cut(two, "."); ok && len(whole) > 3 {
			var g []string
			for len(whole) > 3 {
				g = append([]string{whole[len(whole)-3:]}, g...)
				whole = whole[:len(whole)-3]
			}
			g = append([]string{whole}, g...)
			out = append(out, strings.Join(g, ",")+"."+frac, strings.Join(g, ".")+","+frac)
		}
	}
	return out
}

// gtValues are the values of a verified ground-truth file, normalised:
// strings and numbers, nested ones too (line items).
func gtValues(raw []byte) []string {
	var v any
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if err := dec.Decode(&v); err != nil {
		return nil
	}
	var out []string
	var walk func(any)
	walk = func(x any) {
		switch t := x.(type) {
		case map[string]any:
			for _, y := range t {
				walk(y)
			}
		case []any:
			for _, y := range t {
				walk(y)
			}
		case string:
			if s := normalise(spaces.ReplaceAllString(t, " ")); len(s) >= 2 {
				out = append(out, s)
			}
		case json.Number:
			out = append(out, normalise(t.String()))
		}
	}
	walk(v)
	sort.Strings(out)
	return out
}
