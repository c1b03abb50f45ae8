package ocr

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"image"
	"os"
	"os/exec"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/docent/docent/app/ingest/ocr/tablecells"
	"github.com/docent/docent/app/ingest/pdftext"
	"github.com/docent/docent/storage"
	"github.com/docent/docent/storage/fault"
)

// The OCR engine is the system's Tesseract 5 (Debian: tesseract-ocr and a
// tesseract-ocr-LANG package per language), run once per page image with
// TSV output, which gives every word with its box and confidence. It runs
// under the reader children's memory limit, in its own process group, with
// a time limit per page; docs/benchmarks.md compares it with the
// WebAssembly builds that exist.

// PageTimeout bounds the OCR of one page: a letter page at 300 dpi takes
// one to three seconds on one core.
const PageTimeout = 2 * time.Minute

// Engine is a Tesseract installation.
type Engine struct {
	// Path is the tesseract program.
	Path string
	// Version is its version, "5.3.0".
	Version string
	// Langs are the languages whose data is installed.
	Langs []string

	// best is the best_int data in TessdataDir (tessdata.go).
	best bestData
	// onExit, if not nil, is given each finished tesseract's state: the
	// benchmark's CPU time and peak memory per page.
	onExit func(*os.ProcessState)
	// extra, if set, are more arguments for tesseract: the benchmark's
	// variants.
	extra []string
}

// Name is the engine as pages record it: "tesseract 5.3.0".
func (e *Engine) Name() string { return "tesseract " + e.Version }

// NameFor is the engine as a page read with langs records it, with the
// data it read with: "tesseract 5.3.0 best_int" or "tesseract 5.3.0".
func (e *Engine) NameFor(langs string) string {
	if _, kind, _ := e.dataFor(langs); kind == DataBestInt {
		return e.Name() + " " + DataBestInt
	}
	return e.Name()
}

// NameForPage is the engine as a page made by method (PageImage.Method)
// records it, with the data pageData chooses for it.
func (e *Engine) NameForPage(langs, method string) string {
	if _, kind := e.pageData(langs, method); kind == DataBestInt {
		return e.Name() + " " + DataBestInt
	}
	return e.Name()
}

// installHint says how to install Tesseract with the data of the
// languages langs on this system.
func installHint(langs []string) string { return installHintFor(runtime.GOOS, langs) }

// installHintFor is installHint on the system goos: Debian's packages on
// Linux; on Windows UB Mannheim's installer, the build Tesseract's own
// documentation points to, which does not put tesseract.exe on PATH,
// where FindEngine looks (exec.LookPath); on macOS Homebrew, whose
// tesseract-lang has the data of every language but English.
func installHintFor(goos string, langs []string) string {
	var extra []string
	for _, l := range langs {
		if l != "eng" && l != "osd" { // in every install
			extra = append(extra, l)
		}
	}
	switch goos {
	case "linux":
		pkgs := []string{"tesseract-ocr"}
		for _, l := range extra {
			pkgs = append(pkgs, "tesseract-ocr-"+strings.ReplaceAll(strings.ToLower(l), "_", "-"))
		}
		return "sudo apt-get install " + strings.Join(pkgs, " ")
	case "windows":
		data := ""
		if len(extra) > 0 {
			data = fmt.Sprintf(", ticking the language data for %s under \"Additional language data\"", strings.Join(extra, ", "))
		}
		return "install Tesseract with UB Mannheim's installer (https://github.com/UB-Mannheim/tesseract/wiki)" + data +
			`, add its folder (C:\Program Files\Tesseract-OCR) to PATH, where Docent looks for tesseract.exe, and start Docent again`
	case "darwin":
		if len(extra) > 0 {
			return "brew install tesseract tesseract-lang"
		}
		return "brew install tesseract"
	}
	data := ""
	if len(extra) > 0 {
		data = " with the language data for " + strings.Join(extra, ", ")
	}
	return "install Tesseract 4 or 5" + data + ", with tesseract on PATH"
}

var (
	engineMu    sync.Mutex
	engineCache *Engine
	engineAt    time.Time
)

