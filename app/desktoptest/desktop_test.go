// Package desktoptest is the desktop smoke test: the binary built with the
// desktop tags, run under Xvfb, shows its window, answers the UI's first
// API requests, imports a file dropped on it once, saves screenshots, and
// stops on SIGTERM.
//
// It needs Xvfb, xdotool, imagemagick's import, gcc and the GTK 3 and
// WebKitGTK 4.1 development packages; it skips without them, and fails
// without them when CI=true.
package desktoptest

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/docent/docent/agent/modeltest"
	"github.com/docent/docent/app/internal/artifacts"
)

func TestDesktopSmoke(t *testing.T) {
	requireTools(t)
	root := artifacts.RepoRoot()
	if _, err := os.Stat(filepath.Join(root, "frontend", "dist", "index.html")); err != nil {
		t.Fatalf("frontend/dist is missing: run `cd frontend && npm run build` first (%v)", err)
	}
	tmp := t.TempDir()
	bin := filepath.Join(tmp, "docent")
	run(t, root, "go", "build", "-tags", "desktop,production,webkit2_41", "-o", bin, ".")
	dragSource := buildDragSource(t, tmp)

	model := modeltest.New(t)
	display := startXvfb(t)
	dataDir := filepath.Join(tmp, "data")
	app := startDesktop(t, bin, display, dataDir, "OLLAMA_HOST="+model.OllamaURL(), "DOCENT_MODEL=ollama/qwen3:8b")
	shots := artifacts.Dir(t)

	// (a) The window appears: a visible X window titled Docent.
	win := waitForWindow(t, display, "^Docent$", app)
	t.Logf("window %s", win)

	// (b) The UI loaded and its first API calls were answered.
	app.waitFor(t, regexp.MustCompile(`msg=request method=GET path=/api/documents status=200`), 60*time.Second)
	screenshotRendered(t, display, filepath.Join(shots, "desktop.png"))

	// A file dragged from another application onto the window is imported
	// once, through the native drop, and the list refreshes.
	doc := filepath.Join(tmp, "dropped-note.md")
	if err := os.WriteFile(doc, []byte("# Dropped note\n\nInvoice 42, total 17.50 EUR.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	startProcess(t, dragSource, []string{"DISPLAY=" + display}, doc)
	waitForWindow(t, display, "^DocentDragSource$", app)
	geo := windowGeometry(t, display, win)
	listsBefore := app.count(`path=/api/documents status=200`)
	drag(t, display, [2]int{1000, 100}, [2]int{geo.x + geo.w/2, geo.y + geo.h/2})
	app.waitFor(t, regexp.MustCompile(`imported 1, already there 0, failed 0`), 30*time.Second)
	deadline := time.Now().Add(15 * time.Second)
	for app.count(`path=/api/documents status=200`) <= listsBefore {
		if time.Now().After(deadline) {
			t.Fatalf("the UI did not fetch the documents again after the import\n%s", app.Log())
		}
		time.Sleep(100 * time.Millisecond)
	}
	time.Sleep(time.Second) // let the list render
	screenshotRendered(t, display, filepath.Join(shots, "desktop-dropped.png"))

	// Agent turns stream into the window over SSE through the asset
	// server: open the document, ask, and watch the answer grow on screen
	// while its request is still open. (Coordinates are those of the
	// 1280×800 window at Xvfb's fixed layout.)
	click(t, display, geo.x+200, geo.y+340) // the document's row
	app.waitFor(t, regexp.MustCompile(`path=/api/documents/doc_\w+/chat/threads status=200`), 30*time.Second)
	screenshotRendered(t, display, filepath.Join(shots, "desktop-document.png"))
	answer := strings.Repeat("The note is invoice 42 and its total is 17.50 EUR. ", 6)
	model.Enqueue(modeltest.Reply{Text: answer, ChunkRunes: 12, TokenDelay: 400 * time.Millisecond})
	click(t, display, geo.x+950, geo.y+764) // the chat input
	xdo(t, display, "type", "--delay", "20", "What is this?")
	xdo(t, display, "key", "Return")
	chatDone := regexp.MustCompile(`method=POST path=/api/documents/doc_\w+/chat status=200`)
	// The answer darkens the messages panel as it arrives: take frames
	// until the turn's request ends and look for a run of frames, each
	// darker than the last, all taken while the request was still open.
	// (A buffered body would paint the whole answer at once, at the end.)
	frames := t.TempDir()
	var ink []float64
	for i := 0; ; i++ {
		if i > 200 {
			t.Fatalf("the chat request did not finish\n%s", app.Log())
		}
		path := filepath.Join(frames, fmt.Sprintf("%03d.png", i))
		screenshot(t, display, path)
		if chatDone.MatchString(app.Log()) {
			break // this frame may show the end, not the middle
		}
		ink = append(ink, inkIn(t, path, geo.x+700, geo.y+270, 560, 420))
		time.Sleep(200 * time.Millisecond)
	}
	runEnd, runLen := longestRise(ink)
	t.Logf("ink in the messages panel while the turn streamed: %.4f", ink)
	if runLen < 4 {
		t.Errorf("the answer did not grow on screen while it streamed (ink %.4f): is the event stream buffered in the webview?", ink)
	} else {
		mid := runEnd - runLen/2
		data, err := os.ReadFile(filepath.Join(frames, fmt.Sprintf("%03d.png", mid)))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(shots, "desktop-streaming.png"), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	screenshotRendered(t, display, filepath.Join(shots, "desktop-answered.png"))

	// Quit: SIGTERM stops the app cleanly.
	app.stop(t)
	if n := app.count(`msg=importing `); n != 1 {
		t.Errorf("the drop started %d imports, want 1\n%s", n, app.Log())
	}
	out := run(t, root, bin, "--data-dir", dataDir, "documents", "--json")
	var list struct {
		Documents []struct {
			Name string `json:"name"`
		} `json:"documents"`
	}
	if err := json.Unmarshal([]byte(out), &list); err != nil {
		t.Fatalf("documents --json: %v\n%s", err, out)
	}
	if len(list.Documents) != 1 || list.Documents[0].Name != "dropped-note.md" {
		t.Errorf("documents after the drop = %+v, want dropped-note.md once", list.Documents)
	}
}

// requireTools skips (fails on CI) when something the test needs is missing.
func requireTools(t *testing.T) {
	t.Helper()
	var missing []string
	for _, tool := range []string{"Xvfb", "xdotool", "import", "identify", "convert", "gcc", "pkg-config"} {
		if _, err := exec.LookPath(tool); err != nil {
			missing = append(missing, tool)
		}
	}
	if len(missing) == 0 {
		if err := exec.Command("pkg-config", "--exists", "gtk+-3.0", "webkit2gtk-4.1").Run(); err != nil {
			missing = append(missing, "the gtk+-3.0 and webkit2gtk-4.1 development packages")
		}
	}
	if len(missing) == 0 {
		return
	}
	msg := "desktop smoke test needs " + strings.Join(missing, ", ") +
		" (apt-get install xvfb xauth imagemagick xdotool gcc pkg-config libgtk-3-dev libwebkit2gtk-4.1-dev)"
	if os.Getenv("CI") == "true" {
		t.Fatal(msg)
	}
	t.Skip(msg)
}

func run(t *testing.T, dir, name string, args ...string) string {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, stderr.String())
	}
	return string(out)
}

// startXvfb starts a virtual X server on a display it picks itself and
// returns that display (":N").
func startXvfb(t *testing.T) string {
	t.Helper()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	cmd := exec.Command("Xvfb", "-displayfd", "3", "-screen", "0", "1280x1024x24", "-nolisten", "tcp")
	cmd.ExtraFiles = []*os.File{w}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	w.Close()
	t.Cleanup(func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		_ = cmd.Wait()
	})
	got := make(chan string, 1)
	go func() {
		line, _ := bufio.NewReader(r).ReadString('\n')
		got <- strings.TrimSpace(line)
	}()
	select {
	case n := <-got:
		if _, err := strconv.Atoi(n); err != nil {
			t.Fatalf("Xvfb reported display %q", n)
		}
		return ":" + n
	case <-time.After(30 * time.Second):
		t.Fatal("Xvfb did not start")
	}
	return ""
}

