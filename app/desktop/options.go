// Package desktop is Docent's desktop window: the same web UI and HTTP
// handler as --serve, shown in a Wails webview without opening a port. The
// window needs GTK and WebKit, so it is built only with the desktop tags; an
// untagged build points the user at --serve instead.
//
// Agent turns do not stream through the asset server, which streams a
// response body on Linux but is not promised to elsewhere. The UI calls the
// bound Turns (window.go.desktop.Turns.Chat, .Approve and .Stop), which run
// the same use case as the HTTP API's chat routes, and gets each event as a
// Wails runtime event on a channel it names, with the JSON that the SSE
// stream would send (turns.go). Everything else is the HTTP API.
//
// A data directory has one window at a time (LockDataDir), and the
// webview's storage lives inside it. Files dropped on the window arrive as
// paths through Wails' native file drop and are imported in Go; WebKitGTK
// gives the page's own drop event no File objects for them, and the UI
// ignores drops in the window, so a drop is imported once.
//
// The menu (menu.go) is File (Import…, Open data folder, Quit), Edit on
// macOS, and Help: About Docent (the version and the data folder), Open
// data folder, and Docent README, which opens the README.md found beside
// the binary or says where it is (help.go). The window's size and place
// are kept in DataDir/window.json (windowstate.go): read every few seconds
// and as the window closes, and restored, fitted to the screen, when it
// opens.
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
	// DataDir is the data directory that Open data folder (in the File and
	// Help menus) shows and About names. The webview keeps its storage in
	// DataDir/webview, and the window its size and place in
	// DataDir/window.json.
	DataDir string
	// Version is Docent's version for Help > About; "" asks Handler (GET
	// /api/health), which knows the version `docent --version` prints.
	Version string
	// Turns runs the agent's chat and approve turns for the UI (the
	// server behind Handler); nil refuses them.
	Turns TurnRunner
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
	// Paths are the files and folders dropped or picked.
	Paths []string `json:"paths"`
	// Report is what Options.Import returned (`docent import --json`'s
	// report), once the import ends.
	Report any `json:"report,omitempty" ts:"ImportReport"`
	// Error is why the import failed as a whole.
	Error string `json:"error,omitempty"`
}
