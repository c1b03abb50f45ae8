//go:build (desktop || dev || bindings) && !linux

package desktop

import (
	"context"

	"github.com/wailsapp/wails/v2/pkg/runtime"
)

// resizeWindow resizes the window (Wails takes the call to the window's
// thread on Windows and macOS).
func resizeWindow(ctx context.Context, width, height int) {
	runtime.WindowSetSize(ctx, width, height)
}
