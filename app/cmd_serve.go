package app

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"time"

	"github.com/docent/docent/app/server"
	"github.com/docent/docent/frontend"
)

// defaultListen keeps the server on this machine unless the user says
// otherwise: binding beyond loopback is an explicit choice.
const defaultListen = "127.0.0.1:8765"

// newServer builds the one handler that --serve and the desktop window share.
func newServer(ctx context.Context, env *Env) (*server.Server, error) {
	db, err := env.Store(ctx)
	if err != nil {
		return nil, err
	}
	return server.New(server.Config{DB: db, Version: Version, Assets: frontend.Assets(), Logger: env.Logger}), nil
}

func runServe(ctx context.Context, env *Env, addr string) error {
	handler, err := newServer(ctx, env)
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("listen on %s: %w", addr, err)
	}
	srv := &http.Server{
		Handler:           handler,
		ReadHeaderTimeout: 10 * time.Second,
		BaseContext:       func(net.Listener) context.Context { return ctx },
	}
	fmt.Fprintf(env.IO.Out, "Docent is serving on http://%s/\n", ln.Addr())
	fmt.Fprintf(env.IO.Err, "data in %s; press Ctrl-C to stop\n", env.DataDir)

	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		return fmt.Errorf("serve: %w", err)
	case <-ctx.Done():
	}
	shutdownCtx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := srv.Shutdown(shutdownCtx); err != nil && !errors.Is(err, context.DeadlineExceeded) {
		return fmt.Errorf("shut down: %w", err)
	}
	fmt.Fprintln(env.IO.Err, "stopped")
	return nil
}
