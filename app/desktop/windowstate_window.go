//go:build desktop || dev || bindings

package desktop

import (
	"context"
	"time"

	"github.com/wailsapp/wails/v2/pkg/runtime"
)

// pollWindowEvery is how often the open window's size and place are read
// and, when they changed, saved: Wails v2 tells Go of no move or resize,
// and a window that dies without closing keeps what was read last.
const pollWindowEvery = 3 * time.Second

// closeReadLimit bounds reading the window's size and place as it closes:
// a window that no longer answers still closes.
const closeReadLimit = 2 * time.Second

// keepWindowState puts the window where it was last time (start), fitted
// to the screens it opens on, then reads its size and place every
// pollWindowEvery until stop is closed.
func (w *window) keepWindowState(ctx context.Context, start windowState, stop <-chan struct{}) {
	w.restoreWindow(ctx, start)
	t := time.NewTicker(pollWindowEvery)
	defer t.Stop()
	var lastErr string
	for {
		select {
		case <-stop:
			return
		case <-t.C:
		}
		err := w.keeper.observe(readWindow(ctx))
		switch {
		case err != nil && err.Error() != lastErr:
			w.log.Warn("save the window's size and place", "err", err)
			lastErr = err.Error()
		case err == nil:
			lastErr = ""
		}
	}
}

// restoreWindow fits the window, which Wails opened at start's size and
// centred (or maximised), to the screens, and moves it to start's place.
// A maximised window is left to Wails and the window manager: it
// un-maximises to start's size.
func (w *window) restoreWindow(ctx context.Context, start windowState) {
	if start.Maximised {
		return
	}
	all, err := runtime.ScreenGetAll(ctx)
	if err != nil {
		w.log.Debug("screens", "err", err)
	}
	screens := make([]screen, 0, len(all))
	for _, s := range all {
		screens = append(screens, screen{Width: s.Size.Width, Height: s.Size.Height, Current: s.IsCurrent, Primary: s.IsPrimary})
	}
	fit := clampWindowState(start, screens)
	if fit.Width != start.Width || fit.Height != start.Height {
		w.log.Debug("window larger than the screen", "saved", [2]int{start.Width, start.Height}, "now", [2]int{fit.Width, fit.Height})
		resizeWindow(ctx, fit.Width, fit.Height)
		if !fit.Placed {
			runtime.WindowCenter(ctx)
		}
	}
	if fit.Placed {
		runtime.WindowSetPosition(ctx, fit.X, fit.Y)
	}
}

// readWindow reads the window's state, size and place.
func readWindow(ctx context.Context) windowGeometry {
	g := windowGeometry{
		Maximised:  runtime.WindowIsMaximised(ctx),
		Minimised:  runtime.WindowIsMinimised(ctx),
		Fullscreen: runtime.WindowIsFullscreen(ctx),
	}
	if !g.Maximised && !g.Minimised && !g.Fullscreen {
		g.Width, g.Height = runtime.WindowGetSize(ctx)
		g.X, g.Y = runtime.WindowGetPosition(ctx)
	}
	return g
}

// saveWindowState reads the window once more as it closes and saves what
// it read. Wails calls it on a goroutine of its own with the window still
// open.
func (w *window) saveWindowState(ctx context.Context) {
	w.stopKeeper()
	read := make(chan windowGeometry, 1)
	go func() { read <- readWindow(ctx) }()
	select {
	case g := <-read:
		if err := w.keeper.observe(g); err != nil {
			w.log.Warn("save the window's size and place", "err", err)
		}
	case <-time.After(closeReadLimit):
		w.log.Warn("the window did not tell its size and place as it closed; keeping what was read before")
	}
}