// buildDragSource compiles a small GTK program that drags a file the way a
// file manager does (xdotool alone cannot start a file drag).
func buildDragSource(t *testing.T, dir string) string {
	t.Helper()
	src := filepath.Join(dir, "dragsrc.c")
	if err := os.WriteFile(src, []byte(dragSourceC), 0o644); err != nil {
		t.Fatal(err)
	}
	flags := strings.Fields(run(t, dir, "pkg-config", "--cflags", "--libs", "gtk+-3.0"))
	bin := filepath.Join(dir, "dragsrc")
	run(t, dir, "gcc", append([]string{"-o", bin, src}, flags...)...)
	return bin
}

// process is a child whose stderr (and stdout) the test reads.
type process struct {
	cmd    *exec.Cmd
	exited chan error
	mu     sync.Mutex
	log    strings.Builder
}

func (p *process) Write(b []byte) (int, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.log.Write(b)
}

func (p *process) Log() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.log.String()
}

func (p *process) count(substr string) int { return strings.Count(p.Log(), substr) }

// waitFor waits for a line of the log matching re; it fails if the process
// exits first.
func (p *process) waitFor(t *testing.T, re *regexp.Regexp, timeout time.Duration) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for !re.MatchString(p.Log()) {
		select {
		case err := <-p.exited:
			p.exited <- err
			t.Fatalf("docent exited (%v) before logging %q\n%s", err, re, p.Log())
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("no log line matching %q after %s\n%s", re, timeout, p.Log())
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// stop sends SIGTERM and wants a clean exit.
func (p *process) stop(t *testing.T) {
	t.Helper()
	_ = p.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case err := <-p.exited:
		p.exited <- err
		if err != nil {
			t.Errorf("docent exited with %v after SIGTERM\n%s", err, p.Log())
		}
	case <-time.After(20 * time.Second):
		_ = p.cmd.Process.Kill()
		t.Fatalf("docent did not stop on SIGTERM\n%s", p.Log())
	}
}

func startProcess(t *testing.T, bin string, env []string, args ...string) *process {
	t.Helper()
	p := &process{cmd: exec.Command(bin, args...), exited: make(chan error, 1)}
	p.cmd.Env = append(os.Environ(), env...)
	p.cmd.Stdout, p.cmd.Stderr = p, p
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { p.exited <- p.cmd.Wait() }()
	t.Cleanup(func() {
		select {
		case err := <-p.exited:
			p.exited <- err
		default:
			_ = p.cmd.Process.Kill()
			<-p.exited
		}
	})
	return p
}

func startDesktop(t *testing.T, bin, display, dataDir string, extra ...string) *process {
	t.Helper()
	env := []string{
		"DISPLAY=" + display,
		"DOCENT_LOG_LEVEL=debug",
	}
	return startProcess(t, bin, append(env, extra...), "--data-dir", dataDir)
}

// waitForWindow waits for a visible X window whose name matches the
// regular expression and returns its id.
func waitForWindow(t *testing.T, display, name string, app *process) string {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for {
		cmd := exec.Command("xdotool", "search", "--onlyvisible", "--name", name)
		cmd.Env = append(os.Environ(), "DISPLAY="+display)
		out, _ := cmd.Output()
		if ids := strings.Fields(string(out)); len(ids) > 0 {
			return ids[0]
		}
		if time.Now().After(deadline) {
			t.Fatalf("no window named %s on %s\n%s", name, display, app.Log())
		}
		time.Sleep(200 * time.Millisecond)
	}
}

type geometry struct{ x, y, w, h int }

func windowGeometry(t *testing.T, display, win string) geometry {
	t.Helper()
	cmd := exec.Command("xdotool", "getwindowgeometry", "--shell", win)
	cmd.Env = append(os.Environ(), "DISPLAY="+display)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("xdotool getwindowgeometry: %v", err)
	}
	vals := map[string]int{}
	for _, line := range strings.Fields(string(out)) {
		k, v, ok := strings.Cut(line, "=")
		if n, err := strconv.Atoi(v); ok && err == nil {
			vals[k] = n
		}
	}
	return geometry{vals["X"], vals["Y"], vals["WIDTH"], vals["HEIGHT"]}
}

