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
	"time"
)

// The child side of ExtractIsolated: the same executable, started with
// childEnv set, reads one PDF from stdin and writes one JSON reply to stdout.
const (
	childEnv  = "DOCENT_PDFTEXT_CHILD"
	memoryEnv = "DOCENT_PDFTEXT_MEMORY" // the memory limit in bytes
	// testHookEnv is for this package's tests only: "alloc" makes the child
	// allocate without end, "hang" makes it sleep, so that the parent's
	// handling of a child out of memory or out of time can be tested without
	// a PDF that does either.
	testHookEnv = "DOCENT_PDFTEXT_TEST_HOOK"
)

// The child is started from an init function rather than from a call in
// main: every binary that links this package, including the test binaries
// of the packages that import it (ingest, the CLI), can then serve as the
// child without a TestMain of its own. The environment variable is set only
// by ExtractIsolated, so a normal start is unaffected.
func init() {
	if os.Getenv(childEnv) == "1" {
		os.Exit(runChild(os.Stdin, os.Stdout))
	}
}

// request is the first line the parent writes to the child's stdin; the PDF
// bytes follow it. Options travel this way, not in arguments or the
// environment, so that a password never shows in a process listing.
type request struct {
	Options Options `json:"options"`
	// Size is how many bytes follow, so that the child holds them in one
	// buffer of that size rather than in one grown by doubling.
	Size int64 `json:"size,omitempty"`
}

// reply is the child's one line of output.
type reply struct {
	Result *Result     `json:"result,omitempty"`
	Error  *replyError `json:"error,omitempty"`
}

type replyError struct {
	Kind    string `json:"kind,omitempty"` // see errorKinds; "" for no known kind
	Message string `json:"message"`
}

func runChild(stdin io.Reader, stdout io.Writer) int {
	limit, _ := strconv.ParseInt(os.Getenv(memoryEnv), 10, 64)
	if limit > 0 {
		applyMemoryLimit(limit)
	}
	// A parser recursing without end should fail fast, not grow a 1 GB stack.
	debug.SetMaxStack(256 << 20)
	switch os.Getenv(testHookEnv) {
	case "alloc":
		var hold [][]byte
		for {
			b := make([]byte, 16<<20)
			for i := range b {
				b[i] = 1
			}
			hold = append(hold, b)
		}
	case "hang":
		time.Sleep(time.Hour)
	}

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
	} else if res, err := Extract(context.Background(), data, req.Options); err != nil {
		rep.Error = &replyError{Kind: errorKind(err), Message: err.Error()}
	} else {
		rep.Result = &res
	}
	if err := json.NewEncoder(stdout).Encode(rep); err != nil {
		fmt.Fprintf(os.Stderr, "pdf reader: writing reply: %v\n", err)
		return 1
	}
	return 0
}