// FindEngine finds tesseract on PATH and asks it its version and
// languages. The answer is kept for a minute, for the same program, so
// that a worker may ask before every document and still notice an
// install; a program gone from PATH is noticed at once. A missing
// tesseract is an unavailable error that says what to install.
func FindEngine(ctx context.Context) (*Engine, error) {
	engineMu.Lock()
	defer engineMu.Unlock()
	path, err := exec.LookPath("tesseract")
	if err == nil && engineCache != nil && engineCache.Path == path && time.Since(engineAt) < time.Minute {
		return engineCache, nil
	}
	if err != nil {
		hint := installHint(nil)
		if runtime.GOOS == "linux" {
			hint = installHint([]string{"deu"}) + " (or another OCR language's package in place of tesseract-ocr-deu)"
		}
		return nil, fault.Errorf(fault.Unavailable, "OCR needs Tesseract, which is not installed: %s", hint)
	}
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	out, err := engineOutput(ctx, path, "--version")
	if err != nil {
		return nil, fault.Errorf(fault.Unavailable, "tesseract --version failed: %v: %s", err, firstLine(string(out)))
	}
	e := &Engine{Path: path}
	// "tesseract 5.3.0" (5.x prints "tesseract v5.3.0.20221214" on some builds).
	if f := strings.Fields(firstLine(string(out))); len(f) >= 2 {
		e.Version = strings.TrimPrefix(f[1], "v")
	}
	if !strings.HasPrefix(e.Version, "5.") && !strings.HasPrefix(e.Version, "4.") {
		return nil, fault.Errorf(fault.Unavailable, "tesseract %q is too old: OCR needs Tesseract 4 or 5 (%s)", e.Version, installHint(nil))
	}
	out, err = engineOutput(ctx, path, "--list-langs")
	if err != nil {
		return nil, fault.Errorf(fault.Unavailable, "tesseract --list-langs failed: %v: %s", err, firstLine(string(out)))
	}
	for _, line := range strings.Split(string(out), "\n")[1:] {
		if l := strings.TrimSpace(line); l != "" {
			e.Langs = append(e.Langs, l)
		}
	}
	e.best = findBestData(TessdataDir())
	engineCache, engineAt = e, time.Now()
	return e, nil
}

// engineOutput runs tesseract with one argument and returns what it
// printed, stdout and stderr together, up to 64 KiB: a version and a list
// of languages are a few lines, and a program that prints more is stopped.
func engineOutput(ctx context.Context, path, arg string) ([]byte, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	out := &capWriter{max: 64 << 10, over: cancel}
	cmd := exec.CommandContext(ctx, path, arg)
	cmd.Stdout, cmd.Stderr = out, out
	cmd.WaitDelay = 2 * time.Second
	err := cmd.Run()
	if out.exceeded() {
		return out.buf.Bytes(), fmt.Errorf("it printed more than %d KiB", 64)
	}
	return out.buf.Bytes(), err
}

// CheckLangs returns an error that says what to install when a language of
// langs ("deu+eng") has no data.
func (e *Engine) CheckLangs(langs string) error {
	var missing []string
	for _, l := range strings.Split(langs, "+") {
		if !slices.Contains(e.Langs, l) && !slices.Contains(e.best.langs, l) {
			missing = append(missing, l)
		}
	}
	if len(missing) == 0 {
		return nil
	}
	return fault.Errorf(fault.Unavailable, "the OCR language data for %s is not installed (installed: %s): %s",
		strings.Join(missing, ", "), strings.Join(e.Langs, ", "), installHint(missing))
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	return s
}

// Recognize reads one page image with languages langs ("deu+eng") and
// returns its text and words. dpi, when known, is the image's resolution
// (tesseract guesses 70 without it). It holds a reader slot while
// tesseract runs. It reads with the best_int data when every language of
// langs has it (tessdata.go), else with the system's.
func (e *Engine) Recognize(ctx context.Context, file string, langs string, dpi float64, lim pdftext.Limits) (string, []storage.Word, error) {
	dir, _, _ := e.dataFor(langs)
	return e.recognize(ctx, file, langs, dir, dpi, lim)
}

