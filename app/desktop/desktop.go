//go:build desktop || dev || bindings

package desktop

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"path/filepath"
	goruntime "runtime"
	"sync"
	"time"

	"github.com/wailsapp/wails/v2"
	"github.com/wailsapp/wails/v2/pkg/menu"
	"github.com/wailsapp/wails/v2/pkg/options"
	"github.com/wailsapp/wails/v2/pkg/options/assetserver"
	"github.com/wailsapp/wails/v2/pkg/options/linux"
	"github.com/wailsapp/wails/v2/pkg/options/windows"
	"github.com/wailsapp/wails/v2/pkg/runtime"

	"github.com/docent/docent/storage/fault"
)

// importGrace is how long an import or agent turn still running when the
// window closes gets to stop (at its next file, model call or tool) before
// Run returns and the caller closes the database.
const importGrace = 10 * time.Second

// programName names the program to the desktop (the window's class) and to
// WebKitGTK, which keeps the page's storage in a folder of that name.
const programName = "docent"

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

	turns *Turns // bound: the UI's agent turns

	keeper     *windowKeeper // the window's size and place (window.json)
	stopKeeper func()        // stops reading them periodically
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
	w.turns = newTurns(opts.Turns, w.log)
	keeper, err := newWindowKeeper(opts.DataDir)
	if err != nil {
		w.log.Warn("the window's remembered size and place", "err", err)
	}
	w.keeper = keeper
	keeperDone := make(chan struct{})
	w.stopKeeper = sync.OnceFunc(func() { close(keeperDone) })
	defer w.stopKeeper()
	start := keeper.current()
	startState := options.Normal
	if start.Maximised {
		startState = options.Maximised
	}
	// The webview's storage (cookies, caches, local storage) lives in the
	// data directory, beside what it belongs to.
	var webview string
	if opts.DataDir != "" {
		webview = filepath.Join(opts.DataDir, "webview")
		if err := keepWebviewDataIn(webview); err != nil {
			return fmt.Errorf("desktop window: %w", err)
		}
	}

	err = wails.Run(&options.App{
		Title: opts.Title,
		// The size and place of the last run (window.json); the position
		// is set once the window exists (keepWindowState).
		Width:            start.Width,
		Height:           start.Height,
		WindowStartState: startState,
		MinWidth:         minWidth,
		MinHeight:        minHeight,
		Menu:             w.menu(),
		// The handler serves the UI's files and the API alike, so the UI
		// makes the same requests in the window as in a browser.
		AssetServer: &assetserver.Options{Handler: logRequests(opts.Logger, opts.Handler)},
		// Agent turns run through the bound Turns and stream back as
		// runtime events (turns.go); a refused one rejects the UI's
		// promise with the HTTP API's error body.
		Bind:           []any{w.turns},
		ErrorFormatter: errorJSON,
		DragAndDrop:    &options.DragAndDrop{EnableFileDrop: true},
		Linux:          &linux.Options{Icon: opts.Icon, ProgramName: programName},
		Windows:        &windows.Options{WebviewUserDataPath: webview},
		OnStartup: func(wctx context.Context) {
			w.ctx = wctx
			w.turns.start(work, func(channel string, event json.RawMessage) {
				runtime.EventsEmit(wctx, channel, event)
			})
			runtime.OnFileDrop(wctx, func(_, _ int, paths []string) { w.importPaths(paths) })
			go w.keepWindowState(wctx, start, keeperDone)
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
		// Every way the window closes passes here (the close button, Quit,
		// SIGINT and SIGTERM), while the window still answers.
		OnBeforeClose: func(wctx context.Context) (prevent bool) {
			w.saveWindowState(wctx)
			return false
		},
	})
	cancelWork()
	// The caller closes the database when Run returns: let a running
	// import or turn stop first.
	deadline := time.Now().Add(importGrace)
	done := make(chan struct{})
	go func() { w.imports.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(importGrace):
		w.log.Warn("an import is still running at exit; closing anyway")
	}
	if !w.turns.wait(max(time.Until(deadline), 0)) {
		w.log.Warn("an agent turn is still running at exit; closing anyway")
	}
	if err != nil {
		return fmt.Errorf("desktop window: %w", err)
	}
	return nil
}

func (w *window) menu() *menu.Menu {
	return appMenu(goruntime.GOOS, menuActions{
		Import:         w.importDialog,
		OpenDataFolder: w.openDataFolder,
		Quit:           w.quit,
		About:          w.about,
		README:         w.openREADME,
	})
}

func (w *window) quit() {
	if w.ctx != nil {
		runtime.Quit(w.ctx)
	}
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
			ev.Error = fault.ErrorMessage(fault.Report(w.work, w.log, fmt.Sprintf("import %q", paths), err))
		}
		runtime.EventsEmit(w.ctx, ImportedEvent, ev)
	}()
}
