// Package desktop is Docent's desktop window: the same web UI and HTTP
// handler as --serve, shown in a Wails webview without opening a port. The
// window needs GTK and WebKit, so it is built only with the desktop tags; an
// untagged build points the user at --serve instead.
//
// Agent turns stream to the window over SSE, as in a browser: on Linux the
// asset server answers a request through a pipe that WebKit reads as it
// fills, so each event arrives when it is written (checked in the real
// window under Xvfb). Files dropped on the window arrive as paths through
// Wails' native file drop and are imported in Go; WebKitGTK gives the page's
// own drop event no File objects for them, and the UI ignores drops in the
// window, so a drop is imported once.
package desktop

import (
	"context"
	"log/slog"
	"net/http"
)

// Options describe the desktop window.
type Options struct {
	Title string
	// Icon is the window's icon, a PNG (used on Linux; other systems take
	// the icon from the application bundle).
	Icon []byte
	// Handler serves the web UI and the HTTP API inside the window.
	Handler http.Handler
	Logger  *slog.Logger
	// DataDir is the data directory File > Open data folder shows.
	DataDir string
	// Import imports files and folders the way `docent import` does and
	// returns its report (a JSON-able value). The window calls it for
	// File > Import… and for files dropped on it, and then emits
	// ImportedEvent so the UI refreshes. It must be safe to call from any
	// goroutine; the window runs one import at a time.
	Import func(ctx context.Context, paths []string) (any, error)
}

// Runtime events the window emits to the UI.
const (
	// ImportingEvent carries an ImportEvent without a report when an
	// import starts.
	ImportingEvent = "docent:importing"
	// ImportedEvent carries an ImportEvent when an import ends.
	ImportedEvent = "docent:imported"
)

// ImportEvent is the payload of ImportingEvent and ImportedEvent.
type ImportEvent struct {
	Paths  []string `json:"paths"`
	Report any      `json:"report,omitempty"`
	Error  string   `json:"error,omitempty"`
}