// RecognizePage reads one page image as Docent reads it: a photo with the
// best_int data (when installed), a PDF page, rendered or a scan, with the
// system's (pageData).
func (e *Engine) RecognizePage(ctx context.Context, img PageImage, langs string, lim pdftext.Limits) (string, []storage.Word, error) {
	dir, _ := e.pageData(langs, img.Method)
	return e.recognize(ctx, img.File, langs, dir, img.ocrDPI(), lim)
}

// recognize runs tesseract on file with the language data in dataDir, or
// the system's when dataDir is "".
func (e *Engine) recognize(ctx context.Context, file, langs, dataDir string, dpi float64, lim pdftext.Limits) (string, []storage.Word, error) {
	release, err := pdftext.AcquireReader(ctx)
	if err != nil {
		return "", nil, err
	}
	defer release()
	if lim.Timeout <= 0 {
		lim.Timeout = PageTimeout
	}
	runCtx, cancel := context.WithTimeout(ctx, lim.Timeout)
	defer cancel()
	args := []string{file, "-", "-l", langs}
	if dataDir != "" {
		args = append(args, "--tessdata-dir", dataDir)
	}
	if dpi > 0 {
		args = append(args, "--dpi", strconv.Itoa(int(dpi)))
	}
	// TSV by its variable rather than the "tsv" config file, which lives in
	// the system's tessdata/configs and is not found with --tessdata-dir.
	args = append(args, "-c", "tessedit_create_tsv=1", "-c", "tessedit_create_txt=0")
	args = append(args, e.extra...)
	cmd, err := pdftext.LimitedCommand(runCtx, lim, e.Path, args...)
	if err != nil {
		return "", nil, err
	}
	// One thread per page: pages run side by side, one per reader slot.
	cmd.Env = append(cmd.Env, "OMP_THREAD_LIMIT=1")
	// What it prints is bounded (output.go): stdout past maxPageTSV stops
	// it, and of stderr only the end is kept.
	stdout := &capWriter{max: maxPageTSV, over: cancel}
	stderr := &tailWriter{max: stderrKeep}
	cmd.Stdout, cmd.Stderr = stdout, stderr
	cmd.WaitDelay = 2 * time.Second
	runErr := cmd.Run()
	if e.onExit != nil && cmd.ProcessState != nil {
		e.onExit(cmd.ProcessState)
	}
	if ctx.Err() != nil {
		return "", nil, ctx.Err()
	}
	if stdout.exceeded() {
		return "", nil, fault.Errorf(fault.Invalid, "tesseract's output for the page is over %d MiB, far more than a page of text has: it was stopped and nothing of the page is kept (a faulty engine?)", maxPageTSV>>20)
	}
	if runCtx.Err() != nil {
		return "", nil, fault.Errorf(fault.Timeout, "tesseract did not finish within %s", lim.Timeout)
	}
	if runErr != nil {
		msg := firstLine(lastError(stderr.String()))
		var exit *exec.ExitError
		if errors.As(runErr, &exit) && !exit.Exited() {
			return "", nil, fault.Errorf(fault.Invalid, "tesseract crashed (%v): %s", exit, msg)
		}
		return "", nil, fault.Errorf(fault.Invalid, "tesseract failed (%v): %s", runErr, msg)
	}
	tsv, err := parseTSV(stdout.buf.Bytes())
	if err != nil {
		return "", nil, err
	}
	text, words := layoutText(tsv)
	if len(text) > maxPageText {
		return "", nil, fault.Errorf(fault.Invalid, "tesseract read %d KiB of text on the page, more than the limit of %d KiB for one page: nothing of the page is kept (a faulty engine?)", len(text)>>10, maxPageText>>10)
	}
	return text, words, nil
}

