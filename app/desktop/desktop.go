//go:build desktop || dev || bindings

package desktop

import (
	"context"
	"fmt"
	"log/slog"
	"net/url"
	"path/filepath"
	goruntime "runtime"
	"strings"
	"sync"
	"time"

	"github.com/wailsapp/wails/v2"
	"github.com/wailsapp/wails/v2/pkg/menu"
	"github.com/wailsapp/wails/v2/pkg/menu/keys"
	"github.com/wailsapp/wails/v2/pkg/options"
	"github.com/wailsapp/wails/v2/pkg/options/assetserver"
	"github.com/wailsapp/wails/v2/pkg/options/linux"
	"github.com/wailsapp/wails/v2/pkg/runtime"
)

// importGrace is how long an import still running when the window closes
// gets to stop (at its next file) before Run returns and the caller closes
// the database.
const importGrace = 10 * time.Second

// window is the running desktop app.
type window struct {
	opts Options
	log  *slog.Logger

	// ctx is Wails' context, set at startup: the runtime calls need it.
	ctx context.Context
	// work is the context of imports; cancelled when the window closes.
	work context.Context

	importMu sync.Mutex // one import at a time
	imports  sync.WaitGroup
}

// Run opens the window and returns when the user closes it, or when ctx is
// cancelled (SIGINT, SIGTERM).
func Run(ctx context.Context, opts Options) error {
	w := &window{opts: opts, log: opts.Logger}
	if w.log == nil {
		w.log = slog.New(slog.DiscardHandler)
	}
	work, cancelWork := context.WithCancel(context.WithoutCancel(ctx))
	defer cancelWork()
	w.work = work

	err := wails.Run(&options.App{
		Title:     opts.Title,
		Width:     1280,
		Height:    800,
		MinWidth:  720,
		MinHeight: 480,
		Menu:      w.menu(),
		// The handler serves the UI's files and the API alike, so the UI
		// makes the same requests in the window as in a browser.
		AssetServer: &assetserver.Options{Handler: logRequests(opts.Logger, opts.Handler)},
		DragAndDrop: &options.DragAndDrop{EnableFileDrop: true},
		Linux:       &linux.Options{Icon: opts.Icon, ProgramName: "docent"},
		OnStartup: func(wctx context.Context) {
			w.ctx = wctx
			runtime.OnFileDrop(wctx, func(_, _ int, paths []string) { w.importPaths(paths) })
			// Wails quits on SIGINT and SIGTERM itself; this covers a
			// context cancelled for any other reason too.
			go func() {
				select {
				case <-ctx.Done():
					w.log.Info("stopping the desktop window", "reason", context.Cause(ctx))
					runtime.Quit(wctx)
				case <-work.Done():
				}
			}()
			w.log.Info("desktop window started", "data_dir", opts.DataDir)
		},
	})
	cancelWork()
	// The caller closes the database when Run returns: let a running
	// import stop first.
	done := make(chan struct{})
	go func() { w.imports.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(importGrace):
		w.log.Warn("an import is still running at exit; closing anyway")
	}
	if err != nil {
		return fmt.Errorf("desktop window: %w", err)
	}
	return nil
}

func (w *window) menu() *menu.Menu {
	m := menu.NewMenu()
	if goruntime.GOOS == "darwin" {
		m.Append(menu.AppMenu())
	}
	file := m.AddSubmenu("File")
	file.AddText("Import…", keys.CmdOrCtrl("o"), func(*menu.CallbackData) { w.importDialog() })
	file.AddText("Open data folder", nil, func(*menu.CallbackData) { w.openDataFolder() })
	file.AddSeparator()
	file.AddText("Quit", keys.CmdOrCtrl("q"), func(*menu.CallbackData) { runtime.Quit(w.ctx) })
	if goruntime.GOOS == "darwin" {
		m.Append(menu.EditMenu()) // copy and paste need it there
	}
	return m
}

// importDialog asks for files and imports them. Wails runs menu callbacks
// on a goroutine of their own, so the dialog may block here.
func (w *window) importDialog() {
	if w.ctx == nil {
		return
	}
	paths, err := runtime.OpenMultipleFilesDialog(w.ctx, runtime.OpenDialogOptions{
		Title: "Import documents",
		Filters: []runtime.FileFilter{
			{DisplayName: "Documents (*.pdf, *.txt, *.md)", Pattern: "*.pdf;*.PDF;*.txt;*.md;*.markdown"},
			{DisplayName: "All files", Pattern: "*"},
		},
	})
	if err != nil {
		w.log.Error("import dialog", "err", err)
		return
	}
	w.importPaths(paths)
}

// importPaths imports in the background and tells the UI when it starts
// and ends.
func (w *window) importPaths(paths []string) {
	if len(paths) == 0 || w.opts.Import == nil || w.ctx == nil {
		return
	}
	w.imports.Add(1)
	go func() {
		defer w.imports.Done()
		w.importMu.Lock()
		defer w.importMu.Unlock()
		if w.work.Err() != nil {
			return
		}
		runtime.EventsEmit(w.ctx, ImportingEvent, ImportEvent{Paths: paths})
		w.log.Info("importing", "paths", paths)
		report, err := w.opts.Import(w.work, paths)
		ev := ImportEvent{Paths: paths, Report: report}
		if err != nil {
			ev.Error = err.Error()
			w.log.Error("import", "paths", paths, "err", err)
		}
		runtime.EventsEmit(w.ctx, ImportedEvent, ev)
	}()
}

// openDataFolder shows the data directory in the file manager (xdg-open on
// Linux, through Wails' browser opener).
func (w *window) openDataFolder() {
	if w.ctx == nil || w.opts.DataDir == "" {
		return
	}
	dir, err := filepath.Abs(w.opts.DataDir)
	if err != nil {
		dir = w.opts.DataDir
	}
	p := filepath.ToSlash(dir)
	if !strings.HasPrefix(p, "/") {
		p = "/" + p // C:/Users/... on Windows
	}
	runtime.BrowserOpenURL(w.ctx, (&url.URL{Scheme: "file", Path: p}).String())
}
