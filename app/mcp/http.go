package mcp

import (
	"cmp"
	"maps"
	"net/http"
	"slices"
	"sync"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// An HTTP client's session lives until the client ends it (DELETE), until
// httpSessionIdle has passed since its last POST (the SDK's timer; an open
// GET stream does not hold it), or until maxHTTPSessions newer ones push it
// out. Each session holds some 20 KB (10,000 opened and left took the
// server from 85 to 306 MB), and a client that went away without saying so
// never ends its own; a client whose session is gone is answered 404, and
// starts a new one, as the protocol says.
const (
	httpSessionIdle = 10 * time.Minute
	maxHTTPSessions = 100
)

// sessionIDHeader is the protocol's header naming the session of a request,
// and the one opened by an answer to initialize.
const sessionIDHeader = "Mcp-Session-Id"

// Handler serves MCP over Streamable HTTP, as `docent --serve` does at
// /mcp; the caller applies its access rules (token, Origin, Host) first.
// A client gets the read-only tools alone while opts.ReadOnly says so
// when it connects, and a write is refused at any time it says so. A
// message over MaxRequestBytes, or one that is not JSON, is answered with
// a JSON-RPC error (checkBody). At most maxHTTPSessions sessions live
// (capSessions).
func Handler(opts Options) http.Handler {
	full, readOnly := NewServer(opts, false), NewServer(opts, true)
	sessions := sdk.NewStreamableHTTPHandler(func(r *http.Request) *sdk.Server {
		if opts.readOnly(r.Context()) {
			return readOnly
		}
		return full
	}, &sdk.StreamableHTTPOptions{SessionTimeout: httpSessionIdle, MaxRequestBodyBytes: MaxRequestBytes})
	return checkBody(capSessions(sessions, maxHTTPSessions, full, readOnly))
}

// sessionCap keeps at most limit sessions of servers alive: when a new one
// opens past limit, it closes the one idle longest (no request in flight,
// last used longest ago), then, when every session has a request in flight,
// the one used longest ago. The SDK's handler keeps its sessions to itself
// (a map with a timer each); what it shows is each server's Sessions(), the
// session's ID() and Close(), which is what this uses: it sees the
// requests pass, with their Mcp-Session-Id, to know which was used when.
type sessionCap struct {
	next    http.Handler
	servers []*sdk.Server
	limit   int

	mu sync.Mutex
	// clock ticks at each request to a session: the order of last use,
	// which no two requests share (times from the clock may).
	clock uint64
	// used are the sessions this has seen opened, by id; one gone (idle
	// too long, ended by its client) is forgotten at the next opening.
	used map[string]*sessionUse
	// closing are the sessions picked to close whose Close has not
	// returned: the server still lists them, but they count no more.
	closing map[string]bool
}

type sessionUse struct {
	lastUse  uint64
	inFlight int // requests being served: a call, a GET's event stream
}

func capSessions(next http.Handler, limit int, servers ...*sdk.Server) http.Handler {
	return &sessionCap{next: next, servers: servers, limit: limit, used: map[string]*sessionUse{}, closing: map[string]bool{}}
}

func (c *sessionCap) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if id := r.Header.Get(sessionIDHeader); id != "" {
		u := c.begin(id)
		defer c.end(u)
		c.next.ServeHTTP(w, r)
		return
	}
	c.next.ServeHTTP(&openingWriter{ResponseWriter: w, opened: c.opened}, r)
}

// openingWriter calls opened with the session an answer to initialize
// opens (its Mcp-Session-Id) as the answer starts: before the client can
// read it and use the session, so that the order sessions are noted in is
// the order their clients use them.
type openingWriter struct {
	http.ResponseWriter
	opened  func(id string)
	started bool
}

func (w *openingWriter) start() {
	if w.started {
		return
	}
	w.started = true
	if id := w.Header().Get(sessionIDHeader); id != "" {
		w.opened(id)
	}
}

func (w *openingWriter) WriteHeader(status int) {
	w.start()
	w.ResponseWriter.WriteHeader(status)
}

func (w *openingWriter) Write(p []byte) (int, error) {
	w.start()
	return w.ResponseWriter.Write(p)
}

// Unwrap lets http.ResponseController flush the event stream.
func (w *openingWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// begin notes a request to session id, and returns its use (nil for a
// session this does not know: gone, or never opened) for end.
func (c *sessionCap) begin(id string) *sessionUse {
	c.mu.Lock()
	defer c.mu.Unlock()
	u := c.used[id]
	if u != nil {
		c.clock++
		u.lastUse = c.clock
		u.inFlight++
	}
	return u
}

func (c *sessionCap) end(u *sessionUse) {
	if u == nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.clock++
	u.lastUse = c.clock
	u.inFlight--
}

// opened notes a new session, and closes the ones over the cap. Closing
// waits for the session's calls in progress to finish, so it runs beside
// the answer to the new client, not before it.
func (c *sessionCap) opened(id string) {
	c.mu.Lock()
	c.clock++
	c.used[id] = &sessionUse{lastUse: c.clock}
	evicted := c.evict()
	c.mu.Unlock()
	for _, ss := range evicted {
		go func() {
			_ = ss.Close() // the SDK then answers its requests 404, "session not found"
			c.mu.Lock()
			delete(c.closing, ss.ID())
			c.mu.Unlock()
		}()
	}
}

// evict picks the sessions to close so that at most c.limit live, marks them
// closing and forgets them; c.mu is held. A live session this has not seen
// opened is one whose initialize is being answered now: it stays.
func (c *sessionCap) evict() []*sdk.ServerSession {
	live := map[string]*sdk.ServerSession{}
	for _, s := range c.servers {
		for ss := range s.Sessions() {
			if id := ss.ID(); id != "" && !c.closing[id] {
				live[id] = ss
			}
		}
	}
	for id := range c.used {
		if live[id] == nil {
			delete(c.used, id) // closed already
		}
	}
	over := len(live) - c.limit
	if over <= 0 {
		return nil
	}
	oldest := slices.SortedFunc(maps.Keys(c.used), func(a, b string) int {
		ua, ub := c.used[a], c.used[b]
		return cmp.Or(cmp.Compare(min(ua.inFlight, 1), min(ub.inFlight, 1)), cmp.Compare(ua.lastUse, ub.lastUse))
	})
	evicted := make([]*sdk.ServerSession, 0, over)
	for _, id := range oldest[:min(over, len(oldest))] {
		evicted = append(evicted, live[id])
		delete(c.used, id)
		c.closing[id] = true
	}
	return evicted
}
