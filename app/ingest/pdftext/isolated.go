package pdftext

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"time"
)

// Limits bound one isolated extraction.
type Limits struct {
	// Timeout is how long the child may run; 0 means 60 seconds.
	Timeout time.Duration
	// MemoryBytes is how much memory the child may use beyond what the Go
	// runtime holds at start; 0 means 1 GiB.
	MemoryBytes int64
	// Retain, if not 0, is how much a reused child may hold after a
	// reply and still serve the next request: resident memory, and
	// address space used since it started. 0 keeps the pool's rule (256
	// MiB resident, a quarter of MemoryBytes of address space), which a
	// child that keeps models loaded (PP-OCR's, about 250 MB resident)
	// would pass after nearly every request, loading them again each time.
	Retain int64
}

// Defaults of Limits.
const (
	DefaultTimeout     = 60 * time.Second
	DefaultMemoryBytes = 1 << 30
)

func (l Limits) withDefaults() Limits {
	if l.Timeout <= 0 {
		l.Timeout = DefaultTimeout
	}
	if l.MemoryBytes <= 0 {
		l.MemoryBytes = DefaultMemoryBytes
	}
	return l
}

// ExtractIsolated runs Extract in a child process of this executable,
// because a goroutine stuck in a parser loop cannot be stopped: the child
// can be killed. The PDF goes to the child on stdin, the result comes back
// as JSON on stdout, and the errors of this package keep their kind across
// the boundary (errors.Is works on what is returned). The child is killed,
// with its whole process group, when ctx is cancelled or lim.Timeout
// passes, and it cannot use more than lim.MemoryBytes. Every way a child
// can die becomes an error that names the cause. At most MaxReaders()
// children run at once; a call waits for a free slot first, and the time
// limit starts when its request is sent. Children are reused from call to
// call (pool.go); a child that is killed or dies serves no other call.
func ExtractIsolated(ctx context.Context, data []byte, opts Options, lim Limits) (Result, error) {
	return ExtractIsolatedReader(ctx, bytes.NewReader(data), int64(len(data)), opts, lim)
}

// ExtractIsolatedReader is ExtractIsolated for a PDF of size bytes read from
// r, which is streamed to the child: the caller need not hold the file in
// memory. An error reading r fails the extraction.
func ExtractIsolatedReader(ctx context.Context, r io.Reader, size int64, opts Options, lim Limits) (Result, error) {
	rep, err := runIsolated(ctx, "pdf reader", request{Options: opts, Size: size}, r, size, lim)
	if err != nil {
		return Result{}, err
	}
	if rep.Result == nil {
		return Result{}, malformed("pdf reader gave no answer")
	}
	return *rep.Result, nil
}

// RunIsolated runs the child operation op (see RegisterChildOp) in a child
// process of this executable, as ExtractIsolatedReader runs the PDF reader:
// with params, the size bytes of r on its stdin, the same slots, time and
// memory limits, and the same errors for a child that times out, runs out
// of memory or crashes (reader names it in them: "image reader"). The
// operation's result is decoded into out.
func RunIsolated(ctx context.Context, reader, op string, params any, r io.Reader, size int64, lim Limits, out any) error {
	raw, err := json.Marshal(params)
	if err != nil {
		return fmt.Errorf("starting %s: %w", reader, err)
	}
	rep, err := runIsolated(ctx, reader, request{Op: op, Params: raw, Size: size}, r, size, lim)
	if err != nil {
		return err
	}
	if rep.Output == nil {
		return malformed("%s gave no answer", reader)
	}
	if err := json.Unmarshal(rep.Output, out); err != nil {
		return malformed("%s gave an answer that cannot be read: %v", reader, err)
	}
	return nil
}

