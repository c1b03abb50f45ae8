package ort

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
)

// A release (scripts/release) ships the runtime and the models beside the
// program, so that a copied docent reads photos as well as a built one
// with no cache filled: the tarballs and the Windows zip put them beside
// the executable, the .deb under /usr/lib/docent. A bundle folder is laid
// out as
//
//	LibraryName()               the pinned ONNX Runtime for this system
//	ppocr/PP-OCRv4/...          the models, as in the cache
//	tessdata/LANG.traineddata   Tesseract's best_int data
//
// and is looked in before the cache.

// SystemBundleDir is where the .deb installs the runtime and the models.
const SystemBundleDir = "/usr/lib/docent"

// pinnedLibrary is the file name and SHA-256 of the ONNX Runtime build
// scripts/release bundles for each system, from onnxruntime-node Version
// (bin/napi-v6/OS/ARCH/); linux's are the ones the cache holds.
var pinnedLibrary = map[string]struct{ name, sha256 string }{
	"linux/amd64":   {"libonnxruntime.so", librarySHA256["amd64"]},
	"linux/arm64":   {"libonnxruntime.so", librarySHA256["arm64"]},
	"windows/amd64": {"onnxruntime.dll", "508c362f5673483dd3a086379c392795b2e42d10d5e6f3f90ebd7ac21c97af67"},
	"darwin/arm64":  {"libonnxruntime.dylib", "685d2be5dba1309c89d3a5324b7fd06a5c42f1a61bfea32d14c4cc28d072121d"},
}

// LibraryName is the file name of the ONNX Runtime library in a bundle on
// this system, "" where none is pinned.
func LibraryName() string { return pinnedLibrary[runtime.GOOS+"/"+runtime.GOARCH].name }

// BundleDirs are the folders a release may have put the runtime in, in the
// order they are looked in: the executable's own folder (its links
// followed), then SystemBundleDir on Linux.
func BundleDirs() []string {
	var dirs []string
	if exe, err := os.Executable(); err == nil {
		if real, err := filepath.EvalSymlinks(exe); err == nil {
			exe = real
		}
		dirs = append(dirs, filepath.Dir(exe))
	}
	if runtime.GOOS == "linux" {
		dirs = append(dirs, SystemBundleDir)
	}
	return dirs
}

// ErrBundleIncomplete is returned when a bundle folder has part of what a
// release ships but not the library: a file deleted or never unpacked.
var ErrBundleIncomplete = errors.New("the bundled ONNX Runtime is missing")

// Bundle is the first of BundleDirs that holds a bundle, "" when none
// does: a copied docent or a build from source then uses the cache.
func Bundle() string { return findBundle(BundleDirs(), LibraryName()) }

// findBundle is the first of dirs that holds the library lib or the
// ppocr/ models folder.
func findBundle(dirs []string, lib string) string {
	for _, dir := range dirs {
		for _, name := range []string{lib, "ppocr"} {
			if name == "" {
				continue
			}
			if _, err := os.Stat(filepath.Join(dir, name)); err == nil {
				return dir
			}
		}
	}
	return ""
}

// bundledLibrary is the library of the bundle in dir with the SHA-256 it
// must have. A bundle with the models but no library is an error that
// names the file, so that the app says what is missing rather than
// quietly reading with Tesseract.
func bundledLibrary(dir, goos, goarch string) (path, sha256 string, err error) {
	pin := pinnedLibrary[goos+"/"+goarch]
	lib := filepath.Join(dir, pin.name)
	if pin.name == "" {
		return "", "", fmt.Errorf("%w: no build is pinned for %s/%s", ErrBundleIncomplete, goos, goarch)
	}
	if _, err := os.Stat(lib); errors.Is(err, fs.ErrNotExist) {
		return "", "", fmt.Errorf("%w: %s has the PP-OCR models but no %s (reinstall Docent)", ErrBundleIncomplete, dir, pin.name)
	}
	return lib, pin.sha256, nil
}
