// Package desktoptest is the desktop smoke test: the binary built with the
// desktop tags, run under Xvfb, shows its window, answers the UI's first
// API requests, imports a file dropped on it once, streams an agent turn
// into the page through Wails runtime events, stops one with Esc, runs an
// approved tool call, refuses a second window on the same data directory,
// keeps the webview's storage inside the data directory, and stops on
// SIGTERM.
//
// It reads what the page shows as text (select all, copy, and a small GTK
// program that prints the clipboard), never by counting pixels, and it
// holds the scripted model's answer mid-stream for as long as it looks: so
// what it checks does not depend on how busy the machine is. Deadlines only
// stop a hang. The app runs with HOME and the XDG directories in a temp
// dir, never the user's.
//
// It needs Xvfb, xdotool, imagemagick's import, gcc and the GTK 3 and
// WebKitGTK 4.1 development packages; it skips without them, and fails
// without them when CI=true.
package desktoptest

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/docent/docent/agent/modeltest"
	"github.com/docent/docent/app/internal/artifacts"
)

// hang is how long the test waits for anything before it calls it a hang.
// What it waits for is a state (a log line, a text on the page), never a
// duration, so a busy machine only makes the test slower.
const hang = 3 * time.Minute

func TestDesktopSmoke(t *testing.T) {
	requireTools(t)
	root := artifacts.RepoRoot()
	if _, err := os.Stat(filepath.Join(root, "frontend", "dist", "index.html")); err != nil {
		t.Fatalf("frontend/dist is missing: run `cd frontend && npm run build` first (%v)", err)
	}
	tmp := t.TempDir()
	bin := filepath.Join(tmp, "docent")
	run(t, root, nil, "go", "build", "-tags", "desktop,production,webkit2_41", "-o", bin, ".")
	display := startXvfb(t)
	// The test's own GTK programs get a home of their own too.
	helpers := append(homeEnv(filepath.Join(tmp, "helpers")), "DISPLAY="+display)
	dragSource := buildGTKProgram(t, tmp, "dragsrc", dragSourceC)
	clipboard := buildGTKProgram(t, tmp, "clipboard", clipboardC)

	model := modeltest.New(t)
	// The app's home is a temp dir, and its data directory is inside it:
	// whatever the app writes elsewhere in that home is a leak.
	home := filepath.Join(tmp, "home")
	dataDir := filepath.Join(home, "docent-data")
	appEnv := append(homeEnv(home), "DISPLAY="+display)
	app := startDesktop(t, bin, dataDir, slices.Concat(appEnv, []string{"OLLAMA_HOST=" + model.OllamaURL(), "DOCENT_MODEL=ollama/qwen3:8b"})...)
	shots := artifacts.Dir(t)
	page := &pageReader{t: t, display: display, reader: clipboard, env: helpers, app: app}

	// (a) The window appears: a visible X window titled Docent.
	win := waitForWindow(t, display, "^Docent$", app)
	t.Logf("window %s", win)
	geo := windowGeometry(t, display, win)
	// A spot of the window that no control covers (the document list's
	// empty space, the viewer's margin): a click there gives the page
	// the keyboard without doing anything.
	page.blank = [2]int{geo.x + 300, geo.y + 600}

	// (b) The UI loaded and its first API calls were answered.
	app.waitFor(t, regexp.MustCompile(`msg=request method=GET path=/api/documents status=200`))
	page.waitFor("the documents page", func(s string) bool { return strings.Contains(s, "Add documents") })
	screenshotRendered(t, display, filepath.Join(shots, "desktop.png"))

	// A second window on the same data directory is refused, with a
	// message and exit status 1, and opens nothing.
	second := exec.Command(bin, "--data-dir", dataDir)
	second.Env = append(os.Environ(), appEnv...)
	out, err := runWithin(second, hang)
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != 1 || !strings.Contains(out, "already open on the data folder "+dataDir) {
		t.Errorf("a second window on the same data: %v, output:\n%s\nwant exit status 1 and a message that Docent is already open on %s", err, out, dataDir)
	}
	if ids := windowsNamed(display, "^Docent$"); len(ids) != 1 {
		t.Errorf("%d Docent windows after the second start, want 1", len(ids))
	}

	// A file dragged from another application onto the window is imported
	// once, through the native drop, and the list shows it.
	doc := filepath.Join(tmp, "dropped-note.md")
	if err := os.WriteFile(doc, []byte("# Dropped note\n\nInvoice 42, total 17.50 EUR.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	startProcess(t, dragSource, helpers, doc)
	waitForWindow(t, display, "^DocentDragSource$", app)
	drag(t, display, [2]int{1000, 100}, [2]int{geo.x + geo.w/2, geo.y + geo.h/2})
	app.waitFor(t, regexp.MustCompile(`imported 1, already there 0, failed 0`))
	page.waitFor("the dropped document in the list", func(s string) bool { return strings.Contains(s, "dropped-note.md") })
	screenshotRendered(t, display, filepath.Join(shots, "desktop-dropped.png"))

	// Open the document: its row is the one with the "ready" badge (found
	// on screen by the badge's colour, wherever the list puts it); its
	// name is at the left of that row. A click that lands while the list
	// still moves opens nothing: look and click again until the document
	// page asks for its threads.
	opened := regexp.MustCompile(`path=/api/documents/doc_\w+/chat/threads status=200`)
	app.until(t, opened, func() {
		_, y := findFill(t, display, filepath.Join(shots, "desktop-row.png"), geo, readyBadge, func() {})
		click(t, display, geo.x+200, y)
	})
	page.waitFor("the document page", func(s string) bool { return strings.Contains(s, "Ask the agent about this document") })
	screenshotRendered(t, display, filepath.Join(shots, "desktop-document.png"))

	// The answer streams into the page through Wails runtime events: the
	// model holds it after its first part, and the page shows that part,
	// and not the rest, for as long as it is held.
	first, rest := "The note is invoice 42. ", "Its total is 17.50 EUR."
	release := make(chan struct{})
	released := sync.OnceFunc(func() { close(release) })
	t.Cleanup(released)
	model.Enqueue(modeltest.Reply{Text: first + rest, ChunkRunes: utf8.RuneCountInString(first), HoldAfterChunks: 1, Hold: release})
	ask(t, display, geo, page, "What is this?")
	held := page.waitFor("the answer's first part while the model holds the rest", func(s string) bool {
		return strings.Contains(s, strings.TrimSpace(first))
	})
	if strings.Contains(held, strings.TrimSuffix(rest, ".")) {
		t.Errorf("the page shows the held part of the answer:\n%s", held)
	}
	screenshotRendered(t, display, filepath.Join(shots, "desktop-streaming.png"))
	released()
	page.waitFor("the whole answer", func(s string) bool { return strings.Contains(s, first+rest) })
	app.waitFor(t, regexp.MustCompile(`msg=turn kind=chat document=doc_\w+ channel=\S+ events=\d+ err=<nil>`))
	screenshotRendered(t, display, filepath.Join(shots, "desktop-answered.png"))

	// Esc stops a turn: the UI says so and the turn ends in Go, without
	// waiting for the model (which holds its answer until the test ends).
	never := make(chan struct{})
	t.Cleanup(func() { close(never) })
	model.Enqueue(modeltest.Reply{Text: "Pondering the note at length.", ChunkRunes: 9, HoldAfterChunks: 1, Hold: never})
	ask(t, display, geo, page, "Tell me more.")
	page.waitFor("the start of the answer to stop", func(s string) bool { return strings.Contains(s, "Pondering") })
	xdo(t, display, "key", "Escape")
	page.waitFor("that the turn stopped", func(s string) bool { return strings.Contains(s, "Stopped.") })
	app.waitFor(t, regexp.MustCompile(`msg=turn kind=chat document=doc_\w+ channel=\S+ events=\d+ err="the turn was stopped"`))

	// A tool call that changes the document waits for approval in the
	// card; approved, it runs, and the answer streams on.
	model.Enqueue(
		modeltest.Reply{Text: "I will rename it.", ToolCalls: []modeltest.ToolCall{{ID: "c1", Name: "update_document", Arguments: `{"name":"renamed-note.md"}`}}},
		modeltest.Reply{Text: "Renamed it to renamed-note.md."},
	)
	ask(t, display, geo, page, "Rename it to renamed-note.md.")
	page.waitFor("the approval card", func(s string) bool { return strings.Contains(s, "Needs your approval") })
	approve := filepath.Join(shots, "desktop-approval.png")
	// A click that lands while the card still moves (a late event, a
	// busy machine) misses it: click again while the card waits, until
	// the approval's turn is in the log.
	app.until(t, regexp.MustCompile(`msg=turn kind=approve document=doc_\w+ channel=\S+ events=\d+`), func() {
		if !strings.Contains(page.text(), "Needs your approval") {
			return // the click took; the turn is under way
		}
		x, y := findPrimaryButton(t, display, approve, geometry{geo.x + geo.w/2, geo.y, geo.w / 2, geo.h}, func() {
			// The card may be below the fold: scroll the messages to
			// their end, and take the pointer off them (a hovered
			// button is darker).
			xdo(t, display, "mousemove", strconv.Itoa(geo.x+geo.w*3/4), strconv.Itoa(geo.y+geo.h/2),
				"click", "--repeat", "10", "5", "mousemove", strconv.Itoa(page.blank[0]), strconv.Itoa(page.blank[1]))
		})
		click(t, display, x, y)
	})
	page.waitFor("the answer after the approval", func(s string) bool { return strings.Contains(s, "Renamed it to renamed-note.md.") })
	app.waitFor(t, regexp.MustCompile(`msg=turn kind=approve document=doc_\w+ channel=\S+ events=\d+ err=<nil>`))
	screenshotRendered(t, display, filepath.Join(shots, "desktop-approved.png"))

	// Every turn went through the bindings, none through the HTTP API.
	if m := regexp.MustCompile(`method=POST path=/api/documents/doc_\w+/chat`).FindString(app.Log()); m != "" {
		t.Errorf("a turn went through the HTTP API (%s), not Wails events\n%s", m, app.Log())
	}

	// Quit: SIGTERM stops the app cleanly.
	app.stop(t)
	if n := app.count(`msg=importing `); n != 1 {
		t.Errorf("the drop started %d imports, want 1\n%s", n, app.Log())
	}
	out = run(t, root, appEnv, bin, "--data-dir", dataDir, "documents", "--json")
	var list struct {
		Documents []struct {
			Name string `json:"name"`
		} `json:"documents"`
	}
	if err := json.Unmarshal([]byte(out), &list); err != nil {
		t.Fatalf("documents --json: %v\n%s", err, out)
	}
	if len(list.Documents) != 1 || list.Documents[0].Name != "renamed-note.md" {
		t.Errorf("documents after the drop and the approved rename = %+v, want renamed-note.md once", list.Documents)
	}

	// The webview kept its storage in the data directory, and nothing
	// else was written to the home directory.
	if _, err := os.Stat(filepath.Join(dataDir, "webview", "data", "docent")); err != nil {
		t.Errorf("no webview storage in the data directory: %v", err)
	}
	if leaked := filesOutside(t, home, dataDir); len(leaked) > 0 {
		t.Errorf("the app wrote outside its data directory %s:\n%s", dataDir, strings.Join(leaked, "\n"))
	}
}

// homeEnv points HOME and the XDG base directories at dir, so that a
// program run with it finds and leaves nothing of the user's.
func homeEnv(dir string) []string {
	return []string{
		"HOME=" + dir,
		"XDG_DATA_HOME=" + filepath.Join(dir, ".local", "share"),
		"XDG_CONFIG_HOME=" + filepath.Join(dir, ".config"),
		"XDG_CACHE_HOME=" + filepath.Join(dir, ".cache"),
		"XDG_STATE_HOME=" + filepath.Join(dir, ".local", "state"),
	}
}

// filesOutside lists what exists under root but outside keep.
func filesOutside(t *testing.T, root, keep string) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		switch {
		case path == keep:
			return filepath.SkipDir
		case path != root && !strings.HasPrefix(keep, path+string(filepath.Separator)):
			out = append(out, path)
		}
		return nil
	})
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		t.Fatal(err)
	}
	return out
}

