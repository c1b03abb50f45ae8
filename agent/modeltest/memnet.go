package modeltest

import (
	"context"
	"net"
	"net/http"
	"sync"
)

// memServer serves a handler over in-memory connections (net.Pipe): no
// socket, no system call, so every goroutine on either side blocks only on
// channels and, inside a testing/synctest bubble, durably.
type memServer struct {
	ln     *memListener
	srv    *http.Server
	client *http.Client
	tr     *http.Transport
}

func newMemServer(h http.Handler) *memServer {
	ln := &memListener{conns: make(chan net.Conn), done: make(chan struct{})}
	tr := &http.Transport{
		DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) { return ln.dial(ctx) },
	}
	m := &memServer{ln: ln, srv: &http.Server{Handler: h}, tr: tr, client: &http.Client{Transport: tr}}
	go func() { _ = m.srv.Serve(ln) }()
	return m
}

// close shuts the listener and every connection; handlers still running
// see their connection gone.
func (m *memServer) close() {
	_ = m.srv.Close()
	m.tr.CloseIdleConnections()
}

// memListener hands the server end of each dialled pipe to Accept.
type memListener struct {
	conns chan net.Conn
	done  chan struct{}
	once  sync.Once
}

func (l *memListener) dial(ctx context.Context) (net.Conn, error) {
	client, server := net.Pipe()
	select {
	case l.conns <- server:
		return client, nil
	case <-l.done:
	case <-ctx.Done():
	}
	client.Close()
	server.Close()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return nil, &net.OpError{Op: "dial", Net: "memory", Err: net.ErrClosed}
}

func (l *memListener) Accept() (net.Conn, error) {
	select {
	case c := <-l.conns:
		return c, nil
	case <-l.done:
		return nil, net.ErrClosed
	}
}

func (l *memListener) Close() error {
	l.once.Do(func() { close(l.done) })
	return nil
}

func (l *memListener) Addr() net.Addr { return memAddr{} }

type memAddr struct{}

func (memAddr) Network() string { return "memory" }
func (memAddr) String() string  { return "modeltest.internal:80" }
