package cli

import (
	"context"
	"log/slog"
	"strings"
	"sync"

	"github.com/docent/docent/app/desktop"
	"github.com/docent/docent/app/pipeline"
	"github.com/docent/docent/build"
	"github.com/docent/docent/storage/envvar"
)

// runDesktop opens the desktop window on the same data directory as the
// command line, serving the same handler as --serve in-process (no port,
// so no access token), and running agent turns through the same server's
// use cases. One window at a time has a data directory: a second one is
// refused before it opens anything.
func runDesktop(ctx context.Context, env *Env) error {
	if level, ok := logLevelFromEnv(); ok {
		env.Logger = slog.New(slog.NewTextHandler(env.IO.Err, &slog.HandlerOptions{Level: level}))
	}
	release, err := desktop.LockDataDir(env.DataDir)
	if err != nil {
		return err
	}
	defer release()
	handler, err := env.NewServer(ctx)
	if err != nil {
		return err
	}
	handler.Start(ctx) // the auto-create queue and the sweep, until the window closes
	defer handler.Close()
	// Whether a model is set up is checked beside the window opening, not
	// before it: a slow OLLAMA_HOST must not delay it. The check ends (within
	// its time limit) before the store closes.
	if live, err := env.Settings(ctx); err == nil {
		var hint sync.WaitGroup
		hint.Go(func() { printFirstRunHint(ctx, env, live) })
		defer hint.Wait()
	}
	return desktop.Run(ctx, desktop.Options{
		Title:   "Docent",
		Icon:    build.AppIcon,
		Handler: handler,
		Turns:   handler,
		Logger:  env.Logger,
		DataDir: env.DataDir,
		Import: func(ctx context.Context, paths []string) (any, error) {
			db, err := env.Store(ctx)
			if err != nil {
				return nil, err
			}
			// The window's pipeline: its background stages (OCR,
			// embedding) take the dropped files on.
			imp, err := importPaths(ctx, env, db, handler.Pipeline(), paths, nil, pipeline.Options{})
			if err != nil {
				return nil, err
			}
			imp.printSummary(env)
			return imp.report, nil
		},
	})
}

// logLevelFromEnv reads DOCENT_LOG_LEVEL (debug, info, warn, error) for the
// desktop app, whose log is its only window onto what the UI does (with
// debug it logs every API request the window makes), and for `docent
// --serve` (with debug, a client's first failed TLS handshake).
func logLevelFromEnv() (slog.Level, bool) {
	s := strings.TrimSpace(envvar.Get(envvar.LogLevel))
	if s == "" {
		return 0, false
	}
	var level slog.Level
	if err := level.UnmarshalText([]byte(s)); err != nil {
		return 0, false
	}
	return level, true
}