func runIsolated(ctx context.Context, reader string, req request, r io.Reader, size int64, lim Limits) (reply, error) {
	lim = lim.withDefaults()
	if err := ctx.Err(); err != nil {
		return reply{}, err
	}
	header, err := json.Marshal(req)
	if err != nil {
		return reply{}, fmt.Errorf("starting %s: %w", reader, err)
	}
	s := readers
	release, err := s.acquire(ctx)
	if err != nil {
		return reply{}, fmt.Errorf("%s: %w", reader, err)
	}
	env := childEnviron()
	key := childKey(lim.MemoryBytes, env)
	c := s.takeIdle(key)
	if c == nil {
		if c, err = startChild(key, env, lim.MemoryBytes); err != nil {
			release()
			return reply{}, fmt.Errorf("starting %s: %w", reader, err)
		}
	}
	rep, reusable, err := c.do(ctx, reader, header, r, size, lim)
	s.done(c, reusable, lim, release)
	return rep, err
}

// decodeReply reads a child's one-line reply as it arrives. A result's
// words, most of a long document's reply, are decoded a page at a time:
// read whole first and then decoded, a 4,000-page file's reply held a
// buffer of twice its size (128 MB) beside what it decoded to. The other
// fields are gathered and decoded as usual.
func decodeReply(r io.Reader) (reply, error) {
	return decodeReplyFrom(json.NewDecoder(r))
}

// decodeReplyFrom is decodeReply for the next reply of a child's stream of
// replies, which dec reads.
func decodeReplyFrom(dec *json.Decoder) (reply, error) {
	var res *Result
	rest, err := decodeObject(dec, map[string]func() error{
		"result": func() error {
			var words []PageWords
			fields, err := decodeObject(dec, map[string]func() error{
				"words": func() error {
					return decodeArray(dec, func() error {
						var pw PageWords
						err := dec.Decode(&pw)
						words = append(words, pw)
						return err
					})
				},
			})
			if err != nil {
				return err
			}
			res = &Result{}
			if err := json.Unmarshal(fields, res); err != nil {
				return err
			}
			res.Words = words
			return nil
		},
	})
	if err != nil {
		return reply{}, err
	}
	var rep reply
	if err := json.Unmarshal(rest, &rep); err != nil {
		return reply{}, err
	}
	rep.Result = res
	return rep, nil
}

// decodeObject reads a JSON object from dec: the value of a key in stream
// is read by its function, the other members are returned as an object.
func decodeObject(dec *json.Decoder, stream map[string]func() error) ([]byte, error) {
	if err := expectDelim(dec, '{'); err != nil {
		return nil, err
	}
	out := []byte{'{'}
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return nil, err
		}
		key, ok := t.(string)
		if !ok {
			return nil, fmt.Errorf("want an object key, got %v", t)
		}
		if read := stream[key]; read != nil {
			if err := read(); err != nil {
				return nil, fmt.Errorf("%s: %w", key, err)
			}
			continue
		}
		var value json.RawMessage
		if err := dec.Decode(&value); err != nil {
			return nil, fmt.Errorf("%s: %w", key, err)
		}
		if len(out) > 1 {
			out = append(out, ',')
		}
		name, _ := json.Marshal(key)
		out = append(append(append(out, name...), ':'), value...)
	}
	if err := expectDelim(dec, '}'); err != nil {
		return nil, err
	}
	return append(out, '}'), nil
}

// decodeArray reads a JSON array from dec, each element with each.
func decodeArray(dec *json.Decoder, each func() error) error {
	if err := expectDelim(dec, '['); err != nil {
		return err
	}
	for dec.More() {
		if err := each(); err != nil {
			return err
		}
	}
	return expectDelim(dec, ']')
}

func expectDelim(dec *json.Decoder, want json.Delim) error {
	t, err := dec.Token()
	if err != nil {
		return err
	}
	if t != want {
		return fmt.Errorf("want %v, got %v", want, t)
	}
	return nil
}

