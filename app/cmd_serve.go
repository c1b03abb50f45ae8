package app

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"sync"
	"time"

	"github.com/docent/docent/app/server"
	"github.com/docent/docent/storage/fault"
)

// defaultListen keeps the server on this machine unless the user says
// otherwise: binding beyond loopback is an explicit choice.
const defaultListen = "127.0.0.1:8765"

// defaultMaxUploadMiB is --max-upload's default: the importer's own limit.
const defaultMaxUploadMiB = server.DefaultMaxUploadBytes >> 20

// Timeouts of `docent --serve`.
const (
	// shutdownGrace is how long in-flight requests (a turn streaming, an
	// upload) may finish after Ctrl-C before their contexts are cancelled.
	shutdownGrace = 10 * time.Second
	// cancelGrace is how long cancelled requests get to return, so the
	// database closes after the last of them.
	cancelGrace = 5 * time.Second
)

// serveOptions are the flags of `docent --serve`.
type serveOptions struct {
	Listen       string
	MaxUploadMiB int64
}

func runServe(ctx context.Context, env *Env, opts serveOptions) error {
	if opts.MaxUploadMiB <= 0 {
		return usagef("--max-upload must be a positive number of MiB")
	}
	cfg, err := serverConfig(ctx, env)
	if err != nil {
		return err
	}
	if cfg.Token, err = loadOrCreateToken(env.DataDir, env.Logger); err != nil {
		return err
	}
	cfg.MaxUploadBytes = opts.MaxUploadMiB << 20
	ln, err := net.Listen("tcp", opts.Listen)
	if err != nil {
		return fault.Errorf(fault.Unavailable, "listen on %s: %w", opts.Listen, err)
	}
	if tcp, ok := ln.Addr().(*net.TCPAddr); ok && tcp.IP.IsLoopback() {
		cfg.LoopbackOnly = true
	}
	handler := server.New(cfg)
	// The background work (the auto-create queue, the sweep of paused
	// turns) stops on Ctrl-C: a run under way goes back to the queue, and
	// Close waits for that before Run closes the store.
	handler.Start(ctx)
	defer handler.Close()
	// Requests get a context of their own, not the signal's: on Ctrl-C
	// they have shutdownGrace to finish before it is cancelled, and a turn
	// then stops at its next round boundary.
	base, cancelRequests := context.WithCancel(context.WithoutCancel(ctx))
	defer cancelRequests()
	var inflight sync.WaitGroup
	srv := &http.Server{
		Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			inflight.Add(1)
			defer inflight.Done()
			handler.ServeHTTP(w, r)
		}),
		ReadHeaderTimeout: 10 * time.Second,
		IdleTimeout:       2 * time.Minute,
		BaseContext:       func(net.Listener) context.Context { return base },
	}
	printServeURL(env, opts.Listen, ln.Addr(), cfg.Token)

	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	// A new user learns here, and not at the first message, that no model
	// is set up yet (the Settings page says the rest).
	if live, err := env.Settings(ctx); err == nil {
		printFirstRunHint(ctx, env, live)
	}
	select {
	case err := <-errc:
		return fmt.Errorf("serve: %w", err)
	case <-ctx.Done():
	}
	fmt.Fprintln(env.IO.Err, "stopping: waiting for requests in progress")
	shutdownCtx, cancel := context.WithTimeout(context.Background(), shutdownGrace)
	defer cancel()
	err = srv.Shutdown(shutdownCtx)
	cancelRequests()
	if err != nil && !errors.Is(err, context.DeadlineExceeded) {
		return fmt.Errorf("shut down: %w", err)
	}
	// Shutdown does not wait for the requests it gave up on; the database
	// must outlive them, so wait (bounded) before Run closes it.
	waited := make(chan struct{})
	go func() { inflight.Wait(); close(waited) }()
	select {
	case <-waited:
	case <-time.After(cancelGrace):
		env.Logger.Warn("requests still running at shutdown; closing anyway")
		_ = srv.Close()
	}
	fmt.Fprintln(env.IO.Err, "stopped")
	return nil
}

// printServeURL prints the URL to open, with the token, on stdout. A server
// bound to every interface is shown at its loopback address (what works on
// this machine), and a warning says who else can reach it.
func printServeURL(env *Env, listen string, addr net.Addr, token string) {
	ap, err := netip.ParseAddrPort(addr.String())
	if err != nil {
		fmt.Fprintf(env.IO.Out, "Docent is serving on http://%s/?token=%s\n", addr, token)
		return
	}
	ip := ap.Addr().Unmap()
	shown := ap
	if ip.IsUnspecified() {
		// Go binds "0.0.0.0" and ":8765" dual-stack, reported as [::];
		// IPv4 loopback works for both. Only an explicit "[::]" gets ::1.
		loop := netip.MustParseAddr("127.0.0.1")
		if host, _, err := net.SplitHostPort(listen); err == nil && host == "::" {
			loop = netip.IPv6Loopback()
		}
		shown = netip.AddrPortFrom(loop, ap.Port())
	}
	fmt.Fprintf(env.IO.Out, "Docent is serving on http://%s/?token=%s\n", shown, token)
	switch {
	case ip.IsUnspecified():
		fmt.Fprintf(env.IO.Out, "It is reachable from the network on port %d of every address of this machine.\n", ap.Port())
		env.Logger.Warn("listening on every interface: anyone on the network who has the token can use the API and read your documents",
			"listen", addr.String())
	case !ip.IsLoopback():
		env.Logger.Warn("listening beyond this machine: anyone who can reach this address and has the token can use the API and read your documents",
			"listen", addr.String())
	}
	fmt.Fprintf(env.IO.Err, "data in %s; press Ctrl-C to stop\n", env.DataDir)
}