// drag presses the first button at from, moves to to in steps (XDND needs
// motion events over the target) and releases there.
func drag(t *testing.T, display string, from, to [2]int) {
	t.Helper()
	xdo := func(args ...string) {
		cmd := exec.Command("xdotool", args...)
		cmd.Env = append(os.Environ(), "DISPLAY="+display)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("xdotool %v: %v\n%s", args, err, out)
		}
	}
	xdo("mousemove", strconv.Itoa(from[0]), strconv.Itoa(from[1]))
	xdo("mousedown", "1")
	time.Sleep(300 * time.Millisecond)
	const steps = 8
	for i := 1; i <= steps; i++ {
		x := from[0] + (to[0]-from[0])*i/steps
		y := from[1] + (to[1]-from[1])*i/steps
		xdo("mousemove", strconv.Itoa(x), strconv.Itoa(y))
		time.Sleep(150 * time.Millisecond)
	}
	time.Sleep(500 * time.Millisecond)
	xdo("mouseup", "1")
}

// xdo runs xdotool on the display.
func xdo(t *testing.T, display string, args ...string) {
	t.Helper()
	cmd := exec.Command("xdotool", args...)
	cmd.Env = append(os.Environ(), "DISPLAY="+display)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("xdotool %v: %v\n%s", args, err, out)
	}
}

