package pdftext

import (
	"bufio"
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// Reader children are reused. Starting one (a fork and exec of this
// executable, the Go runtime, the packages' init) cost about as much as
// reading a one-page invoice, so a child now serves request after request
// over its stdin and stdout (the protocol is in child.go) and waits, idle,
// for the next one between them. Isolation is kept per request:
//
//   - A request that passes its time limit, or whose context ends, kills
//     its child (with its process group); the next request starts another.
//   - The memory limit is the child's (RLIMIT_AS and the Go runtime's soft
//     limit, set when it starts), so a request that exceeds it kills the
//     child as before; so does a crash. The request reports either as
//     childDied always has, from the exit status and stderr, and the child
//     is replaced by the next request.
//   - A child is retired after maxRequests requests, when its resident
//     memory after a reply exceeds maxResident (or half its memory limit),
//     or when it has used a quarter of its limit's address space (see
//     slots.retire), so that a leak or a heap left large and fragmented by
//     one big file does not carry over to the next; a request's
//     Limits.Retain replaces both bounds for a child that holds more by
//     design (PP-OCR's, with its models loaded); and an idle child exits
//     after idleAfter.
//   - A child serves only requests it would have been started for: the
//     same memory limit and the same environment.
//
// Children count against the reader slots (readers.go): a busy child holds
// the slot of the request it serves, and idle children are stopped as
// slots are taken, so that idle and busy children and other slot holders
// (OCR engines) together are never more than MaxReaders().

// Defaults of the pool (see slots).
const (
	defaultMaxRequests = 100
	defaultMaxResident = 256 << 20
	defaultIdleAfter   = 30 * time.Second
)

// liveChildren counts reader children started and not yet reaped, in
// every pool: tests check that none is left behind.
var liveChildren atomic.Int64

// child is one reader child process and the parent's end of its pipes.
type child struct {
	key    string // what it was started for (childKey)
	cmd    *exec.Cmd
	stdin  *os.File // requests
	stdout *os.File // replies
	dec    *json.Decoder
	stderr lockedHead // what it wrote to stderr since its request began

	stderrDone chan struct{} // closed when stderr reaches its end
	exited     chan struct{} // closed when the process is reaped
	waitErr    error         // its exit status, once exited is closed

	served       int         // requests answered
	addressLimit int64       // its RLIMIT_AS, once read; 0 for none
	timer        *time.Timer // its idle timer, while idle
}

// childKey names what a child is started with beside the executable: the
// memory limit, and the environment it inherits (a child never sees a
// later change of the parent's environment).
func childKey(memory int64, env []string) string {
	return strconv.FormatInt(memory, 10) + "\x00" + strings.Join(env, "\x00")
}

// startChild starts a reader child with env and the memory limit.
func startChild(key string, env []string, memory int64) (*child, error) {
	exe, err := os.Executable()
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(exe)
	cmd.Env = append(env[:len(env):len(env)], childEnv+"=1", memoryEnv+"="+strconv.FormatInt(memory, 10))
	// The pipes are the parent's own (not exec's copying goroutines): a
	// child outlives many requests, and its exit must not close the end
	// the parent is still reading from.
	var ends []*os.File
	pipe := func() (r, w *os.File) {
		if err != nil {
			return nil, nil
		}
		r, w, err = os.Pipe()
		ends = append(ends, r, w)
		return r, w
	}
	inR, inW := pipe()
	outR, outW := pipe()
	errR, errW := pipe()
	if err != nil {
		closeAll(ends)
		return nil, err
	}
	cmd.Stdin, cmd.Stdout, cmd.Stderr = inR, outW, errW
	isolateProcess(cmd)
	err = spawn(cmd)
	closeAll([]*os.File{inR, outW, errW}) // the child's ends, now its own
	if err != nil {
		closeAll([]*os.File{inW, outR, errR})
		return nil, err
	}
	liveChildren.Add(1)
	c := &child{
		key: key, cmd: cmd, stdin: inW, stdout: outR,
		dec:        json.NewDecoder(outR),
		stderr:     lockedHead{head: headBuffer{max: 16 << 10}},
		stderrDone: make(chan struct{}),
		exited:     make(chan struct{}),
	}
	go func() {
		_, _ = io.Copy(&c.stderr, errR)
		errR.Close()
		close(c.stderrDone)
	}()
	go func() {
		c.waitErr = cmd.Wait()
		liveChildren.Add(-1)
		close(c.exited)
	}()
	return c, nil
}

func closeAll(files []*os.File) {
	for _, f := range files {
		if f != nil {
			f.Close()
		}
	}
}

// spawner starts every child from one goroutine locked to its OS thread,
// which never exits: on Linux the kernel sends a child its Pdeathsig when
// the thread that started it ends, not the process, and a child now lives
// longer than the goroutine that asked for it.
var spawner struct {
	once sync.Once
	ch   chan spawnRequest
}

type spawnRequest struct {
	cmd  *exec.Cmd
	done chan error
}

func spawn(cmd *exec.Cmd) error {
	spawner.once.Do(func() {
		spawner.ch = make(chan spawnRequest)
		go func() {
			runtime.LockOSThread() // never unlocked: see spawner
			for req := range spawner.ch {
				req.done <- req.cmd.Start()
			}
		}()
	})
	done := make(chan error, 1)
	spawner.ch <- spawnRequest{cmd, done}
	return <-done
}

// hasExited reports whether the child's process has been reaped.
func (c *child) hasExited() bool {
	select {
	case <-c.exited:
		return true
	default:
		return false
	}
}

// stop kills the child if it still runs, waits until it is reaped and
// closes the parent's ends of its pipes.
func (c *child) stop() {
	if !c.hasExited() {
		_ = killGroup(c.cmd.Process)
	}
	<-c.exited
	c.stdin.Close()
	c.stdout.Close()
}

// waitStderr waits until the child's stderr is read to its end, so that a
// crash report is whole; a grandchild holding it open delays it 2 s at most.
func (c *child) waitStderr() {
	select {
	case <-c.stderrDone:
	case <-time.After(2 * time.Second):
	}
}

// readError is an error reading the caller's input, as opposed to one
// writing to the child.
type readError struct{ err error }

func (e readError) Error() string { return e.err.Error() }

// do sends one request to the child and waits for its reply, the child's
// death, the time limit or ctx, whichever comes first. reusable tells
// whether the child may serve another request: false when it was killed,
// died or broke the protocol (the caller then stops it).
func (c *child) do(ctx context.Context, reader string, header []byte, r io.Reader, size int64, lim Limits) (rep reply, reusable bool, err error) {
	c.stderr.reset()
	start := time.Now()
	wrote := make(chan error, 1)
	go func() { wrote <- writeRequest(c.stdin, header, r, size) }()
	type decoded struct {
		rep reply
		err error
	}
	replies := make(chan decoded, 1)
	go func() {
		rep, err := decodeReplyFrom(c.dec)
		replies <- decoded{rep, err}
	}()
	timer := time.NewTimer(lim.Timeout)
	defer timer.Stop()

	var got *decoded
	writing := true
	// kill ends the child and waits, briefly, for the writer: the caller's
	// reader should not be read after this call returns.
	kill := func() {
		_ = killGroup(c.cmd.Process)
		<-c.exited
		if writing {
			select {
			case <-wrote:
			case <-time.After(2 * time.Second):
			}
		}
	}
	for got == nil || writing {
		select {
		case d := <-replies:
			if d.err != nil {
				return c.failed(reader, lim, start, d.err, wrote, writing)
			}
			got = &d
		case werr := <-wrote:
			writing = false
			if re := (readError{}); errors.As(werr, &re) {
				kill()
				return reply{}, false, fmt.Errorf("running %s: %w", reader, re.err)
			}
			if werr != nil {
				if got != nil {
					// It answered and stopped reading: the answer stands,
					// the child is not used again.
					return finishReply(reader, got.rep, &c.stderr, false)
				}
				return c.failed(reader, lim, start, werr, wrote, false)
			}
		case <-c.exited:
			return c.failed(reader, lim, start, io.EOF, wrote, writing)
		case <-ctx.Done():
			kill()
			return reply{}, false, fmt.Errorf("%s: %w", reader, ctx.Err())
		case <-timer.C:
			kill()
			if err := ctx.Err(); err != nil {
				return reply{}, false, fmt.Errorf("%s: %w", reader, err)
			}
			return reply{}, false, &remoteError{kind: ErrTimeout, msg: reader + " timed out after " + formatDuration(lim.Timeout)}
		}
	}
	c.served++
	return finishReply(reader, got.rep, &c.stderr, true)
}

// finishReply turns a child's reply into the result or error of the call.
func finishReply(reader string, rep reply, stderr *lockedHead, reusable bool) (reply, bool, error) {
	if rep.Result == nil && rep.Output == nil && rep.Error == nil {
		return reply{}, false, malformed("%s gave no answer (an empty reply); stderr: %s", reader, stderr.summary())
	}
	if rep.Error != nil {
		return reply{}, reusable, rebuildError(rep.Error)
	}
	return rep, reusable, nil
}

// failed explains a child that stopped answering: it is exiting (a crash,
// the memory limit), and its exit status and stderr say why, as childDied
// explains them; one that does not exit within 2 s is killed and said to
// have given no answer.
func (c *child) failed(reader string, lim Limits, start time.Time, cause error, wrote <-chan error, writing bool) (reply, bool, error) {
	select {
	case <-c.exited:
	case <-time.After(2 * time.Second):
		_ = killGroup(c.cmd.Process)
		<-c.exited
		c.waitStderr()
		return reply{}, false, malformed("%s gave no answer (%v); stderr: %s", reader, cause, c.stderr.summary())
	}
	c.waitStderr()
	if writing {
		select {
		case <-wrote:
		case <-time.After(2 * time.Second):
		}
	}
	if c.waitErr == nil {
		return reply{}, false, malformed("%s gave no answer (%v); stderr: %s", reader, cause, c.stderr.summary())
	}
	return reply{}, false, childDied(reader, c.waitErr, c.stderr.String(), lim, time.Since(start))
}

// The request frame, parent to child: the request as one line of JSON,
// then its data in chunks, each a 4-byte big-endian length and that many
// bytes, ended by a chunk of length 0. Chunks let the parent stream a file
// of a size it only believes (the data may end early) without the child
// reading to the end of its input. The reply is one line of JSON
// (writeReply), so the child's stdout needs no other framing.
const maxChunk = 1 << 20

func writeRequest(w io.Writer, header []byte, r io.Reader, size int64) error {
	// One buffer holds the header, then each chunk behind the 4 bytes of
	// its length: a small file goes in one write, header and end included.
	size = max(size, 0)
	chunk := int(min(max(size, 512), 64<<10))
	buf := make([]byte, 0, len(header)+1+4+chunk+4)
	buf = append(append(buf, header...), '\n')
	in := io.LimitReader(r, size)
	for {
		if cap(buf)-len(buf) < 4+chunk {
			if _, err := w.Write(buf); err != nil {
				return err
			}
			buf = buf[:0]
		}
		at := len(buf)
		n, err := in.Read(buf[at+4 : at+4+chunk])
		if n > 0 {
			binary.BigEndian.PutUint32(buf[at:at+4], uint32(n))
			buf = buf[:at+4+n]
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			return readError{err}
		}
	}
	buf = binary.BigEndian.AppendUint32(buf, 0)
	_, err := w.Write(buf)
	return err
}

// readRequest reads one request frame; io.EOF means the parent closed the
// pipe between requests.
func readRequest(in *bufio.Reader) (request, []byte, error) {
	var req request
	line, err := in.ReadBytes('\n')
	if err == io.EOF && len(line) == 0 {
		return req, nil, io.EOF
	}
	if err != nil {
		return req, nil, noEOF(err)
	}
	if err := json.Unmarshal(line, &req); err != nil {
		return req, nil, err
	}
	// One buffer of the announced size, rather than one grown by doubling.
	data := make([]byte, 0, min(max(req.Size, 0), 1<<30))
	var frame [4]byte
	for {
		if _, err := io.ReadFull(in, frame[:]); err != nil {
			return req, nil, noEOF(err)
		}
		n := int(binary.BigEndian.Uint32(frame[:]))
		if n == 0 {
			return req, data, nil
		}
		if n > maxChunk {
			return req, nil, fmt.Errorf("a chunk of %d bytes (at most %d)", n, maxChunk)
		}
		data = slices.Grow(data, n)
		m := len(data)
		data = data[:m+n]
		if _, err := io.ReadFull(in, data[m:]); err != nil {
			return req, nil, noEOF(err)
		}
	}
}

func noEOF(err error) error {
	if err == io.EOF {
		return io.ErrUnexpectedEOF
	}
	return err
}

// lockedHead is a headBuffer written by the goroutine that reads a child's
// stderr and read by the request that the child serves.
type lockedHead struct {
	mu   sync.Mutex
	head headBuffer
}

func (h *lockedHead) Write(p []byte) (int, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.head.Write(p)
}

func (h *lockedHead) reset() {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.head.buf.Reset()
}

func (h *lockedHead) String() string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.head.String()
}

func (h *lockedHead) summary() string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.head.summary()
}
