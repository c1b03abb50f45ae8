package pdftext

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"strconv"
)

// The child side of ExtractIsolated: the same executable, started with
// childEnv set, reads one PDF from stdin and writes one JSON reply to stdout.
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
		os.Exit(runChild(os.Stdin, os.Stdout))
	}
}

// request is the first line the parent writes to the child's stdin; the PDF
// bytes follow it. Options travel this way, not in arguments or the
// environment, so that a password never shows in a process listing.
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

// reply is the child's one line of output.
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

func runChild(stdin io.Reader, stdout io.Writer) int {
	applyChildLimits()

	in := bufio.NewReader(stdin)
	line, err := in.ReadBytes('\n')
	var req request
	if err == nil {
		err = json.Unmarshal(line, &req)
	}
	var data []byte
	if err == nil {
		var buf bytes.Buffer
		buf.Grow(int(min(max(req.Size, 0), 1<<30)) + bytes.MinRead)
		_, err = buf.ReadFrom(in)
		data = buf.Bytes()
	}
	var rep reply
	if err != nil {
		rep.Error = &replyError{Message: fmt.Sprintf("pdf reader: reading request: %v", err)}
	} else if req.Op != "" {
		if out, err := runOp(req, data); err != nil {
			rep.Error = &replyError{Kind: errorKind(err), Message: err.Error()}
		} else {
			rep.Output = out
		}
	} else if res, err := Extract(context.Background(), data, req.Options); err != nil {
		rep.Error = &replyError{Kind: errorKind(err), Message: err.Error()}
	} else {
		rep.Result = &res
	}
	if err := writeReply(stdout, rep); err != nil {
		fmt.Fprintf(os.Stderr, "pdf reader: writing reply: %v\n", err)
		return 1
	}
	return 0
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
// stack.
func applyChildLimits() {
	if limit, _ := strconv.ParseInt(os.Getenv(memoryEnv), 10, 64); limit > 0 {
		applyMemoryLimit(limit)
	}
	debug.SetMaxStack(256 << 20)
}
