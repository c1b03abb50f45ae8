//go:build (desktop || dev || bindings) && linux

package desktop

/*
#cgo pkg-config: glib-2.0
#include <stdlib.h>
#include <glib.h>

// pin_user_dirs points XDG_DATA_HOME and XDG_CACHE_HOME at data and cache
// in the C environment, names the program, and makes GLib read and keep
// both directories now.
static int pin_user_dirs(const char *data, const char *cache, const char *prgname) {
	if (setenv("XDG_DATA_HOME", data, 1) != 0 || setenv("XDG_CACHE_HOME", cache, 1) != 0) {
		return -1;
	}
	g_set_prgname(prgname);
	g_get_user_data_dir();
	g_get_user_cache_dir();
	return 0;
}
*/
import "C"

import (
	"fmt"
	"os"
	"path/filepath"
	"unsafe"
)

// keepWebviewDataIn makes WebKitGTK keep the page's storage (local storage,
// IndexedDB, HSTS, caches) in dir instead of ~/.local/share/<program> and
// ~/.cache/<program>, where a second data directory would share it.
//
// Wails builds its webview on WebKit's default context, whose storage
// folders WebKit derives from GLib's user data and cache directories and
// the program's name; GLib reads those from XDG_DATA_HOME and
// XDG_CACHE_HOME once, the first time they are asked for. So before GTK
// starts, this sets both in the C environment to folders in dir and has
// GLib read them. WebKit's helper processes inherit that environment, so
// their caches (Mesa's shader cache, fontconfig's) land there too. Go's
// own environment is untouched: programs Docent starts (xdg-open for Open
// data folder) see the user's.
//
// GLib's user data directory is then dir/data for the whole process: GTK
// also keeps its list of recently used files there and does not find
// themes or icons installed in ~/.local/share (it still finds those in
// ~/.themes, ~/.icons and the system's folders).
func keepWebviewDataIn(dir string) error {
	dir, err := filepath.Abs(dir) // a relative XDG directory is ignored
	if err != nil {
		return fmt.Errorf("find the webview's folder: %w", err)
	}
	data, cache := filepath.Join(dir, "data"), filepath.Join(dir, "cache")
	for _, d := range []string{data, cache} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			return fmt.Errorf("create the webview's folder: %w", err)
		}
	}
	cdata, ccache, cname := C.CString(data), C.CString(cache), C.CString(programName)
	defer C.free(unsafe.Pointer(cdata))
	defer C.free(unsafe.Pointer(ccache))
	defer C.free(unsafe.Pointer(cname))
	if C.pin_user_dirs(cdata, ccache, cname) != 0 {
		return fmt.Errorf("point the webview's storage at %s: setenv failed", dir)
	}
	return nil
}
