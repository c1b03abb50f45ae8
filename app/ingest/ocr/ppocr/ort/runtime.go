package ort

import (
	"debug/elf"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"runtime"
	"sync"
	"unsafe"

	"github.com/docent/docent/app/internal/pinned"
	"github.com/ebitengine/purego"
)

// ErrNotInstalled is returned by Load when there is no library at the
// path: PP-OCR is then off and Tesseract reads.
var ErrNotInstalled = errors.New("ONNX Runtime is not installed")

// ErrBadHash is returned by Load when the library is not the pinned
// build (a partial download, another version, a file changed on disk).
var ErrBadHash = pinned.ErrMismatch

// Runtime is a loaded ONNX Runtime with one environment; it lives as long
// as the process (the library is never unloaded: sessions' threads may
// still run its code).
type Runtime struct {
	api     *api
	env     uintptr
	mem     uintptr
	alloc   uintptr
	version string
}

var (
	loadMu sync.Mutex
	loaded = map[string]*Runtime{}
)

// Load loads the library at path, checking first that its SHA-256 is
// wantSHA256 (hex) unless that is "", and creates the environment. A
// path loaded before gives the same Runtime.
func Load(path, wantSHA256 string) (*Runtime, error) {
	loadMu.Lock()
	defer loadMu.Unlock()
	if r := loaded[path]; r != nil {
		return r, nil
	}
	if wantSHA256 != "" {
		err := pinned.Check(path, wantSHA256)
		if errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("%w at %s (scripts/run installs it; or name a libonnxruntime with DOCENT_ONNXRUNTIME)", ErrNotInstalled, path)
		}
		if err != nil {
			return nil, fmt.Errorf("ONNX Runtime library: %w", err)
		}
	} else if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("%w at %s", ErrNotInstalled, path)
	}
	r, err := loadVersion(path, apiVersion)
	if err != nil {
		return nil, err
	}
	loaded[path] = r
	return r, nil
}

// loadVersion dlopens the library at path and asks it for C API version v.
func loadVersion(path string, v uint32) (*Runtime, error) {
	oneMallocArena()
	// dlerror's text is the calling thread's: without the lock the
	// goroutine may ask it on another thread than dlopen's and get none
	// (seen as an error with no reason under load).
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	h, err := openLibrary(path)
	if err != nil {
		// dlopen's own text says why: a glibc older than it needs
		// ("GLIBC_2.28 not found"), a file that is no library. Of a
		// library for another architecture glibc says "No such file or
		// directory", so the ELF header says that instead.
		if arch := elfArch(path); arch != "" {
			return nil, fmt.Errorf("load ONNX Runtime %s: it is built for %s, not this machine's %s (install the build for %s, or run scripts/run again)", path, arch, runtime.GOARCH, runtime.GOARCH)
		}
		return nil, fmt.Errorf("load ONNX Runtime %s (it needs glibc 2.28 or newer and this machine's architecture, %s): %w", path, runtime.GOARCH, err)
	}
	base, err := librarySymbol(h, "OrtGetApiBase")
	if err != nil || base == 0 {
		return nil, fmt.Errorf("load ONNX Runtime %s: no OrtGetApiBase in it: is it libonnxruntime? (%v)", path, err)
	}
	r, err := newRuntime(base, v)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return r, nil
}

// elfMachines are the ELF machines of the architectures ONNX Runtime is
// installed for.
var elfMachines = map[string]elf.Machine{"amd64": elf.EM_X86_64, "arm64": elf.EM_AARCH64}

// elfArch names the machine the ELF library at path is built for when it
// is not this one's; "" when it is, or when path is no ELF file.
func elfArch(path string) string {
	f, err := elf.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	if want, ok := elfMachines[runtime.GOARCH]; !ok || f.Machine == want {
		return ""
	}
	return f.Machine.String()
}

// newRuntime asks the OrtApiBase at getAPIBase for C API version v and
// creates the environment.
func newRuntime(getAPIBase uintptr, v uint32) (*Runtime, error) {
	var apiBase func() unsafe.Pointer
	purego.RegisterFunc(&apiBase, getAPIBase)
	b := apiBase()
	if b == nil {
		return nil, errors.New("onnxruntime: OrtGetApiBase returned nothing")
	}
	// struct OrtApiBase { GetApi(uint32_t); GetVersionString(void); }
	var getAPI func(uint32) unsafe.Pointer
	var getVersion func() string
	purego.RegisterFunc(&getAPI, *(*uintptr)(b))
	purego.RegisterFunc(&getVersion, *(*uintptr)(unsafe.Add(b, ptrSize)))
	version := getVersion()
	table := getAPI(v)
	if table == nil {
		return nil, fmt.Errorf("ONNX Runtime %s does not offer C API version %d", version, v)
	}
	r := &Runtime{api: bind(table), version: version}
	if err := r.api.check("create environment", r.api.createEnv(loggingLevelError, "docent", &r.env)); err != nil {
		return nil, err
	}
	if err := r.api.check("create CPU memory info", r.api.createCPUMemoryInfo(arenaAllocator, memTypeDefault, &r.mem)); err != nil {
		return nil, err
	}
	if err := r.api.check("get allocator", r.api.getAllocatorWithDefaultOptions(&r.alloc)); err != nil {
		return nil, err
	}
	return r, nil
}

// Version is the library's own version, e.g. "1.30.0".
func (r *Runtime) Version() string { return r.version }
