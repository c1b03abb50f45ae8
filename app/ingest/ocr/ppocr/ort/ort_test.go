package ort

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// installed loads the runtime scripts/lib.sh installs; it skips without
// one, except in CI, where the test command has installed it.
func installed(t *testing.T) *Runtime {
	t.Helper()
	rt, err := LoadInstalled()
	if err != nil {
		if os.Getenv("CI") == "true" || !errors.Is(err, ErrNotInstalled) {
			t.Fatalf("ONNX Runtime: %v", err)
		}
		t.Skipf("skipping: %v (scripts/test installs it)", err)
	}
	return rt
}

// detModel is the PP-OCRv4 detector the script installs beside the runtime.
func detModel(t *testing.T) []byte {
	t.Helper()
	dir, err := CacheDir()
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(filepath.Join(dir, "ppocr", "PP-OCRv4", "det.onnx"))
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal(err)
		}
		t.Skipf("skipping: %v (scripts/test installs the models)", err)
	}
	return data
}

// TestRunDetector runs the real detection model on a blank image: the
// output is one probability per pixel, all low.
func TestRunDetector(t *testing.T) {
	rt := installed(t)
	if !strings.HasPrefix(rt.Version(), "1.") {
		t.Errorf("version %q", rt.Version())
	}
	s, err := rt.NewSession(detModel(t), 1)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	const h, w = 64, 96
	in := Tensor{Shape: []int64{1, 3, h, w}, Data: make([]float32, 3*h*w)}
	out, err := s.Run(in)
	if err != nil {
		t.Fatal(err)
	}
	if len(out.Shape) != 4 || out.Shape[0] != 1 || out.Shape[1] != 1 || out.Shape[2] != h || out.Shape[3] != w {
		t.Fatalf("output shape %v, want [1 1 %d %d]", out.Shape, h, w)
	}
	if len(out.Data) != h*w {
		t.Fatalf("%d values for shape %v", len(out.Data), out.Shape)
	}
	for i, v := range out.Data {
		if v < 0 || v > 0.3 {
			t.Fatalf("value %d of a blank image's text probability is %v", i, v)
		}
	}
	// A wrong input is the runtime's error, not a crash.
	if _, err := s.Run(Tensor{Shape: []int64{1, 2, h, w}, Data: make([]float32, 2*h*w)}); err == nil {
		t.Error("two channels into a three-channel model: no error")
	} else {
		t.Logf("two channels: %v", err)
	}
	if _, err := s.Run(Tensor{Shape: []int64{1, 3, h, w}, Data: make([]float32, 5)}); err == nil {
		t.Error("5 values for a 1×3×64×96 shape: no error")
	}
	s.Close()
	if _, err := s.Run(in); err == nil {
		t.Error("run of a closed session: no error")
	}
}

// TestBadModel: bytes that are no model are a clear error.
func TestBadModel(t *testing.T) {
	rt := installed(t)
	for name, data := range map[string][]byte{
		"empty":   nil,
		"garbage": []byte("this is not an ONNX model at all"),
		"cut":     detModel(t)[:100000],
	} {
		if _, err := rt.NewSession(data, 1); err == nil {
			t.Errorf("%s: no error", name)
		} else {
			t.Logf("%s: %v", name, err)
		}
	}
}

