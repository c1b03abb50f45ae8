package desktop

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestWindowStateRoundTrip(t *testing.T) {
	for _, s := range []windowState{
		{Width: 1000, Height: 700, X: 40, Y: 30, Placed: true},
		{Width: 1400, Height: 900, X: 0, Y: 0, Placed: true, Maximised: true},
		{Width: 900, Height: 600}, // never placed: opens centred
	} {
		path := filepath.Join(t.TempDir(), windowStateFile)
		if err := saveWindowState(path, s); err != nil {
			t.Fatal(err)
		}
		got, err := loadWindowState(path)
		if err != nil {
			t.Fatal(err)
		}
		if got != s {
			t.Errorf("saved %+v, loaded %+v", s, got)
		}
	}
}

func TestWindowStateFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, windowStateFile)
	if err := saveWindowState(path, windowState{Width: 1000, Height: 700, X: 5, Y: 6, Placed: true}); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var f map[string]any
	if err := json.Unmarshal(b, &f); err != nil {
		t.Fatalf("window.json is not JSON: %v\n%s", err, b)
	}
	want := map[string]any{"width": 1000.0, "height": 700.0, "x": 5.0, "y": 6.0, "maximised": false}
	for k, v := range want {
		if f[k] != v {
			t.Errorf("%s = %v, want %v (file %s)", k, f[k], v, b)
		}
	}
	// Written atomically: nothing but the file itself is left behind.
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 1 || entries[0].Name() != windowStateFile {
		var names []string
		for _, e := range entries {
			names = append(names, e.Name())
		}
		t.Errorf("the data folder holds %v, want only %s", names, windowStateFile)
	}
	if fi, err := os.Stat(path); err == nil && fi.Mode().Perm()&0o077 != 0 {
		t.Errorf("window.json is readable by others: %v", fi.Mode())
	}

	// Unplaced: no x and y in the file.
	if err := saveWindowState(path, windowState{Width: 1000, Height: 700}); err != nil {
		t.Fatal(err)
	}
	b, _ = os.ReadFile(path)
	if strings.Contains(string(b), `"x"`) || strings.Contains(string(b), `"y"`) {
		t.Errorf("an unplaced window's file has a position:\n%s", b)
	}
}

func TestWindowStateMissingOrDamaged(t *testing.T) {
	dir := t.TempDir()
	got, err := loadWindowState(filepath.Join(dir, "none.json"))
	if err != nil || got != defaultWindowState() {
		t.Errorf("a missing file: %+v, %v; want the defaults and no error", got, err)
	}
	for name, content := range map[string]string{
		"truncated": `{"width": 1000, "hei`,
		"not JSON":  "\x00\x01garbage",
		"a list":    `[1, 2]`,
		"strings":   `{"width": "wide"}`,
	} {
		path := filepath.Join(dir, windowStateFile)
		if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		got, err := loadWindowState(path)
		if err == nil {
			t.Errorf("%s: no error", name)
		}
		if got != defaultWindowState() {
			t.Errorf("%s: %+v, want the defaults", name, got)
		}
	}
	// Numbers that no window has are bounded, not trusted.
	path := filepath.Join(dir, windowStateFile)
	os.WriteFile(path, []byte(`{"width": -5, "height": 0, "x": 99999999, "y": -99999999}`), 0o600)
	got, err = loadWindowState(path)
	if err != nil {
		t.Fatal(err)
	}
	want := windowState{Width: defaultWidth, Height: defaultHeight, X: maxSide, Y: -maxSide, Placed: true}
	if got != want {
		t.Errorf("absurd numbers: %+v, want %+v", got, want)
	}
	// Only x, or only y, is no position.
	os.WriteFile(path, []byte(`{"width": 1000, "height": 700, "x": 10}`), 0o600)
	if got, _ := loadWindowState(path); got.Placed {
		t.Errorf("x without y: %+v is placed", got)
	}
}

