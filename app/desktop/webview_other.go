//go:build (desktop || dev || bindings) && !linux

package desktop

// keepWebviewDataIn does nothing here: WebView2 on Windows takes its folder
// from options.Windows.WebviewUserDataPath, and WKWebView on macOS keeps
// its storage per application bundle.
func keepWebviewDataIn(dir string) error { return nil }
