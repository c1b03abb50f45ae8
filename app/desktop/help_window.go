//go:build desktop || dev || bindings

package desktop

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	goruntime "runtime"
	"runtime/debug"
	"strings"

	"github.com/wailsapp/wails/v2/pkg/runtime"
)

// about shows Help > About Docent: the version and the data folder. Wails
// runs menu callbacks on a goroutine of their own, so the dialog may block
// here.
func (w *window) about() {
	if w.ctx == nil {
		return
	}
	version := w.opts.Version
	if version == "" {
		version = healthVersion(w.work, w.opts.Handler)
	}
	bi, _ := debug.ReadBuildInfo()
	dir := w.opts.DataDir
	if abs, err := filepath.Abs(dir); err == nil && dir != "" {
		dir = abs
	}
	w.message(runtime.InfoDialog, aboutLabel, aboutText(describeVersion(version, bi), dir))
}

// openDataFolder shows the data directory in the system's file manager.
func (w *window) openDataFolder() {
	if w.ctx == nil || w.opts.DataDir == "" {
		return
	}
	dir, err := filepath.Abs(w.opts.DataDir)
	if err != nil {
		dir = w.opts.DataDir
	}
	w.openPath(dir, "data folder")
}

// openREADME opens the README.md that came with the binary in the system's
// viewer for it. The README is not in the binary (app/desktop cannot embed
// a file above its folder, and a copy would drift), so a binary without
// one beside it gets a dialog that says where it is, and the gist.
func (w *window) openREADME() {
	if w.ctx == nil {
		return
	}
	exe, err := os.Executable()
	if err == nil {
		if resolved, rerr := filepath.EvalSymlinks(exe); rerr == nil {
			exe = resolved
		}
	}
	if err != nil {
		w.log.Debug("find the program's path", "err", err)
		w.message(runtime.InfoDialog, readmeLabel, readmeMissingText([]string{"the program's folder"}))
		return
	}
	if path := findREADME(exe); path != "" {
		w.openPath(path, "README")
		return
	}
	w.message(runtime.InfoDialog, readmeLabel, readmeMissingText(readmeCandidates(exe)))
}

// openPath opens path with the system's file manager or viewer: with
// xdg-open on Linux, whose failure is shown with the path, and elsewhere
// as a file:// URL through Wails' URL opener.
func (w *window) openPath(path, what string) {
	if goruntime.GOOS == "linux" {
		if xdg, err := exec.LookPath("xdg-open"); err == nil {
			w.xdgOpen(xdg, path, what)
			return
		}
	}
	runtime.BrowserOpenURL(w.ctx, fileURL(path))
}

// xdgOpen runs xdg-open on path. It may return before the file manager
// is open, or only when it closes (which one depends on the desktop), so
// it waits on the side and shows a failure when there is one.
func (w *window) xdgOpen(xdg, path, what string) {
	cmd := exec.Command(xdg, path)
	var stderr bytes.Buffer
	cmd.Stderr = &limitedWriter{w: &stderr, n: 2048}
	if err := cmd.Start(); err != nil {
		w.log.Warn("xdg-open", "path", path, "err", err)
		w.message(runtime.WarningDialog, "Open "+what, openFailedText(what, path, fmt.Errorf("xdg-open: %w", err)))
		return
	}
	go func() {
		err := cmd.Wait()
		if err == nil || w.work.Err() != nil {
			return
		}
		w.log.Warn("xdg-open", "path", path, "err", err, "stderr", strings.TrimSpace(stderr.String()))
		w.message(runtime.WarningDialog, "Open "+what, openFailedText(what, path, fmt.Errorf("xdg-open: %w", err)))
	}()
}

// message shows a dialog with one button and waits until it is closed.
func (w *window) message(kind runtime.DialogType, title, text string) {
	_, err := runtime.MessageDialog(w.ctx, runtime.MessageDialogOptions{
		Type:    kind,
		Title:   title,
		Message: dialogMessage(goruntime.GOOS, text),
	})
	if err != nil {
		w.log.Error("message dialog", "title", title, "err", err)
	}
}

// limitedWriter keeps the first n bytes written to it and drops the rest.
type limitedWriter struct {
	w *bytes.Buffer
	n int
}

func (l *limitedWriter) Write(p []byte) (int, error) {
	if room := l.n - l.w.Len(); room > 0 {
		l.w.Write(p[:min(len(p), room)])
	}
	return len(p), nil
}
