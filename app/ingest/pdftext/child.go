package pdftext

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"strconv"
)

// The child side of ExtractIsolated: the same executable, started with
// childEnv set, reads requests from stdin (each a line of JSON and the
// PDF's bytes in chunks, see writeRequest) and writes one line of JSON for
// each to stdout, until stdin ends.
const (
	childEnv  = "DOCENT_PDFTEXT_CHILD"
	memoryEnv = "DOCENT_PDFTEXT_MEMORY" // the memory limit in bytes
	execEnv   = "DOCENT_PDFTEXT_EXEC"   // a program to run under the memory limit (LimitedCommand)
)

// RunChildIfRequested turns this process into a PDF reader when
// ExtractIsolated started it as one, and exits when the reader is done;
// otherwise it returns at once. main calls it first thing, before anything
// else starts; so must the TestMain of every test binary whose tests read
// PDFs through ExtractIsolated, since the child is that test binary.
func RunChildIfRequested() {
	if path := os.Getenv(execEnv); path != "" {
		os.Exit(execLimited(path))
	}
	if os.Getenv(childEnv) == "1" {
		os.Exit(runChild(os.Stdin, replyOutput()))
	}
}

// ChildMemoryLimit is this process's memory limit (Limits.MemoryBytes)
// when it is a reader child, else 0. A child operation that can tell how
// much it will allocate before it does (an image's decoded size, from its
// header) checks that against the limit first: refused up front, the same
// file fails the same way whatever else runs, with the reason, rather than
// the child dying part way.
func ChildMemoryLimit() int64 {
	if os.Getenv(childEnv) != "1" {
		return 0
	}
	n, _ := strconv.ParseInt(os.Getenv(memoryEnv), 10, 64)
	return max(n, 0)
}

// request is the first line of each request the parent writes to the
// child's stdin; the PDF bytes follow it in chunks. Options travel this
// way, not in arguments or the environment, so that a password never shows
// in a process listing.
type request struct {
	// Op names a registered child operation (RegisterChildOp); "" is the
	// PDF reader.
	Op string `json:"op,omitempty"`
	// Params are the operation's parameters.
	Params  json.RawMessage `json:"params,omitempty"`
	Options Options         `json:"options"`
	// Size is how many bytes follow, so that the child holds them in one
	// buffer of that size rather than in one grown by doubling.
	Size int64 `json:"size,omitempty"`
}

// reply is the child's one line of output for each request.
type reply struct {
	Result *Result `json:"result,omitempty"`
	// Output is a child operation's result.
	Output json.RawMessage `json:"output,omitempty"`
	Error  *replyError     `json:"error,omitempty"`
}

// ChildOp is work that runs in a reader child besides reading a PDF's text
// (decoding an image, say): it gets the parameters and the bytes RunIsolated
// sent and returns what is sent back as JSON. An error keeps its kind
// (ErrMalformed, ErrTooLarge…) across the process boundary; a panic becomes
// ErrMalformed.
type ChildOp func(ctx context.Context, params json.RawMessage, data []byte) (any, error)

var childOps = map[string]ChildOp{}

// RegisterChildOp makes op available to RunIsolated under name. Packages
// call it from init, so that the child, which is this same executable,
// knows every operation the parent can ask for.
func RegisterChildOp(name string, op ChildOp) {
	if _, dup := childOps[name]; dup || name == "" {
		panic("pdftext: child operation registered twice or without a name: " + name)
	}
	childOps[name] = op
}

func runOp(req request, data []byte) (out json.RawMessage, err error) {
	defer func() {
		if r := recover(); r != nil {
			out, err = nil, malformed("%s failed: %v", req.Op, r)
		}
	}()
	op, ok := childOps[req.Op]
	if !ok {
		return nil, fmt.Errorf("unknown child operation %q", req.Op)
	}
	v, err := op(context.Background(), req.Params, data)
	if err != nil {
		return nil, err
	}
	return json.Marshal(v)
}

type replyError struct {
	Kind    string `json:"kind,omitempty"` // see errorKinds; "" for no known kind
	Message string `json:"message"`
}

// newReplyError is err as the parent gets it: with its kind, and an
// allocation that failed under the memory limit (a library's "cannot
// allocate memory", which the child survived) said to be one, with the
// kind of a child that died of it.
func newReplyError(err error) *replyError {
	kind, msg := errorKind(err), err.Error()
	if kind == "" && outOfMemory(msg) {
		kind, msg = "too_large", "out of memory: "+msg
	}
	return &replyError{Kind: kind, Message: msg}
}

// runChild serves requests until stdin ends (the parent retired this
// child or exited). A request that cannot be read is answered with an
// error and ends the child: the stream is out of step.
func runChild(stdin io.Reader, stdout io.Writer) int {
	applyChildLimits()

	in := bufio.NewReaderSize(stdin, 64<<10)
	for {
		req, data, err := readRequest(in)
		if err == io.EOF {
			return 0
		}
		var rep reply
		if err != nil {
			rep.Error = &replyError{Message: fmt.Sprintf("pdf reader: reading request: %v", err)}
		} else {
			rep = serve(req, data)
		}
		data = nil // not held while the reply is written, nor while idle
		if err := writeReply(stdout, rep); err != nil {
			fmt.Fprintf(os.Stderr, "pdf reader: writing reply: %v\n", err)
			return 1
		}
		if err != nil {
			return 1
		}
	}
}