func TestClampWindowState(t *testing.T) {
	laptop := []screen{{Width: 1366, Height: 768, Current: true, Primary: true}}
	twoSideBySide := []screen{{Width: 1920, Height: 1080, Primary: true}, {Width: 2560, Height: 1440, Current: true}}
	tests := []struct {
		name    string
		in      windowState
		screens []screen
		want    windowState
	}{
		{"fits", windowState{Width: 1000, Height: 700, X: 100, Y: 50, Placed: true}, laptop,
			windowState{Width: 1000, Height: 700, X: 100, Y: 50, Placed: true}},
		{"too small", windowState{Width: 200, Height: 100, X: 10, Y: 10, Placed: true}, laptop,
			windowState{Width: minWidth, Height: minHeight, X: 10, Y: 10, Placed: true}},
		{"larger than the screen", windowState{Width: 2400, Height: 1300, X: 0, Y: 0, Placed: true}, laptop,
			windowState{Width: 1366, Height: 768, X: 0, Y: 0, Placed: true}},
		{"off the right and bottom", windowState{Width: 1000, Height: 700, X: 3000, Y: 2000, Placed: true}, laptop,
			windowState{Width: 1000, Height: 700, X: 366, Y: 68, Placed: true}},
		{"partly off the left and top", windowState{Width: 1000, Height: 700, X: -300, Y: -20, Placed: true}, laptop,
			windowState{Width: 1000, Height: 700, X: 0, Y: 0, Placed: true}},
		{"screen smaller than the least size", windowState{Width: 1000, Height: 700, X: 50, Y: 50, Placed: true},
			[]screen{{Width: 640, Height: 400, Current: true}},
			windowState{Width: minWidth, Height: minHeight, X: 0, Y: 0, Placed: true}},
		{"unplaced stays unplaced", windowState{Width: 5000, Height: 5000, X: 7, Y: 7}, laptop,
			windowState{Width: 1366, Height: 768}},
		{"on the second screen", windowState{Width: 2000, Height: 1200, X: 2200, Y: 100, Placed: true}, twoSideBySide,
			windowState{Width: 2000, Height: 1200, X: 2200, Y: 100, Placed: true}},
		{"second screen gone", windowState{Width: 2000, Height: 1200, X: 2200, Y: 100, Placed: true}, laptop,
			windowState{Width: 1366, Height: 768, X: 0, Y: 0, Placed: true}},
		{"maximised keeps its normal size", windowState{Width: 1000, Height: 700, X: 20, Y: 20, Placed: true, Maximised: true}, laptop,
			windowState{Width: 1000, Height: 700, X: 20, Y: 20, Placed: true, Maximised: true}},
		{"no size", windowState{X: 10, Y: 10, Placed: true}, nil,
			windowState{Width: defaultWidth, Height: defaultHeight, X: 10, Y: 10, Placed: true}},
		{"no screens: bounded only", windowState{Width: 99999, Height: 300, X: -99999, Y: 12, Placed: true}, nil,
			windowState{Width: maxSide, Height: minHeight, X: -maxSide, Y: 12, Placed: true}},
		{"screens of no size are none", windowState{Width: 3000, Height: 2000, X: 5000, Y: 10, Placed: true}, []screen{{}},
			windowState{Width: 3000, Height: 2000, X: 5000, Y: 10, Placed: true}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := clampWindowState(tt.in, tt.screens); got != tt.want {
				t.Errorf("clampWindowState(%+v) = %+v, want %+v", tt.in, got, tt.want)
			}
		})
	}
}

func TestOpeningScreen(t *testing.T) {
	a, b, c := screen{Width: 1, Height: 1}, screen{Width: 2, Height: 2, Primary: true}, screen{Width: 3, Height: 3, Current: true}
	for _, tt := range []struct {
		screens []screen
		want    screen
		ok      bool
	}{
		{[]screen{a, b, c}, c, true},
		{[]screen{a, b}, b, true},
		{[]screen{a}, a, true},
		{[]screen{{Current: true}, a}, a, true},
		{nil, screen{}, false},
	} {
		got, ok := openingScreen(tt.screens)
		if got != tt.want || ok != tt.ok {
			t.Errorf("openingScreen(%+v) = %+v, %v; want %+v, %v", tt.screens, got, ok, tt.want, tt.ok)
		}
	}
}