// inkIn is how dark a w×h region at (x, y) of a screenshot is: 0 for
// white, 1 for black.
func inkIn(t *testing.T, path string, x, y, w, h int) float64 {
	t.Helper()
	out, err := exec.Command("convert", path, "-crop", fmt.Sprintf("%dx%d+%d+%d", w, h, x, y),
		"-colorspace", "Gray", "-format", "%[fx:1-mean]", "info:").Output()
	if err != nil {
		t.Fatalf("convert %s: %v", path, err)
	}
	v, err := strconv.ParseFloat(strings.TrimSpace(string(out)), 64)
	if err != nil {
		t.Fatalf("convert %s: %q", path, out)
	}
	return v
}

// longestRise finds the longest run of strictly rising values and
// returns the index of its last value and its length.
func longestRise(v []float64) (end, length int) {
	for i, n := 0, 0; i < len(v); i++ {
		if i > 0 && v[i] > v[i-1] {
			n++
		} else {
			n = 1
		}
		if n > length {
			end, length = i, n
		}
	}
	return end, length
}

// click clicks the first button at (x, y) of the screen.
func click(t *testing.T, display string, x, y int) {
	t.Helper()
	cmd := exec.Command("xdotool", "mousemove", strconv.Itoa(x), strconv.Itoa(y), "click", "1")
	cmd.Env = append(os.Environ(), "DISPLAY="+display)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("xdotool click: %v\n%s", err, out)
	}
}

// screenshotRendered saves the whole X screen as a PNG once the UI has
// painted: the API can answer before the page renders, and a blank window
// has a few dozen colours where rendered text has hundreds.
func screenshotRendered(t *testing.T, display, path string) {
	t.Helper()
	const minColours = 200
	deadline := time.Now().Add(20 * time.Second)
	for {
		colours := screenshot(t, display, path)
		if colours >= minColours {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the window did not render (%d colours on screen); see %s", colours, path)
		}
		time.Sleep(250 * time.Millisecond)
	}
	t.Logf("screenshot %s", path)
}

// screenshot saves the whole X screen and returns its number of colours.
func screenshot(t *testing.T, display, path string) int {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, "import", "-window", "root", path)
	cmd.Env = append(os.Environ(), "DISPLAY="+display)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("screenshot: %v\n%s", err, out)
	}
	out, err := exec.CommandContext(ctx, "identify", "-format", "%k", path).Output()
	if err != nil {
		t.Fatalf("identify %s: %v", path, err)
	}
	n, _ := strconv.Atoi(strings.TrimSpace(string(out)))
	return n
}

const dragSourceC = `/* A drag source: a window at (900, 0) whose 200x200 button drags the file
   named by argv[1] as a text/uri-list, the way a file manager does. */
#include <gtk/gtk.h>

static char *uri;

static void get_data(GtkWidget *w, GdkDragContext *c, GtkSelectionData *sd, guint info, guint t, gpointer d) {
  gchar *uris[] = {uri, NULL};
  gtk_selection_data_set_uris(sd, uris);
}

int main(int argc, char **argv) {
  gtk_init(&argc, &argv);
  uri = g_filename_to_uri(argv[1], NULL, NULL);
  GtkWidget *win = gtk_window_new(GTK_WINDOW_TOPLEVEL);
  gtk_window_set_title(GTK_WINDOW(win), "DocentDragSource");
  gtk_window_move(GTK_WINDOW(win), 900, 0);
  GtkWidget *b = gtk_button_new_with_label("drag me");
  gtk_widget_set_size_request(b, 200, 200);
  gtk_container_add(GTK_CONTAINER(win), b);
  gtk_drag_source_set(b, GDK_BUTTON1_MASK, NULL, 0, GDK_ACTION_COPY);
  gtk_drag_source_add_uri_targets(b);
  g_signal_connect(b, "drag-data-get", G_CALLBACK(get_data), NULL);
  g_signal_connect(win, "destroy", G_CALLBACK(gtk_main_quit), NULL);
  gtk_widget_show_all(win);
  gtk_main();
  return 0;
}
`
