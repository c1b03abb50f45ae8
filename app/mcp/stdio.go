package mcp

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// maxMessageBytes caps one message on stdio, as the SDK's transport does
// (sdk.DefaultMaxLineLength): a 10 MB argument passes, a larger message is
// refused alone.
const maxMessageBytes = sdk.DefaultMaxLineLength

// ServeStdio serves one client on in and out (a process's stdin and
// stdout, as `docent mcp` does) until it closes in or ctx ends. Nothing
// else may write to out.
//
// A line that is not a JSON-RPC message (not JSON, not a message, over
// maxMessageBytes) is answered with the JSON-RPC error it calls for and
// dropped: the SDK's transport would end the session on it, and with it
// the client's every later call.
func ServeStdio(ctx context.Context, opts Options, readOnly bool, in io.Reader, out io.Writer) error {
	w := &lockedWriter{w: out}
	pr, pw := io.Pipe()
	go func() { pw.CloseWithError(filterMessages(in, pw, w)) }()
	defer pr.Close()
	err := NewServer(opts, readOnly).Run(ctx, &sdk.IOTransport{Reader: pr, Writer: w})
	if err == nil || errors.Is(err, io.EOF) || errors.Is(err, io.ErrClosedPipe) || ctx.Err() != nil {
		return nil // the client closed its end, or the user stopped docent
	}
	return fmt.Errorf("serve MCP on stdio: %w", err)
}

// lockedWriter writes whole messages, one at a time: the SDK's and the
// filter's answers share stdout. Close leaves the process's stdout open.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

func (*lockedWriter) Close() error { return nil }

// filterMessages copies the lines of in that are JSON-RPC messages (or
// batches of them) to out, and answers the others on reply. It returns
// when in ends or out is closed.
func filterMessages(in io.Reader, out io.Writer, reply io.Writer) error {
	r := bufio.NewReaderSize(in, 64<<10)
	for {
		line, tooLong, err := readLine(r, maxMessageBytes)
		if len(bytes.TrimSpace(line)) > 0 || tooLong {
			if answer := check(line, tooLong); answer != nil {
				if _, werr := reply.Write(answer); werr != nil {
					return werr
				}
			} else if _, werr := out.Write(append(line, '\n')); werr != nil {
				return werr
			}
		}
		if err != nil {
			return err // io.EOF: the client closed its end
		}
	}
}

// tooLongKept is how much of a line over the limit readLine keeps: its
// start, where a client writes the message's id, for the error's answer.
const tooLongKept = 64 << 10

// readLine reads one line, without its newline, of at most limit bytes;
// of a longer one it keeps the first tooLongKept bytes and reads on to its
// end.
func readLine(r *bufio.Reader, limit int) (line []byte, tooLong bool, err error) {
	for {
		chunk, err := r.ReadSlice('\n')
		switch {
		case tooLong:
		case len(line)+len(chunk) > limit+1:
			tooLong = true
			if len(line) < tooLongKept {
				line = append(line, chunk[:min(len(chunk), tooLongKept-len(line))]...)
			}
			line = bytes.Clone(line[:min(len(line), tooLongKept)]) // not the limit's worth behind it
		default:
			line = append(line, chunk...)
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		return bytes.TrimRight(line, "\r\n"), tooLong, err
	}
}

// check returns the JSON-RPC error answer to a line that is not a
// message the server can read, or nil when it is one.
func check(line []byte, tooLong bool) []byte {
	if tooLong {
		// With the call's id when its start holds it: a client then fails
		// that call, where an answer without one ends its session.
		return errorAnswer(leadingID(line), jsonrpc.CodeInvalidRequest, fmt.Sprintf("message over %d MiB", maxMessageBytes>>20))
	}
	trimmed := bytes.TrimSpace(line)
	if !json.Valid(trimmed) {
		return errorAnswer(nil, jsonrpc.CodeParseError, "parse error: the line is not JSON")
	}
	if trimmed[0] == '[' {
		var batch []json.RawMessage
		if err := json.Unmarshal(trimmed, &batch); err != nil || len(batch) == 0 {
			return errorAnswer(nil, jsonrpc.CodeInvalidRequest, "invalid request: an empty or malformed batch")
		}
		for _, m := range batch {
			if _, err := jsonrpc.DecodeMessage(m); err != nil {
				return errorAnswer(idOf(m), jsonrpc.CodeInvalidRequest, "invalid request: "+err.Error())
			}
		}
		return nil
	}
	if _, err := jsonrpc.DecodeMessage(trimmed); err != nil {
		return errorAnswer(idOf(trimmed), jsonrpc.CodeInvalidRequest, "invalid request: "+err.Error())
	}
	return nil
}

// idOf is a message's id when it has a usable one, for its error answer.
func idOf(msg []byte) json.RawMessage {
	var m struct {
		ID json.RawMessage `json:"id"`
	}
	if json.Unmarshal(msg, &m) != nil || len(m.ID) == 0 {
		return nil
	}
	switch m.ID[0] {
	case '"', '-', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9':
		return m.ID
	}
	return nil
}

// errorAnswer is a JSON-RPC error response line.
func errorAnswer(id json.RawMessage, code int64, msg string) []byte {
	if id == nil {
		id = json.RawMessage("null")
	}
	type rpcError struct {
		Code    int64  `json:"code"`
		Message string `json:"message"`
	}
	b, _ := json.Marshal(struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Error   rpcError        `json:"error"`
	}{JSONRPC: "2.0", ID: id, Error: rpcError{code, msg}})
	return append(b, '\n')
}