// childDied explains a child that exited without a reply.
func childDied(reader string, runErr error, stderr string, lim Limits, elapsed time.Duration) error {
	tooLarge := &remoteError{kind: ErrTooLarge, msg: reader + " ran out of memory: it exceeded its " + formatBytes(lim.MemoryBytes) + " memory limit"}
	if outOfMemory(stderr) || lim.MemoryBytes > 0 && threadNotStarted(stderr) {
		return tooLarge
	}
	var exit *exec.ExitError
	if errors.As(runErr, &exit) {
		if ws, ok := exit.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			if ws.Signal() == syscall.SIGKILL {
				// Nobody here sent it: the kernel's OOM killer is the usual sender.
				slog.Warn(reader+" killed", "signal", ws.Signal(), "after", elapsed)
				return &remoteError{kind: ErrTooLarge, msg: reader + " was killed (signal: killed), most likely out of memory"}
			}
			return malformed("%s crashed (signal: %v); stderr: %s", reader, ws.Signal(), lastLines(stderr))
		}
		return malformed("%s crashed (exit status %d): %s", reader, exit.ExitCode(), lastLines(stderr))
	}
	return fmt.Errorf("running %s: %w", reader, runErr)
}

func rebuildError(e *replyError) error {
	if kind, ok := errorKinds[e.Kind]; ok {
		if kind == ErrWrongPassword || kind == ErrPasswordRequired {
			// Keep the sentinel itself, so that err == ErrPasswordRequired
			// holds on both sides.
			if e.Message == kind.Error() {
				return kind
			}
		}
		return &remoteError{kind: kind, msg: e.Message}
	}
	return errors.New(e.Message)
}

// outOfMemory recognises the Go runtime's messages when an allocation or a
// new thread fails under the memory limit.
func outOfMemory(stderr string) bool {
	for _, s := range []string{"out of memory", "cannot allocate memory", "failed to create new OS thread", "memory limit"} {
		if strings.Contains(stderr, s) {
			return true
		}
	}
	return false
}

// threadNotStarted recognises the cgo runtime dying because a thread
// could not start. Under RLIMIT_AS that is the limit (its stack cannot be
// mapped, and glibc says EAGAIN), so childDied counts it as out of memory
// only for a child with a memory limit.
func threadNotStarted(stderr string) bool {
	return strings.Contains(stderr, "pthread_create failed")
}

// childEnviron is this process's environment without the child's variables,
// so that a child never inherits a stale request.
func childEnviron() []string {
	var env []string
	for _, kv := range os.Environ() {
		if strings.HasPrefix(kv, "DOCENT_PDFTEXT_") {
			continue
		}
		env = append(env, kv)
	}
	return env
}

func formatDuration(d time.Duration) string {
	if d%time.Second == 0 {
		return fmt.Sprintf("%ds", int64(d/time.Second))
	}
	return d.String()
}

func formatBytes(n int64) string {
	switch {
	case n >= 1<<30 && n%(1<<30) == 0:
		return fmt.Sprintf("%d GiB", n>>30)
	case n >= 1<<20:
		return fmt.Sprintf("%d MiB", n>>20)
	default:
		return fmt.Sprintf("%d bytes", n)
	}
}

// lastLines keeps the end of a crash report, where the cause is.
func lastLines(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.Index(s, "\ngoroutine "); i > 0 {
		s = s[:i] // the first lines name the fatal error; stacks follow
	}
	if len(s) > 500 {
		s = s[:500] + "…"
	}
	return s
}

// headBuffer keeps the first max bytes written to it: a Go crash report names
// its cause first.
type headBuffer struct {
	buf bytes.Buffer
	max int
}

func (t *headBuffer) Write(p []byte) (int, error) {
	if room := t.max - t.buf.Len(); room > 0 {
		t.buf.Write(p[:min(len(p), room)])
	}
	return len(p), nil
}

func (t *headBuffer) String() string { return t.buf.String() }

func (t *headBuffer) summary() string {
	if t.buf.Len() == 0 {
		return "(empty)"
	}
	return lastLines(t.buf.String())
}
