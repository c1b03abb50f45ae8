package app

import (
	"context"
	"log/slog"

	"github.com/docent/docent/agent"
	"github.com/docent/docent/agent/provider"
	"github.com/docent/docent/app/ingest"
	"github.com/docent/docent/app/server"
	"github.com/docent/docent/app/settings"
	"github.com/docent/docent/frontend"
	"github.com/docent/docent/storage"
)

// This file is the composition root: the one place where the store, the
// provider settings and the agent are put together, for the commands, for
// `docent --serve` and for the desktop window alike.

// Settings returns the provider settings in effect and the agent on them,
// made on first use over the store: an environment variable that is set
// (OLLAMA_HOST, OPENAI_BASE_URL, OPENAI_API_KEY; --model or DOCENT_MODEL
// for the default model) wins, then what the app's Settings page saved,
// then the defaults (settings.Resolve). The DOCENT_* provider limits come
// from the environment alone. This is the one place the commands read
// them.
func (e *Env) Settings(ctx context.Context) (*settings.Live, error) {
	if e.settings != nil {
		return e.settings, nil
	}
	db, err := e.Store(ctx)
	if err != nil {
		return nil, err
	}
	envCfg, err := provider.ConfigFromEnv()
	if err != nil {
		return nil, err
	}
	live, err := settings.NewLive(ctx, db, envCfg, e.Model, func(setup settings.Setup) *agent.Agent {
		return agentOn(db, setup, e.Logger)
	})
	if err != nil {
		return nil, err
	}
	e.settings = live
	return live, nil
}

// Agent returns the agent a command that needs a model runs: the one on
// the provider settings in effect (Settings), with the recommended model
// adopted as the default when none is set (agentWithModel).
func (e *Env) Agent(ctx context.Context) (*agent.Agent, error) {
	if err := agentWithModel(ctx, e); err != nil {
		return nil, err
	}
	return e.settings.Agent(), nil
}

// agentOn builds the providers and the agent on a provider setup: the one
// place that does, for the commands and for the server (whose settings
// call it again whenever they change). The agent and its extractor log to
// the process's logger.
func agentOn(db *storage.DB, setup settings.Setup, logger *slog.Logger) *agent.Agent {
	reg := provider.NewRegistry(setup.Config)
	ensureWords := func(ctx context.Context, documentID string) error {
		return ingest.EnsureWords(ctx, db, documentID, nil)
	}
	return &agent.Agent{
		DB: db, Providers: reg, DefaultModel: setup.DefaultModel, Logger: logger,
		Extractor: &agent.Extractor{DB: db, Providers: reg, DefaultModel: setup.DefaultModel, EnsureWords: ensureWords, Logger: logger},
	}
}

// serverConfig is what --serve and the desktop window share: the store,
// the UI, and the live settings with the agent on them (Settings), which
// the Settings page changes. The callers add their own access rules.
func serverConfig(ctx context.Context, env *Env) (server.Config, error) {
	db, err := env.Store(ctx)
	if err != nil {
		return server.Config{}, err
	}
	live, err := env.Settings(ctx)
	if err != nil {
		return server.Config{}, err
	}
	return server.Config{
		DB: db, Version: Version, Assets: frontend.Assets(), Logger: env.Logger,
		Agent: live.Agent(), Settings: live,
	}, nil
}

// newServer builds the handler the desktop window mounts. It has no access
// token: the window serves it in-process, without a socket anyone could
// reach. It is not started: the caller calls Start, and Close before the
// store closes.
func newServer(ctx context.Context, env *Env) (*server.Server, error) {
	cfg, err := serverConfig(ctx, env)
	if err != nil {
		return nil, err
	}
	return server.New(cfg), nil
}