func TestObserveWindow(t *testing.T) {
	prev := windowState{Width: 1000, Height: 700, X: 10, Y: 20, Placed: true}
	normal := windowGeometry{Width: 1100, Height: 750, X: 30, Y: 40}
	if got, want := observeWindow(prev, normal), (windowState{Width: 1100, Height: 750, X: 30, Y: 40, Placed: true}); got != want {
		t.Errorf("normal: %+v, want %+v", got, want)
	}
	// Maximised: the normal size and place stay, to un-maximise to.
	maxed := observeWindow(prev, windowGeometry{Width: 1920, Height: 1050, Maximised: true})
	if want := (windowState{Width: 1000, Height: 700, X: 10, Y: 20, Placed: true, Maximised: true}); maxed != want {
		t.Errorf("maximised: %+v, want %+v", maxed, want)
	}
	if got := observeWindow(maxed, normal); got.Maximised || got.Width != 1100 {
		t.Errorf("un-maximised: %+v", got)
	}
	for name, g := range map[string]windowGeometry{
		"minimised":   {Width: 10, Height: 10, Minimised: true},
		"full screen": {Width: 1920, Height: 1080, Fullscreen: true},
		"no size yet": {},
	} {
		if got := observeWindow(prev, g); got != prev {
			t.Errorf("%s: %+v, want %+v unchanged", name, got, prev)
		}
	}
}

func TestWindowKeeper(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, windowStateFile)
	k, err := newWindowKeeper(dir)
	if err != nil {
		t.Fatal(err)
	}
	if k.current() != defaultWindowState() {
		t.Errorf("first run: %+v, want the defaults", k.current())
	}
	// Nothing observed, nothing written.
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Errorf("window.json exists before anything was observed: %v", err)
	}
	if err := k.observe(windowGeometry{Width: 1000, Height: 700, X: 5, Y: 6}); err != nil {
		t.Fatal(err)
	}
	fi1, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	// The same again: the file is not rewritten (a rewrite is a new inode).
	if err := k.observe(windowGeometry{Width: 1000, Height: 700, X: 5, Y: 6}); err != nil {
		t.Fatal(err)
	}
	fi2, _ := os.Stat(path)
	if !os.SameFile(fi1, fi2) {
		t.Error("an unchanged state was written again")
	}
	k.observe(windowGeometry{Width: 1000, Height: 700, Maximised: true})

	// The next run starts where this one ended.
	k2, err := newWindowKeeper(dir)
	if err != nil {
		t.Fatal(err)
	}
	if want := (windowState{Width: 1000, Height: 700, X: 5, Y: 6, Placed: true, Maximised: true}); k2.current() != want {
		t.Errorf("next run: %+v, want %+v", k2.current(), want)
	}

	// A damaged file: the defaults, an error to log, and the next
	// observation replaces the file even when it matches the defaults.
	os.WriteFile(path, []byte("{"), 0o600)
	k3, err := newWindowKeeper(dir)
	if err == nil {
		t.Error("a damaged window.json gave no error")
	}
	if k3.current() != defaultWindowState() {
		t.Errorf("damaged: %+v, want the defaults", k3.current())
	}
	if err := k3.observe(windowGeometry{Maximised: true}); err != nil {
		t.Fatal(err)
	}
	if got, err := loadWindowState(path); err != nil || !got.Maximised {
		t.Errorf("after the damaged file: %+v, %v", got, err)
	}

	// No data directory: nothing is kept anywhere.
	k4, err := newWindowKeeper("")
	if err != nil {
		t.Fatal(err)
	}
	if err := k4.observe(windowGeometry{Width: 900, Height: 600}); err != nil {
		t.Fatal(err)
	}
	if k4.current().Width != 900 {
		t.Errorf("without a data directory the state is still tracked: %+v", k4.current())
	}
}

func TestWindowKeeperSaveError(t *testing.T) {
	// The data directory is gone: observe says so and tries again next time.
	dir := filepath.Join(t.TempDir(), "gone")
	k, err := newWindowKeeper(dir)
	if err != nil {
		t.Fatal(err)
	}
	if err := k.observe(windowGeometry{Width: 1000, Height: 700}); err == nil {
		t.Fatal("no error saving into a missing folder")
	}
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := k.observe(windowGeometry{Width: 1000, Height: 700}); err != nil {
		t.Fatal(err)
	}
	if got, err := loadWindowState(filepath.Join(dir, windowStateFile)); err != nil || got.Width != 1000 {
		t.Errorf("after the retry: %+v, %v", got, err)
	}
}
