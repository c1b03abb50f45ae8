package desktop

import (
	"context"
	"log/slog"
	"net/http"
	"strings"
	"time"
)

// logRequests logs every API request at debug level once its handler
// returns: method, path, status and duration. With DOCENT_LOG_LEVEL=debug
// this shows what the UI in the window asks for (the window has no devtools
// in a production build); the smoke test reads it.
func logRequests(logger *slog.Logger, next http.Handler) http.Handler {
	if logger == nil || !logger.Enabled(context.Background(), slog.LevelDebug) {
		return next
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !strings.HasPrefix(r.URL.Path, "/api/") {
			next.ServeHTTP(w, r)
			return
		}
		start := time.Now()
		sw := &statusWriter{ResponseWriter: w}
		next.ServeHTTP(sw, r)
		status := sw.status
		if status == 0 {
			status = http.StatusOK
		}
		logger.Debug("request", "method", r.Method, "path", r.URL.Path, "status", status,
			"duration", time.Since(start).Round(time.Millisecond))
	})
}

// statusWriter remembers the status a handler wrote. Unwrap lets
// http.ResponseController reach the asset server's writer underneath.
type statusWriter struct {
	http.ResponseWriter
	status int
}

func (w *statusWriter) WriteHeader(code int) {
	if w.status == 0 {
		w.status = code
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *statusWriter) Write(b []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	return w.ResponseWriter.Write(b)
}

func (w *statusWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }
