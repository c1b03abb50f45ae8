package server

import (
	"context"
	"net/http"

	"github.com/docent/docent/agent"
	"github.com/docent/docent/app/settings"
	"github.com/docent/docent/storage/fault"
)

// Settings is the model-provider configuration the Settings page reads and
// changes (package settings: settings.Live is one). Put applies a change
// at once: the requests after it run on Agent(), rebuilt from the new
// configuration, with no restart. A turn already running finishes on the
// agent it started with.
type Settings interface {
	Get(ctx context.Context) (settings.View, error)
	// Put validates, saves and applies p; it answers like Get.
	Put(ctx context.Context, p settings.Patch) (settings.View, error)
	// Test asks each provider of the configuration p would give (p is not
	// saved) for its models.
	Test(ctx context.Context, p settings.Patch) ([]settings.Check, error)
	// Status is the first-run state of the configuration in effect: is
	// Ollama there, what it offers, which model to use, what to do next
	// (GET /api/setup).
	Status(ctx context.Context) (settings.Status, error)
	// Agent is the agent of the configuration in effect.
	Agent() *agent.Agent
}

// agent is the agent requests run on: the settings' current one when the
// server has settings, else Config.Agent.
func (s *Server) agent() *agent.Agent {
	if s.cfg.Settings != nil {
		return s.cfg.Settings.Agent()
	}
	return s.cfg.Agent
}

func (s *Server) needSettings(w http.ResponseWriter, r *http.Request) bool {
	if s.cfg.Settings != nil {
		return true
	}
	s.writeError(w, r, fault.Errorf(fault.Unavailable, "this server runs without saved settings"))
	return false
}

func (s *Server) getSettings(w http.ResponseWriter, r *http.Request) {
	if !s.needSettings(w, r) {
		return
	}
	v, err := s.cfg.Settings.Get(r.Context())
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, v)
}

func (s *Server) putSettings(w http.ResponseWriter, r *http.Request) {
	if !s.needSettings(w, r) {
		return
	}
	var p settings.Patch
	if err := s.decodeJSON(w, r, &p, false); err != nil {
		s.writeError(w, r, err)
		return
	}
	if err := p.Validate(); err != nil {
		s.writeError(w, r, err)
		return
	}
	v, err := s.cfg.Settings.Put(r.Context(), p)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	s.pipeline.WakeEmbedding() // another embedding model, or provider, may have chunks to embed
	writeJSON(w, http.StatusOK, v)
}

// settingsTest answers POST /api/settings/test.
type settingsTest struct {
	Providers []settings.Check `json:"providers"`
}

func (s *Server) testSettings(w http.ResponseWriter, r *http.Request) {
	if !s.needSettings(w, r) {
		return
	}
	var p settings.Patch
	if err := s.decodeJSON(w, r, &p, true); err != nil {
		s.writeError(w, r, err)
		return
	}
	if err := p.Validate(); err != nil {
		s.writeError(w, r, err)
		return
	}
	checks, err := s.cfg.Settings.Test(r.Context(), p)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, settingsTest{Providers: checks})
}
