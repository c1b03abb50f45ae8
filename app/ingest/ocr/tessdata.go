package ocr

import (
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/docent/docent/app/ingest/ocr/ppocr/ort"
	"github.com/docent/docent/app/internal/datadir"
	"github.com/docent/docent/app/internal/pinned"
	"github.com/docent/docent/storage/envvar"
)

// Tesseract's language data comes in three kinds: tessdata_fast (what
// Debian's tesseract-ocr-LANG packages ship), tessdata_best and best_int,
// best's networks with integer weights, about as fast as fast and reading
// receipts better (docs/benchmarks.md, "Receipts: Tesseract settings").
// scripts/run and scripts/test install best_int for the shipped languages
// (eng, deu, fra, nld, spa, ita) from the npm packages @tesseract.js-data/LANG into
// TessdataDir; Docent checks each file against the hash below and reads
// photos with it when every language of a run has a good file there, else
// with the system's data, and says which it used; PDF pages it reads with
// the system's data (pageData).

// Data kinds, as pages record them (Engine.Name).
const (
	DataBestInt = "best_int"
	DataSystem  = "system" // the system's tessdata, Debian's tessdata_fast
)

// bestIntSHA256 pins each best_int file as @tesseract.js-data/LANG 1.0.0
// ships it (4.0.0_best_int/LANG.traineddata.gz, unpacked); scripts/lib.sh
// pins the same hashes.
var bestIntSHA256 = map[string]string{
	"eng": "5dc5d8d640a212c9d6184921ba103b186f50e0fed9ee716c53e6b312b400d747",
	"deu": "a1b72cc25753eac167edfef5af4448a8dc34973503a2265c34c84520f896eb03",
	"fra": "bf83833fa957ff0076f6aa93f69e3bdf7b014dea829ea0c0d6be6b48a3ceef6d",
	"nld": "363c360db9838838ff7ed3d8b885b33acc0d61d37165708303cf8a81e50164f3",
	"spa": "0062377729b81cc268b1822f09eb1c08c09f3f7f1c6b422540b51555a7eeea70",
	"ita": "36ec897f5f1f489b257801881286167a79b99a16040c6fbc7e3e30f03821b10b",
}

// TessdataEnv names the folder of the best_int language data.
const TessdataEnv = string(envvar.Tessdata)

// TessdataDir is where Docent looks for best_int language data:
// DOCENT_TESSDATA if set, else the tessdata/ a release bundled beside the
// program (ort.Bundle), else tessdata/ in the user's default data folder
// ($XDG_DATA_HOME/docent/tessdata, i.e. ~/.local/share/docent/tessdata),
// which does not move with --data-dir, so that every build of docent and
// every data directory finds what the scripts installed once.
func TessdataDir() string {
	if dir := envvar.Get(envvar.Tessdata); dir != "" {
		return dir
	}
	if b := ort.Bundle(); b != "" {
		if st, err := os.Stat(filepath.Join(b, "tessdata")); err == nil && st.IsDir() {
			return filepath.Join(b, "tessdata")
		}
	}
	dir, err := datadir.Default()
	if err != nil {
		return ""
	}
	return filepath.Join(dir, "tessdata")
}

// bestData is what TessdataDir holds: the languages whose file is good,
// and a note on each that is there but is not.
type bestData struct {
	dir   string
	langs []string
	notes []string
}

// verified remembers the hash check of a file by its path, size and
// modification time, so that a 5 MB file is hashed once, not before every
// document.
var (
	verifiedMu sync.Mutex
	verified   = map[string]string{} // key -> "" (good) or what is wrong
)

// findBestData checks the best_int files in dir against their hashes.
func findBestData(dir string) bestData {
	d := bestData{dir: dir}
	if dir == "" {
		return d
	}
	for _, lang := range slices.Sorted(maps.Keys(bestIntSHA256)) {
		path := filepath.Join(dir, lang+".traineddata")
		st, err := os.Stat(path)
		if err != nil {
			if !os.IsNotExist(err) {
				d.notes = append(d.notes, fmt.Sprintf("%s: %v", path, err))
			}
			continue
		}
		key := fmt.Sprintf("%s\x00%d\x00%d", path, st.Size(), st.ModTime().UnixNano())
		verifiedMu.Lock()
		problem, ok := verified[key]
		verifiedMu.Unlock()
		if !ok {
			problem = ""
			if err := pinned.Check(path, bestIntSHA256[lang]); err != nil {
				problem = err.Error()
			}
			verifiedMu.Lock()
			verified[key] = problem
			verifiedMu.Unlock()
		}
		if problem != "" {
			d.notes = append(d.notes, problem)
			continue
		}
		d.langs = append(d.langs, lang)
	}
	return d
}

// covers reports whether every language of langs ("deu+eng") has a good
// best_int file.
func (d bestData) covers(langs string) bool {
	if len(d.langs) == 0 {
		return false
	}
	for _, l := range strings.Split(langs, "+") {
		if !slices.Contains(d.langs, l) {
			return false
		}
	}
	return true
}

// dataFor is the language data a run with langs reads: the best_int
// folder, or "" and DataSystem for the system's data, with why when
// best_int was not used although a language of langs has it.
func (e *Engine) dataFor(langs string) (dir, kind, why string) {
	if e.best.covers(langs) {
		return e.best.dir, DataBestInt, ""
	}
	var missing []string
	for _, l := range strings.Split(langs, "+") {
		if !slices.Contains(e.best.langs, l) {
			missing = append(missing, l)
		}
	}
	why = fmt.Sprintf("no best_int data for %s in %s", strings.Join(missing, ", "), e.best.dir)
	if len(e.best.notes) > 0 {
		why += " (" + strings.Join(e.best.notes, "; ") + ")"
	}
	return "", DataSystem, why
}

// pageData is the language data for a page made by method
// (PageImage.Method): best_int for an image file's page, where it reads
// receipt photos better; the system's for PDF pages, rendered or scans,
// which the system's data reads a little better and faster (on the 63
// rendered corpus invoices at 300 dpi 1,511 values against best_int's
// 1,503, 0.96 pages per CPU second against 0.79: docs/benchmarks.md,
// "Receipts: Tesseract settings"). A language only best_int has (installed
// by the scripts, not by the system's package) is read with best_int on
// any page.
func (e *Engine) pageData(langs, method string) (dir, kind string) {
	if method != "image" && e.systemHas(langs) {
		return "", DataSystem
	}
	dir, kind, _ = e.dataFor(langs)
	return dir, kind
}

// DataNote says which language data a run with langs reads and, for the
// system's, why not best_int: `docent ocr` and the log print it.
func (e *Engine) DataNote(langs string) string {
	dir, kind, why := e.dataFor(langs)
	if kind == DataBestInt {
		return fmt.Sprintf("Tesseract reads %s with best_int data from %s (photos; PDF pages with the system's data)", langs, dir)
	}
	return fmt.Sprintf("Tesseract reads %s with the system's data (%s); scripts/run installs best_int, which reads photos better", langs, why)
}

// systemHas reports whether the system's data has every language of langs.
func (e *Engine) systemHas(langs string) bool {
	for _, l := range strings.Split(langs, "+") {
		if !slices.Contains(e.Langs, l) {
			return false
		}
	}
	return true
}