// lastError keeps the lines of tesseract's stderr that say what failed,
// without its chatter ("Estimating resolution as 300").
func lastError(s string) string {
	var keep []string
	for _, line := range strings.Split(s, "\n") {
		l := strings.TrimSpace(line)
		if l == "" || strings.HasPrefix(l, "Estimating resolution") || strings.HasPrefix(l, "Warning: Invalid resolution") ||
			strings.HasPrefix(l, "Detected ") {
			continue
		}
		keep = append(keep, l)
	}
	if len(keep) == 0 {
		return "(no message)"
	}
	return strings.Join(keep, "; ")
}

// tsvWord is a word of tesseract's TSV with its position in the layout.
type tsvWord struct {
	storage.Word
	block, par, line int
}

// parseTSV reads tesseract's TSV: a header, then one row per layout
// element; level 5 rows are words, with left, top, width, height, conf
// (0-100) and text.
func parseTSV(out []byte) ([]tsvWord, error) {
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(make([]byte, 0, 4<<10), maxTSVLine)
	var words []tsvWord
	first := true
	for sc.Scan() {
		line := sc.Text()
		if first {
			first = false
			if !strings.HasPrefix(line, "level\t") {
				return nil, fault.Errorf(fault.Invalid, "tesseract's output is not TSV: %.80q", line)
			}
			continue
		}
		f := strings.Split(line, "\t")
		if len(f) < 12 || f[0] != "5" {
			continue
		}
		text := strings.TrimSpace(f[11])
		if text == "" {
			continue
		}
		n := make([]int, 10)
		for i := range 10 {
			n[i], _ = strconv.Atoi(f[i])
		}
		if len(words) == maxPageWords {
			return nil, fault.Errorf(fault.Invalid, "tesseract found more than %d words on the page, more than a page of text has: nothing of the page is kept (a faulty engine?)", maxPageWords)
		}
		conf, _ := strconv.ParseFloat(f[10], 64)
		words = append(words, tsvWord{
			Word:  storage.Word{X: n[6], Y: n[7], W: n[8], H: n[9], Conf: max(conf, 0), Text: text},
			block: n[2], par: n[3], line: n[4],
		})
	}
	if errors.Is(sc.Err(), bufio.ErrTooLong) {
		return nil, fault.Errorf(fault.Invalid, "tesseract's output has a line over %d KiB long, which no row of a page's TSV is: nothing of the page is kept (a faulty engine?)", maxTSVLine>>10)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("read tesseract's output: %w", err)
	}
	return words, nil
}

// layoutText is the text of a page from its words in tesseract's reading
// order, a wrapped table cell's lines kept together (tablecells.Join):
// words of a line joined by spaces, lines by a line break, paragraphs by
// an empty line; and the words in that order.
func layoutText(words []tsvWord) (string, []storage.Word) {
	var lines [][]tsvWord
	for i, w := range words {
		if i == 0 || w.block != words[i-1].block || w.par != words[i-1].par || w.line != words[i-1].line {
			lines = append(lines, nil)
		}
		lines[len(lines)-1] = append(lines[len(lines)-1], w)
	}
	lines = tablecells.Join(lines, func(w tsvWord) image.Rectangle { return image.Rect(w.X, w.Y, w.X+w.W, w.Y+w.H) })
	var b strings.Builder
	ordered := make([]storage.Word, 0, len(words))
	for i, line := range lines {
		if i > 0 {
			prev := lines[i-1][0]
			if line[0].block != prev.block || line[0].par != prev.par {
				b.WriteString("\n\n")
			} else {
				b.WriteString("\n")
			}
		}
		for j, w := range line {
			if j > 0 {
				b.WriteString(" ")
			}
			b.WriteString(w.Text)
			ordered = append(ordered, w.Word)
		}
	}
	return b.String(), ordered
}

// confidence is the mean word confidence, weighted by word length, 0 to 1;
// nil without words.
func confidence(words []storage.Word) *float64 {
	var sum, n float64
	for _, w := range words {
		l := float64(len([]rune(w.Text)))
		sum += w.Conf * l
		n += l
	}
	if n == 0 {
		return nil
	}
	c := float64(int(sum/n*10+0.5)) / 1000
	return &c
}

// forgetEngine drops the cached answer of FindEngine.
func forgetEngine() {
	engineMu.Lock()
	engineCache = nil
	engineMu.Unlock()
}
