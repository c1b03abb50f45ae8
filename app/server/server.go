// Package server is Docent's HTTP API and the web UI's file server: one
// http.Handler that `docent --serve` listens with and that the desktop shell
// mounts unchanged inside its window.
package server

import (
	"encoding/json"
	"errors"
	"io/fs"
	"log/slog"
	"net/http"

	"github.com/docent/docent/storage"
)

// Config is what the server needs.
type Config struct {
	DB      *storage.DB
	Version string
	// Assets is the built web UI, with index.html at its root.
	Assets fs.FS
	Logger *slog.Logger
}

// Server answers the HTTP API and serves the web UI.
type Server struct {
	cfg Config
	mux *http.ServeMux
}

// New returns the server's handler with every route registered.
func New(cfg Config) *Server {
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	s := &Server{cfg: cfg, mux: http.NewServeMux()}
	s.mux.HandleFunc("GET /api/health", s.handleHealth)
	s.mux.HandleFunc("/api/", s.handleUnknownAPI)
	s.mux.Handle("/", http.FileServerFS(cfg.Assets))
	return s
}

func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) { s.mux.ServeHTTP(w, r) }

// healthResponse answers GET /api/health.
type healthResponse struct {
	OK      bool   `json:"ok"`
	Version string `json:"version"`
}

func (s *Server) handleHealth(w http.ResponseWriter, r *http.Request) {
	if err := s.cfg.DB.Ping(r.Context()); err != nil {
		s.writeError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, healthResponse{OK: true, Version: s.cfg.Version})
}

// handleUnknownAPI keeps mistyped API paths from falling through to the UI's
// index page: an API client gets a JSON 404 it can act on.
func (s *Server) handleUnknownAPI(w http.ResponseWriter, r *http.Request) {
	s.writeError(w, r, storage.Errorf(storage.ErrNotFound, "no API route %s %s", r.Method, r.URL.Path))
}

// errorResponse is the body of every error answer.
type errorResponse struct {
	Error string `json:"error"`
	Code  string `json:"code"`
}

// statusOf maps application error codes to HTTP statuses, in one table.
var statusOf = map[string]int{
	"not_found": http.StatusNotFound,
	"conflict":  http.StatusConflict,
	"invalid":   http.StatusBadRequest,
	"internal":  http.StatusInternalServerError,
}

func (s *Server) writeError(w http.ResponseWriter, r *http.Request, err error) {
	code := storage.ErrorCode(err)
	status, ok := statusOf[code]
	if !ok {
		status = http.StatusInternalServerError
	}
	var appErr *storage.Error
	if !errors.As(err, &appErr) {
		s.cfg.Logger.Error("request failed", "method", r.Method, "path", r.URL.Path, "err", err)
	}
	writeJSON(w, status, errorResponse{Error: storage.ErrorMessage(err), Code: code})
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(status)
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(v) // the status is sent; a failed write means the client left
}
