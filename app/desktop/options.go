// Package desktop is Docent's desktop window: the same web UI and HTTP
// handler as --serve, shown in a Wails webview without opening a port. The
// window needs GTK and WebKit, so it is built only with the desktop tags; an
// untagged build points the user at --serve instead.
package desktop

import (
	"log/slog"
	"net/http"
)

// Options describe the desktop window.
type Options struct {
	Title string
	// Handler serves the web UI and the HTTP API inside the window.
	Handler http.Handler
	Logger  *slog.Logger
}