// serve runs one request.
func serve(req request, data []byte) reply {
	var rep reply
	if req.Op != "" {
		if out, err := runOp(req, data); err != nil {
			rep.Error = newReplyError(err)
		} else {
			rep.Output = out
		}
	} else if res, err := Extract(context.Background(), data, req.Options); err != nil {
		rep.Error = newReplyError(err)
	} else {
		rep.Result = &res
	}
	return rep
}

// writeReply writes rep as one line of JSON. The words of a result, most of
// a long document's reply, are encoded and written a page at a time: encoded
// whole first, a 4,000-page file's took a buffer as large again as the
// result itself. The rest of the result is encoded as usual and the words
// are spliced in as its last field.
func writeReply(w io.Writer, rep reply) error {
	if rep.Result == nil || len(rep.Result.Words) == 0 {
		return json.NewEncoder(w).Encode(rep)
	}
	res := *rep.Result
	words := res.Words
	res.Words = nil
	head, err := json.Marshal(reply{Result: &res})
	if err != nil {
		return err
	}
	// head is {"result":{"pages":[…],…}}: open it again before its two
	// closing braces (Pages is always there, so a comma follows it).
	if !bytes.HasSuffix(head, []byte("}}")) {
		return fmt.Errorf("unexpected reply encoding %.40q", head)
	}
	bw := bufio.NewWriterSize(w, 256<<10)
	bw.Write(head[:len(head)-2])
	bw.WriteString(`,"words":[`)
	for i, pw := range words {
		if i > 0 {
			bw.WriteByte(',')
		}
		b, err := pw.MarshalJSON()
		if err != nil {
			return err
		}
		bw.Write(b)
	}
	bw.WriteString("]}}\n")
	return bw.Flush()
}

// applyChildLimits sets the memory limit the parent asked for, and a stack
// limit: a parser recursing without end should fail fast, not grow a 1 GB
// stack. It also sets the collector's pace (tuneGC), unless GOGC does.
func applyChildLimits() {
	if limit, _ := strconv.ParseInt(os.Getenv(memoryEnv), 10, 64); limit > 0 {
		applyMemoryLimit(limit)
	}
	if os.Getenv("GOGC") == "" {
		tuneGC()
	}
	debug.SetMaxStack(256 << 20)
}

// childHeapFloor is the heap a reader child may grow to before it collects,
// however little of it is live. Every page the heap grows onto is a page
// fault the first time it is touched, and on a virtual machine a fault
// costs as much as several microseconds of reading: at 32 MB each child
// took some 10,000 of them for an import of 69 invoices, about a third of
// its reading time. At 16 MB the heap reuses pages it already has, for a
// few more collections; an import of the 69 took 9 % less CPU in the
// whole process (docs/benchmarks.md), where 8 MB took more again.
const childHeapFloor = 16 << 20

// tuneGC keeps a reader child from collecting before its heap reaches
// childHeapFloor: between requests a child's live heap is a few MB, and at
// Go's default pace it collected every 4 MB allocated, many times for a
// one-page invoice, which made reading the corpus invoices in a child half
// again as slow as in the larger parent (7.2 against 4.7 ms a file). After every collection GOGC is set so that the
// next one comes at childHeapFloor, or at twice the live heap (Go's
// default, GOGC=100) once that is more, so that a large file's peak is
// what it was; the memory limit bounds the heap as before.
func tuneGC() {
	sample := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	tune := func() {
		metrics.Read(sample)
		live := int64(0)
		if sample[0].Value.Kind() == metrics.KindUint64 {
			live = int64(sample[0].Value.Uint64())
		}
		debug.SetGCPercent(gcPercentFor(live))
	}
	tune()
	// A finalizer runs after each collection that finds its object
	// unreachable; it tunes, and arms the next.
	var arm func()
	arm = func() {
		runtime.SetFinalizer(&gcSentinel{}, func(*gcSentinel) {
			tune()
			arm()
		})
	}
	arm()
}

// gcSentinel is too large for the tiny allocator, whose objects'
// finalizers may never run.
type gcSentinel struct{ _ [32]byte }

// gcPercentFor is the GOGC that puts the next collection at childHeapFloor
// or at twice live bytes, whichever is more. It is at most the GOGC at
// which the runtime's own minimum heap (4 MB × GOGC/100) is the floor,
// which is where a collection comes when nothing is live yet.
func gcPercentFor(live int64) int {
	const most = childHeapFloor * 100 / (4 << 20)
	if live <= 0 {
		return most
	}
	return int(min(max((childHeapFloor-live)*100/live, 100), most))
}
