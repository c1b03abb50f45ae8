//go:build desktop || dev || bindings

package desktop

import (
	"context"
	"fmt"

	"github.com/wailsapp/wails/v2"
	"github.com/wailsapp/wails/v2/pkg/options"
	"github.com/wailsapp/wails/v2/pkg/options/assetserver"
)

// Run opens the window and returns when the user closes it.
func Run(ctx context.Context, opts Options) error {
	err := wails.Run(&options.App{
		Title:     opts.Title,
		Width:     1280,
		Height:    800,
		MinWidth:  720,
		MinHeight: 480,
		// The handler serves the UI's files and the API alike, so the UI makes
		// the same requests in the window as in a browser.
		AssetServer: &assetserver.Options{Handler: opts.Handler},
		OnStartup: func(wctx context.Context) {
			opts.Logger.Info("desktop window started")
		},
	})
	if err != nil {
		return fmt.Errorf("desktop window: %w", err)
	}
	return nil
}
