package cli

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/netip"
	"path/filepath"
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
	// TLSCert and TLSKey are a certificate and key to serve HTTPS with,
	// on any address; without them a listen address beyond loopback gets
	// the certificate Docent makes (tls.go).
	TLSCert, TLSKey string
	// InsecureHTTP serves plain HTTP beyond loopback, with a warning.
	InsecureHTTP bool
	// Inbox is the inbox folder to watch, an existing folder made
	// absolute; it wins over the saved setting.
	Inbox string
}

// check refuses flags that do not go together (parseRoot).
func (o serveOptions) check() error {
	switch {
	case o.MaxUploadMiB <= 0:
		return usagef("--max-upload must be a positive number of MiB")
	case (o.TLSCert == "") != (o.TLSKey == ""):
		return usagef("--tls-cert and --tls-key go together")
	case o.InsecureHTTP && o.TLSCert != "":
		return usagef("--insecure-http and --tls-cert contradict each other")
	}
	return nil
}

// serveTLS decides how the server on ln speaks: HTTPS with the given
// certificate, HTTPS with Docent's own beyond loopback, or plain HTTP (on
// loopback, or beyond it with --insecure-http, which warns). A nil
// certificate means plain HTTP.
func serveTLS(env *Env, opts serveOptions, loopback bool) (*tls.Certificate, error) {
	switch {
	case opts.TLSCert != "":
		cert, err := loadCertificate(opts.TLSCert, opts.TLSKey)
		if err != nil {
			return nil, err
		}
		return &cert, nil
	case loopback:
		return nil, nil // nothing crosses a network
	case opts.InsecureHTTP:
		env.Logger.Warn("serving plain HTTP beyond this machine (--insecure-http): the sign-in token, the session cookie and every document cross the network readable by anyone on it, who can then take over the session")
		return nil, nil
	}
	cert, made, err := loadOrCreateCertificate(env.DataDir, env.Logger)
	if err != nil {
		return nil, err
	}
	if made {
		fmt.Fprintf(env.IO.Err, "made an HTTPS certificate for this machine in %s\n", filepath.Join(env.DataDir, tlsCertFile))
	}
	return &cert, nil
}

// runServe is `docent --serve`: it serves the web UI and the HTTP API
// until ctx ends (Ctrl-C), then stops gracefully.
func runServe(ctx context.Context, env *Env, opts serveOptions) error {
	if level, ok := logLevelFromEnv(); ok {
		env.Logger = slog.New(slog.NewTextHandler(env.IO.Err, &slog.HandlerOptions{Level: level}))
	}
	cfg, err := env.ServerConfig(ctx)
	if err != nil {
		return err
	}
	if cfg.Token, err = loadOrCreateToken(env.DataDir, env.Logger); err != nil {
		return err
	}
	cfg.MaxUploadBytes = opts.MaxUploadMiB << 20
	if opts.Inbox != "" {
		cfg.InboxFolder = opts.Inbox
		fmt.Fprintf(env.IO.Err, "watching the inbox folder %s\n", opts.Inbox)
	}
	ln, err := net.Listen("tcp", opts.Listen)
	if err != nil {
		return fault.Errorf(fault.Unavailable, "listen on %s: %w", opts.Listen, err)
	}
	if tcp, ok := ln.Addr().(*net.TCPAddr); ok && tcp.IP.IsLoopback() {
		cfg.LoopbackOnly = true
	}
	cert, err := serveTLS(env, opts, cfg.LoopbackOnly)
	if err != nil {
		ln.Close()
		return err
	}
	handler := server.New(cfg)
	// The background work (the auto-create queue, the sweep of paused
	// turns) stops on Ctrl-C: a run under way goes back to the queue, and
	// Close waits for that before Run closes the store.
	handler.Start(ctx)
	defer handler.Close()
	scheme, fp := "http", ""
	if cert != nil {
		scheme, fp = "https", fingerprint(*cert)
	}
	return serveHTTP(ctx, env, handler, ln, cert, func() {
		printServeURL(env, opts.Listen, ln.Addr(), scheme, cfg.Token, fp)
		// A new user learns here, and not at the first message, that no
		// model is set up yet (the Settings page says the rest).
		if live, err := env.Settings(ctx); err == nil {
			printFirstRunHint(ctx, env, live)
		}
	})
}

// serveHTTP serves handler on ln, over TLS with cert when it is set, and
// calls announce once it serves. When ctx ends (Ctrl-C) it stops taking
// requests and waits, bounded, for those in progress.
func serveHTTP(ctx context.Context, env *Env, handler http.Handler, ln net.Listener, cert *tls.Certificate, announce func()) error {
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
		// No ReadTimeout nor WriteTimeout: event streams stay open for
		// as long as they last; each request body gets its own read
		// deadline and each streamed write its own write deadline
		// (package server).
		ReadHeaderTimeout: 10 * time.Second,
		IdleTimeout:       2 * time.Minute,
		BaseContext:       func(net.Listener) context.Context { return base },
		ErrorLog:          serverErrorLog(env.Logger),
	}
	if cert != nil {
		// No HSTS: a browser would then refuse the page outright when the
		// self-made certificate changes, and it would bind every port of
		// the host name to HTTPS.
		srv.TLSConfig = &tls.Config{Certificates: []tls.Certificate{*cert}, MinVersion: tls.VersionTLS12}
	}
	errc := make(chan error, 1)
	go func() {
		if cert != nil {
			errc <- srv.ServeTLS(ln, "", "") // the certificate is in TLSConfig
			return
		}
		errc <- srv.Serve(ln)
	}()
	announce()
	select {
	case err := <-errc:
		return fmt.Errorf("serve: %w", err)
	case <-ctx.Done():
	}
	fmt.Fprintln(env.IO.Err, "stopping: waiting for requests in progress")
	shutdownCtx, cancel := context.WithTimeout(context.Background(), shutdownGrace)
	defer cancel()
	err := srv.Shutdown(shutdownCtx)
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

// printServeURL prints the URL to open, with the token, on stdout, and
// under HTTPS the certificate's SHA-256 fingerprint (fp) beside it. A server
// bound to every interface is shown at its loopback address (what works on
// this machine), and a warning says who else can reach it.
func printServeURL(env *Env, listen string, addr net.Addr, scheme, token, fp string) {
	printURL := func(hostport any) {
		fmt.Fprintf(env.IO.Out, "Docent is serving on %s://%s/?token=%s\n", scheme, hostport, token)
		if fp != "" {
			fmt.Fprintf(env.IO.Out, "Certificate fingerprint (SHA-256): %s\n(on another device, check that the browser shows the same before you accept the certificate)\n", fp)
		}
	}
	ap, err := netip.ParseAddrPort(addr.String())
	if err != nil {
		printURL(addr)
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
	printURL(shown)
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