// ask types a message into the chat input and sends it.
func ask(t *testing.T, display string, geo geometry, page *pageReader, message string) {
	t.Helper()
	// Sent when the page shows the message once more than before. Typing
	// that went nowhere (the input not focused yet) is typed again, into
	// an emptied input; the deadline only guards against a hang.
	before := strings.Count(page.text(), message)
	deadline := time.Now().Add(hang)
	for {
		click(t, display, geo.x+950, geo.y+764) // the chat input
		xdo(t, display, "key", "ctrl+a", "BackSpace")
		xdo(t, display, "type", "--delay", "20", message)
		xdo(t, display, "key", "Return")
		for again := time.Now().Add(10 * time.Second); time.Now().Before(again); time.Sleep(300 * time.Millisecond) {
			if strings.Count(page.text(), message) > before {
				return
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("the message %q was not sent within %s; the page shows:\n%s", message, hang, page.text())
		}
	}
}

// pageReader reads the text the window's page shows: it clicks a blank
// spot, selects all, copies, unselects, and prints the clipboard with a
// small GTK program.
type pageReader struct {
	t       *testing.T
	display string
	reader  string   // the clipboard printer
	env     []string // its environment
	app     *process
	blank   [2]int
}

// text returns the page's text with each run of white space made one
// space. The copy is asynchronous: a read may still see the clipboard of
// the read before, which waitFor simply reads again.
func (p *pageReader) text() string {
	p.t.Helper()
	click(p.t, p.display, p.blank[0], p.blank[1])
	// Select all, copy, and unselect (WebKitGTK's ctrl+shift+a): a click
	// into a selection may start dragging it instead of clicking what is
	// under it. Key events are handled in order.
	xdo(p.t, p.display, "key", "ctrl+a", "ctrl+c", "ctrl+shift+a")
	ctx, cancel := context.WithTimeout(context.Background(), hang)
	defer cancel()
	cmd := exec.CommandContext(ctx, p.reader)
	cmd.Env = append(os.Environ(), p.env...)
	out, _ := cmd.Output() // nothing copied yet: empty
	return strings.Join(strings.Fields(string(out)), " ")
}

// waitFor reads the page until ok accepts its text and returns that text;
// it fails with the last text read and the app's log when the app exits
// or nothing changes for too long.
func (p *pageReader) waitFor(what string, ok func(string) bool) string {
	p.t.Helper()
	deadline := time.Now().Add(hang)
	for {
		s := p.text()
		if ok(s) {
			return s
		}
		select {
		case err := <-p.app.exited:
			p.app.exited <- err
			p.t.Fatalf("docent exited (%v) before the page showed %s; it showed:\n%s\n\nlog:\n%s", err, what, s, p.app.Log())
		default:
		}
		if time.Now().After(deadline) {
			p.t.Fatalf("the page did not show %s within %s; it showed:\n%s\n\nlog:\n%s", what, hang, s, tail(p.app.Log(), 40))
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// findPrimaryButton finds the page's one enabled primary button (filled
// with the accent colour) within region of the screen and returns its
// centre, taking screenshots (the last saved at path) until one shows it;
// before each, reveal brings it into view.
func findPrimaryButton(t *testing.T, display, path string, region geometry, reveal func()) (int, int) {
	t.Helper()
	return findFill(t, display, path, region, accent, reveal)
}

// findFill finds, like findPrimaryButton, the middle of the area filled
// with colour in region.
func findFill(t *testing.T, display, path string, region geometry, colour string, reveal func()) (int, int) {
	t.Helper()
	deadline := time.Now().Add(hang)
	for {
		reveal()
		// No selection: WebKit tints selected buttons.
		xdo(t, display, "key", "ctrl+shift+a")
		screenshot(t, display, path)
		// Pixels of the accent colour white, the rest black; eroding
		// keeps only filled areas (not text or thin borders); %@ is the
		// bounding box of what is left.
		out, err := exec.Command("convert", path,
			"-crop", fmt.Sprintf("%dx%d+%d+%d", region.w, region.h, region.x, region.y), "+repage",
			"-fill", "black", "+opaque", colour, "-fill", "white", "-opaque", colour,
			"-morphology", "Erode", "Square:3", "-format", "%@", "info:").Output()
		if err != nil {
			t.Fatalf("convert %s: %v", path, err)
		}
		var w, h, x, y int
		if _, err := fmt.Sscanf(strings.TrimSpace(string(out)), "%dx%d+%d+%d", &w, &h, &x, &y); err == nil && w > 10 && h >= 3 && w < region.w/2 {
			return region.x + x + w/2, region.y + y + h/2
		}
		if time.Now().After(deadline) {
			t.Fatalf("no area of colour %s on screen (bounding box %q); see %s", colour, out, path)
		}
		time.Sleep(250 * time.Millisecond)
	}
}

// accent is the UI's --accent colour, the fill of primary buttons.
const accent = "#3b63d9"

// readyBadge is the UI's --ok-soft colour, the fill of a ready document's
// status badge.
const readyBadge = "#e8f5ee"

// tail is the last n lines of s.
func tail(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

// runWithin runs cmd and returns its combined output; it kills cmd after
// timeout (a hang).
func runWithin(cmd *exec.Cmd, timeout time.Duration) (string, error) {
	var out strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		return "", err
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		return out.String(), err
	case <-time.After(timeout):
		_ = cmd.Process.Kill()
		<-done
		return out.String(), fmt.Errorf("still running after %s", timeout)
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

// run runs a command to its end with env added to the test's environment.
func run(t *testing.T, dir string, env []string, name string, args ...string) string {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
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

// buildGTKProgram compiles a small GTK program of the test's: the drag
// source (xdotool alone cannot start a file drag) or the clipboard printer.
func buildGTKProgram(t *testing.T, dir, name, source string) string {
	t.Helper()
	src := filepath.Join(dir, name+".c")
	if err := os.WriteFile(src, []byte(source), 0o644); err != nil {
		t.Fatal(err)
	}
	flags := strings.Fields(run(t, dir, nil, "pkg-config", "--cflags", "--libs", "gtk+-3.0"))
	bin := filepath.Join(dir, name)
	run(t, dir, nil, "gcc", append([]string{"-o", bin, src}, flags...)...)
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
// exits first, or after a hang.
func (p *process) waitFor(t *testing.T, re *regexp.Regexp) {
	t.Helper()
	deadline := time.Now().Add(hang)
	for !re.MatchString(p.Log()) {
		select {
		case err := <-p.exited:
			p.exited <- err
			t.Fatalf("docent exited (%v) before logging %q\n%s", err, re, p.Log())
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("no log line matching %q after %s\n%s", re, hang, p.Log())
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// until does act, then again every few seconds, until the log has a line
// matching re; the deadline only guards against a hang.
func (p *process) until(t *testing.T, re *regexp.Regexp, act func()) {
	t.Helper()
	deadline := time.Now().Add(hang)
	for {
		act()
		again := time.Now().Add(5 * time.Second)
		for time.Now().Before(again) {
			if re.MatchString(p.Log()) {
				return
			}
			time.Sleep(100 * time.Millisecond)
		}
		if time.Now().After(deadline) {
			t.Fatalf("no log line matching %q after %s of trying\n%s", re, hang, p.Log())
		}
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
	case <-time.After(hang):
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

// startDesktop starts the desktop app on dataDir with debug logs and env.
func startDesktop(t *testing.T, bin, dataDir string, env ...string) *process {
	t.Helper()
	return startProcess(t, bin, append([]string{"DOCENT_LOG_LEVEL=debug"}, env...), "--data-dir", dataDir)
}

// waitForWindow waits for a visible X window whose name matches the
// regular expression and returns its id.
func waitForWindow(t *testing.T, display, name string, app *process) string {
	t.Helper()
	deadline := time.Now().Add(hang)
	for {
		if ids := windowsNamed(display, name); len(ids) > 0 {
			return ids[0]
		}
		if time.Now().After(deadline) {
			t.Fatalf("no window named %s on %s\n%s", name, display, app.Log())
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// windowsNamed returns the visible windows whose name matches the regular
// expression.
func windowsNamed(display, name string) []string {
	cmd := exec.Command("xdotool", "search", "--onlyvisible", "--name", name)
	cmd.Env = append(os.Environ(), "DISPLAY="+display)
	out, _ := cmd.Output()
	return strings.Fields(string(out))
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
	deadline := time.Now().Add(hang)
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
	ctx, cancel := context.WithTimeout(context.Background(), hang)
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

const clipboardC = `/* Prints the text of the clipboard (nothing, exit status 2, when it holds
   no text). */
#include <gtk/gtk.h>
#include <stdio.h>

int main(int argc, char **argv) {
  gtk_init(&argc, &argv);
  gchar *text = gtk_clipboard_wait_for_text(gtk_clipboard_get(GDK_SELECTION_CLIPBOARD));
  if (!text) return 2;
  fputs(text, stdout);
  g_free(text);
  return 0;
}
`
