package ort

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"

	"github.com/docent/docent/storage/envvar"
)

// Version is the ONNX Runtime that scripts/lib.sh (ensure_onnxruntime)
// installs from the npm package onnxruntime-node.
const Version = "1.30.0"

// librarySHA256 is the SHA-256 of bin/napi-v6/linux/<arch>/libonnxruntime.so.1
// in onnxruntime-node Version, per GOARCH; the script pins the same sums.
var librarySHA256 = map[string]string{
	"amd64": "ffb75a925ba05e47b235bb66e3e3911714a80b328a9c9425539feb204aa32a23",
	"arm64": "1f549d46250b005580b597f4164984aaf75b3bcb9f3aeb07c7f8a8fe60b23c76",
}

// CacheDir is Docent's cache folder: $DOCENT_CACHE_DIR, else the user
// cache folder's docent/ (~/.cache/docent). The runtime and the PP-OCR
// models are installed under it, where any build of docent finds them.
func CacheDir() (string, error) {
	if dir := envvar.Get(envvar.CacheDir); dir != "" {
		return dir, nil
	}
	dir, err := os.UserCacheDir()
	if err != nil {
		return "", fmt.Errorf("find the cache folder: %w", err)
	}
	return filepath.Join(dir, "docent"), nil
}

// Library is the ONNX Runtime library to load and the SHA-256 it must
// have: $DOCENT_ONNXRUNTIME as it is (a library the user chose, not
// checked), else the pinned build a release bundled (BundleDirs), else
// the pinned build in CacheDir()/onnxruntime/Version/.
func Library() (path, sha256 string, err error) {
	if p := envvar.Get(envvar.ONNXRuntime); p != "" {
		return p, "", nil
	}
	if dir := Bundle(); dir != "" {
		return bundledLibrary(dir, runtime.GOOS, runtime.GOARCH)
	}
	sum, ok := librarySHA256[runtime.GOARCH]
	if runtime.GOOS != "linux" || !ok {
		return "", "", fmt.Errorf("%w: no pinned build for %s/%s (name a libonnxruntime with DOCENT_ONNXRUNTIME)", ErrNotInstalled, runtime.GOOS, runtime.GOARCH)
	}
	dir, err := CacheDir()
	if err != nil {
		return "", "", err
	}
	return filepath.Join(dir, "onnxruntime", Version, "libonnxruntime.so"), sum, nil
}

// LoadInstalled loads the library Library names.
func LoadInstalled() (*Runtime, error) {
	path, sum, err := Library()
	if err != nil {
		return nil, err
	}
	return Load(path, sum)
}
