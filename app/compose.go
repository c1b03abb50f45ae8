// Package app is the composition root: the one place where the store, the
// provider settings, the agent and the HTTP server are put together (Root),
// and where the data directory is (config.go). The edges around it are
// packages of their own: the command line (app/cli, which main calls), the
// HTTP API (app/server) and the desktop window (app/desktop); the engines
// they use are app/pipeline (the stages of every document that arrives,
// in their order), app/ingest (with the PDF reader and OCR inside) and
// app/export. Dependencies point one way: main -> app/cli -> app -> the
// server, the engines, agent and storage. The command line depends on the
// root for what it composes, and opens the window and --serve on it; the
// root knows no edge but the server it builds.
package app

import (
	"context"
	"log/slog"
	"path/filepath"

	"github.com/docent/docent/agent"
	"github.com/docent/docent/agent/provider"
	"github.com/docent/docent/app/ingest"
	"github.com/docent/docent/app/server"
	"github.com/docent/docent/app/settings"
	"github.com/docent/docent/frontend"
	"github.com/docent/docent/storage"
)

// Root is what the commands, `docent --serve` and the desktop window are
// made of: the data directory, the store in it, opened on first use so that
// `docent --help` never touches the disk, and the provider settings with
// the agent on them (Settings).
type Root struct {
	DataDir string
	// Model is the default model: --model, else DOCENT_MODEL.
	Model string
	// EmbedModel is the embedding model: --embed-model, else
	// DOCENT_EMBED_MODEL; "" leaves the Settings page's.
	EmbedModel string
	Logger     *slog.Logger

	db       *storage.DB
	meter    *agent.UsageMeter // meters every model call (usage ledger, limits)
	settings *settings.Live    // the provider settings and agent (Settings)
}

// Store opens the database in the data directory on first use.
func (r *Root) Store(ctx context.Context) (*storage.DB, error) {
	if r.db != nil {
		return r.db, nil
	}
	db, err := storage.Open(ctx, filepath.Join(r.DataDir, DatabaseFile))
	if err != nil {
		return nil, err
	}
	r.db = db
	return db, nil
}

// Close releases what the root opened.
func (r *Root) Close() error {
	if r.db == nil {
		return nil
	}
	err := r.db.Close()
	r.db, r.settings, r.meter = nil, nil, nil
	return err
}

// Settings returns the provider settings in effect and the agent on them,
// made on first use over the store: an environment variable that is set
// (OLLAMA_HOST, OPENAI_BASE_URL, OPENAI_API_KEY; --model or DOCENT_MODEL
// for the default model) wins, then what the app's Settings page saved,
// then the defaults (settings.Resolve). The DOCENT_* provider limits come
// from the environment alone. This is the one place the commands read
// them.
func (r *Root) Settings(ctx context.Context) (*settings.Live, error) {
	if r.settings != nil {
		return r.settings, nil
	}
	db, err := r.Store(ctx)
	if err != nil {
		return nil, err
	}
	envCfg, err := provider.ConfigFromEnv()
	if err != nil {
		return nil, err
	}
	live, err := settings.NewLiveEmbed(ctx, db, envCfg, r.Model, r.EmbedModel, func(setup settings.Setup) *agent.Agent {
		return agentOn(db, setup, r.usageMeter(db), r.Logger)
	})
	if err != nil {
		return nil, err
	}
	r.settings = live
	return live, nil
}

// usageMeter is the process's one meter of model calls, kept across
// changes of the settings so that calls held back wake when any ends.
func (r *Root) usageMeter(db *storage.DB) *agent.UsageMeter {
	if r.meter == nil {
		// The calls are priced from the list built in with the prices
		// set in Settings, read at each call (agent.Prices).
		p := &agent.Prices{DB: db, Logger: r.Logger}
		r.meter = &agent.UsageMeter{DB: db, Cost: p.Cost, Logger: r.Logger}
	}
	return r.meter
}

// agentOn builds the providers and the agent on a provider setup: the one
// place that does, for the commands and for the server (whose settings
// call it again whenever they change). Every model call of its providers
// goes through meter. The agent and its extractor log to the process's
// logger.
func agentOn(db *storage.DB, setup settings.Setup, meter provider.Meter, logger *slog.Logger) *agent.Agent {
	reg := provider.NewRegistry(setup.Config).Metered(meter)
	ensureWords := func(ctx context.Context, documentID string) error {
		return ingest.EnsureWords(ctx, db, documentID, nil)
	}
	return &agent.Agent{
		DB: db, Providers: reg, DefaultModel: setup.DefaultModel, Logger: logger,
		Extractor: &agent.Extractor{DB: db, Providers: reg, DefaultModel: setup.DefaultModel, EnsureWords: ensureWords, Logger: logger},
		Embedder:  &agent.Embedder{DB: db, Providers: reg, Model: setup.EmbedModel, Logger: logger},
	}
}

// ServerConfig is what --serve and the desktop window share: the store,
// the UI, and the live settings with the agent on them (Settings), which
// the Settings page changes. The callers add their own access rules.
func (r *Root) ServerConfig(ctx context.Context) (server.Config, error) {
	db, err := r.Store(ctx)
	if err != nil {
		return server.Config{}, err
	}
	live, err := r.Settings(ctx)
	if err != nil {
		return server.Config{}, err
	}
	return server.Config{
		DB: db, Version: Build().Version, Assets: frontend.Assets(), Logger: r.Logger,
		Agent: live.Agent(), Settings: live,
	}, nil
}

// NewServer builds the handler the desktop window mounts. It has no access
// token: the window serves it in-process, without a socket anyone could
// reach. It is not started: the caller calls Start, and Close before the
// store closes.
func (r *Root) NewServer(ctx context.Context) (*server.Server, error) {
	cfg, err := r.ServerConfig(ctx)
	if err != nil {
		return nil, err
	}
	return server.New(cfg), nil
}
