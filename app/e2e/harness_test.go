// Package e2e drives the real docent binary from outside: `docent --serve`
// in a child process, the web UI in Debian's headless Chromium through
// chromedp, and the scripted model server for the model.
package e2e

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/docent/docent/app/internal/artifacts"
)

// docentBin is the binary TestMain builds, once for every test.
var docentBin string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "docent-e2e-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	docentBin = filepath.Join(dir, "docent")
	build := exec.Command("go", "build", "-o", docentBin, ".")
	build.Dir = artifacts.RepoRoot()
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "build docent:", err)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// chromium finds Debian's browser; tests skip without one unless CI=true.
func chromium(t testing.TB) string {
	t.Helper()
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	if os.Getenv("CI") == "true" {
		t.Fatal("no chromium on PATH; scripts/test installs Debian's chromium")
	}
	t.Skip("no chromium on PATH (scripts/test installs it)")
	return ""
}

// serveProcess is a running `docent --serve`.
type serveProcess struct {
	URL   string // the printed URL, with ?token=
	Token string
	mu    sync.Mutex
	log   strings.Builder

	cmd     *exec.Cmd
	exited  chan error // Wait's answer, once
	stopped bool       // Stop or Kill ended it; the cleanup has nothing to do
}

func (p *serveProcess) Log() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.log.String()
}

var urlLine = regexp.MustCompile(`(http://\S+/\?token=(\S+))`)

// startServe runs docent --serve on a free loopback port with env added to
// the environment, and stops it (SIGINT, as Ctrl-C) when the test ends.
func startServe(t testing.TB, dataDir string, env ...string) *serveProcess {
	t.Helper()
	return startServeArgs(t, dataDir, nil, env...)
}

// startServeArgs is startServe with more flags for docent --serve.
func startServeArgs(t testing.TB, dataDir string, args []string, env ...string) *serveProcess {
	t.Helper()
	cmd := exec.Command(docentBin, append([]string{"--serve", "--listen", "127.0.0.1:0", "--data-dir", dataDir}, args...)...)
	cmd.Env = append(os.Environ(), env...)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	p := &serveProcess{cmd: cmd}
	cmd.Stderr = writerFunc(func(b []byte) (int, error) {
		p.mu.Lock()
		defer p.mu.Unlock()
		return p.log.Write(b)
	})
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	p.exited = exited
	go func() { exited <- cmd.Wait() }()
	t.Cleanup(func() {
		if !p.stopped {
			p.Stop(t)
		}
	})
	found := make(chan []string, 1)
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			if m := urlLine.FindStringSubmatch(sc.Text()); m != nil {
				found <- m
				break
			}
		}
		_, _ = io.Copy(io.Discard, stdout)
	}()
	select {
	case m := <-found:
		p.URL, p.Token = m[1], m[2]
	case err := <-exited:
		t.Fatalf("docent --serve exited: %v\n%s", err, p.Log())
	case <-time.After(60 * time.Second):
		t.Fatalf("docent --serve printed no URL\n%s", p.Log())
	}
	return p
}

// Stop stops the server as Ctrl-C does and waits for it to exit cleanly.
func (p *serveProcess) Stop(t testing.TB) {
	t.Helper()
	p.stopped = true
	_ = p.cmd.Process.Signal(syscall.SIGINT)
	select {
	case err := <-p.exited:
		if err != nil {
			t.Errorf("docent --serve exited with %v\n%s", err, p.Log())
		}
	case <-time.After(20 * time.Second):
		_ = p.cmd.Process.Kill()
		t.Errorf("docent --serve did not stop on SIGINT\n%s", p.Log())
	}
}

// Kill ends the server with SIGKILL, as a crash or a power cut would, and
// waits for the process to be gone.
func (p *serveProcess) Kill(t testing.TB) {
	t.Helper()
	p.stopped = true
	if err := p.cmd.Process.Kill(); err != nil && !errors.Is(err, os.ErrProcessDone) {
		t.Fatalf("kill docent --serve: %v", err)
	}
	<-p.exited
}

type writerFunc func([]byte) (int, error)

func (f writerFunc) Write(b []byte) (int, error) { return f(b) }

// newBrowser starts headless Chromium with the flags this machine needs
// (no sandbox as root, no background networking on a closed network) and a
// fresh profile.
func newBrowser(t testing.TB) context.Context {
	t.Helper()
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(chromium(t)),
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.Flag("disable-dev-shm-usage", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("disable-quic", true),
		chromedp.UserDataDir(t.TempDir()),
		chromedp.WindowSize(1280, 800),
	)
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancelCtx := chromedp.NewContext(actx)
	ctx, cancelTimeout := context.WithTimeout(ctx, 3*time.Minute)
	t.Cleanup(func() { cancelTimeout(); cancelCtx(); cancelAlloc() })
	if err := chromedp.Do(ctx); err != nil {
		t.Fatalf("start chromium: %v", err)
	}
	return ctx
}

// shooter saves numbered full-page screenshots of the steps of one test.
type shooter struct {
	t   *testing.T
	dir string
	n   int
}

func (s *shooter) shot(ctx context.Context, name string) {
	s.t.Helper()
	png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
	if err != nil {
		s.t.Logf("screenshot %s: %v", name, err)
		return
	}
	s.n++
	path := filepath.Join(s.dir, fmt.Sprintf("%02d-%s.png", s.n, name))
	if err := os.WriteFile(path, png, 0o644); err != nil {
		s.t.Logf("screenshot %s: %v", name, err)
	}
}

// stepTimeout bounds one step of a browser test, so a missing element
// fails with the step's name instead of hanging until the test's deadline.
const stepTimeout = 45 * time.Second

// do runs chromedp steps, failing the test with the step's name, the
// page's visible text and the server's log on error.
func do(t *testing.T, ctx context.Context, srv *serveProcess, step string, actions ...chromedp.Action[chromedp.Void]) {
	t.Helper()
	sctx, cancelStep := context.WithTimeout(ctx, stepTimeout)
	defer cancelStep()
	if err := chromedp.Do(sctx, actions...); err != nil {
		failStep(t, ctx, srv, step, err)
	}
}

// get runs one chromedp action that returns a value, failing like do.
func get[T any](t *testing.T, ctx context.Context, srv *serveProcess, step string, action chromedp.Action[T]) T {
	t.Helper()
	sctx, cancelStep := context.WithTimeout(ctx, stepTimeout)
	defer cancelStep()
	v, err := chromedp.Run(sctx, action)
	if err != nil {
		failStep(t, ctx, srv, step, err)
	}
	return v
}

func failStep(t *testing.T, ctx context.Context, srv *serveProcess, step string, err error) {
	t.Helper()
	tctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	text, _ := chromedp.Run(tctx, chromedp.Text(chromedp.CSS("body")))
	if errors.Is(err, context.DeadlineExceeded) {
		err = fmt.Errorf("timed out after %s: %w", stepTimeout, err)
	}
	t.Fatalf("%s: %v\npage text:\n%s\nserver log:\n%s", step, err, clip(text, 3000), clip(srv.Log(), 3000))
}

func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

// tid selects an element by its data-testid.
func tid(id string) chromedp.CSS { return chromedp.CSS(fmt.Sprintf(`[data-testid=%q]`, id)) }