// TestLoadErrors: a missing library, one whose hash is not the pinned one,
// a file that is no library, and an API version the library does not
// offer each give an error that says so.
func TestLoadErrors(t *testing.T) {
	dir := t.TempDir()
	missing := filepath.Join(dir, "libonnxruntime.so")
	_, err := Load(missing, librarySHA256["amd64"])
	if !errors.Is(err, ErrNotInstalled) || !strings.Contains(err.Error(), missing) {
		t.Errorf("missing library: %v", err)
	}
	_, err = Load(missing, "")
	if !errors.Is(err, ErrNotInstalled) {
		t.Errorf("missing library, unchecked: %v", err)
	}
	junk := filepath.Join(dir, "junk.so")
	if err := os.WriteFile(junk, []byte("not a shared library"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err = Load(junk, librarySHA256["amd64"])
	if !errors.Is(err, ErrBadHash) {
		t.Errorf("wrong hash: %v", err)
	}
	// Named by DOCENT_ONNXRUNTIME, nothing is checked before dlopen, which
	// refuses it with its own words.
	_, err = Load(junk, "")
	if err == nil || !strings.Contains(err.Error(), "load ONNX Runtime") {
		t.Errorf("not a library: %v", err)
	}
	t.Logf("not a library: %v", err)

	t.Setenv("DOCENT_CACHE_DIR", dir)
	t.Setenv("DOCENT_ONNXRUNTIME", "")
	path, sum, err := Library()
	if err == nil && (path != filepath.Join(dir, "onnxruntime", Version, "libonnxruntime.so") || sum == "") {
		t.Errorf("Library() = %s, %s", path, sum)
	}
	if _, err := LoadInstalled(); !errors.Is(err, ErrNotInstalled) {
		t.Errorf("empty cache folder: %v", err)
	}
	t.Setenv("DOCENT_ONNXRUNTIME", junk)
	if path, sum, err := Library(); path != junk || sum != "" || err != nil {
		t.Errorf("DOCENT_ONNXRUNTIME: Library() = %s, %q, %v", path, sum, err)
	}
}

// TestAPIVersion: a C API version newer than the library's is refused
// with the library's version in the message.
func TestAPIVersion(t *testing.T) {
	rt := installed(t)
	_ = rt
	path, _, _ := Library()
	_, err := loadVersion(path, 100000)
	if err == nil || !strings.Contains(err.Error(), "does not offer C API version 100000") {
		t.Errorf("API version 100000: %v", err)
	}
}

// TestLibraryThatDoesNotLoad: the real library built for another
// architecture, the real library asking for a glibc this machine does not
// have, and a shared library that is not ONNX Runtime are each refused
// with dlopen's or dlsym's own words in the error, and nothing crashes.
// (Named by DOCENT_ONNXRUNTIME, a library is loaded without the pinned
// hash, so it gets as far as dlopen.)
func TestLibraryThatDoesNotLoad(t *testing.T) {
	installed(t)
	path, _, err := Library()
	if err != nil {
		t.Fatal(err)
	}
	lib, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(lib) < 20 || string(lib[1:4]) != "ELF" {
		t.Skipf("skipping: %s is not an ELF library", path)
	}
	dir := t.TempDir()
	write := func(name string, data []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}

	// e_machine (bytes 18-19, little-endian): x86-64 is 62, AArch64 183.
	other := bytes.Clone(lib)
	if other[18] == 62 {
		other[18] = 183
	} else {
		other[18] = 62
	}
	// glibc's dlopen says "No such file or directory" of such a file; the
	// error names the architecture it was built for instead.
	if _, err := Load(write("other-arch.so", other), ""); err == nil || !strings.Contains(err.Error(), "built for") || !strings.Contains(err.Error(), runtime.GOARCH) {
		t.Errorf("a library of another architecture: %v", err)
	} else {
		t.Logf("another architecture: %v", err)
	}

	// The versions of glibc it needs, GLIBC_2.x, made GLIBC_9.x: what
	// dlopen says on a machine whose glibc is too old.
	newer := bytes.ReplaceAll(lib, []byte("GLIBC_2."), []byte("GLIBC_9."))
	if bytes.Equal(newer, lib) {
		t.Fatal("the library names no GLIBC_2 version")
	}
	if _, err := Load(write("new-glibc.so", newer), ""); err == nil || !strings.Contains(err.Error(), "GLIBC_9.") || !strings.Contains(err.Error(), "glibc 2.28 or newer") {
		t.Errorf("a library for a newer glibc: %v", err)
	} else {
		t.Logf("a newer glibc: %v", err)
	}

	// A real shared library, but not ONNX Runtime: the system's libm.
	libm, _ := filepath.Glob("/lib*/*/libm.so.6")
	if more, _ := filepath.Glob("/usr/lib*/*/libm.so.6"); len(libm) == 0 {
		libm = more
	}
	if len(libm) == 0 {
		t.Log("no libm.so.6 found: not tried as the runtime")
	} else if _, err := Load(libm[0], ""); err == nil || !strings.Contains(err.Error(), "no OrtGetApiBase") {
		t.Errorf("libm as the runtime: %v", err)
	}
}
