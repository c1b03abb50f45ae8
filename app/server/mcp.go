package server

import (
	"context"
	"net/http"

	"github.com/docent/docent/app/mcp"
	"github.com/docent/docent/app/settings"
	"github.com/docent/docent/storage/fault"
)

// /mcp is Docent as an MCP server over Streamable HTTP (package app/mcp):
// the agent's tools, the documents, schemas and prompts for MCP clients
// that reach `docent --serve` over the network, behind the same token and
// Origin and Host checks as every API route (access.go). The Settings
// switch (settings.SettingMCPReadOnly, GET and PUT /api/settings/mcp)
// makes it read-only.

// newMCP is the /mcp handler on the server's agent, which follows the
// settings as the other routes' does.
func (s *Server) newMCP() http.Handler {
	return mcp.Handler(mcp.Options{
		Agent: s.agent,
		ReadOnly: func(ctx context.Context) bool {
			return settings.MCPReadOnly(ctx, s.cfg.DB, s.cfg.Logger)
		},
		Edge: "http", Version: s.cfg.Version, Logger: s.cfg.Logger,
		ModelCall: func(ctx context.Context) error {
			if msg, _ := s.admitModelCall(ctx); msg != "" {
				return fault.Errorf(codeRateLimited, "%s", msg)
			}
			return nil
		},
	})
}

func (s *Server) handleMCP(w http.ResponseWriter, r *http.Request) {
	s.mcp.ServeHTTP(w, r)
}

// mcpSettings answers GET and PUT /api/settings/mcp.
type mcpSettings struct {
	// ReadOnly makes /mcp list and run only the read-only tools.
	ReadOnly bool `json:"read_only"`
}

func (s *Server) getMCPSettings(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, http.StatusOK, mcpSettings{ReadOnly: settings.MCPReadOnly(r.Context(), s.cfg.DB, s.cfg.Logger)})
}

// mcpSettingsBody is the body of PUT /api/settings/mcp; a field left out
// keeps its saved value.
type mcpSettingsBody struct {
	ReadOnly *bool `json:"read_only,omitempty"`
}

func (s *Server) putMCPSettings(w http.ResponseWriter, r *http.Request) {
	var body mcpSettingsBody
	if err := s.decodeJSON(w, r, &body, false); err != nil {
		s.writeError(w, r, err)
		return
	}
	if body.ReadOnly != nil {
		if err := settings.SetMCPReadOnly(r.Context(), s.cfg.DB, *body.ReadOnly); err != nil {
			s.writeError(w, r, err)
			return
		}
	}
	s.getMCPSettings(w, r)
}
