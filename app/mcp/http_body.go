package mcp

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// MaxRequestBytes is the most one message to /mcp may hold: what `docent
// mcp` takes on stdio (maxMessageBytes, the SDK's line limit there), so a
// message one edge reads the other reads too; a 10 MB argument reaches its
// tool. A document's file is imported, never sent as an argument.
const MaxRequestBytes = maxMessageBytes

// checkBody reads a POST's body, at most MaxRequestBytes of it, and
// answers what the SDK would answer in plain text (or, over the cap, with
// an error its client cannot tie to the call, which ends the client's
// session) as a JSON-RPC error: a body over the cap gets 413 with an error
// for the request's id, so a client hears which call was refused and why
// and its session goes on; a body that is not JSON gets 400 with a parse
// error. A body that passes is handed on as read.
func checkBody(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost || r.Body == nil || r.Body == http.NoBody {
			next.ServeHTTP(w, r)
			return
		}
		var buf bytes.Buffer
		if n := r.ContentLength; n > 0 && n <= MaxRequestBytes {
			buf.Grow(int(n) + bytes.MinRead) // read in one buffer, not doubled up to it
		}
		_, err := buf.ReadFrom(http.MaxBytesReader(w, r.Body, MaxRequestBytes))
		body := buf.Bytes()
		var tooLarge *http.MaxBytesError
		switch {
		case errors.As(err, &tooLarge):
			writeRPCError(w, http.StatusRequestEntityTooLarge, leadingID(body), jsonrpc.CodeInvalidRequest,
				fmt.Sprintf("the request is larger than %d MiB, the most Docent's MCP server takes in one message; import a large document into Docent rather than sending it as an argument", MaxRequestBytes>>20))
			return
		case err != nil:
			// The client left, or its body did not arrive in time
			// (app/server's read deadline): the message says which.
			writeRPCError(w, http.StatusBadRequest, nil, jsonrpc.CodeInvalidRequest, "the request's body could not be read: "+err.Error())
			return
		case !json.Valid(body):
			writeRPCError(w, http.StatusBadRequest, nil, jsonrpc.CodeParseError, "the request is not valid JSON; a JSON-RPC 2.0 message is expected")
			return
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		next.ServeHTTP(w, r)
	})
}

// writeRPCError answers with a JSON-RPC error for id (null when unknown),
// as stdio's are written.
func writeRPCError(w http.ResponseWriter, status int, id json.RawMessage, code int64, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(errorAnswer(id, code, msg))
}

// leadingID is the id of the JSON-RPC request whose start prefix holds,
// when its "id" comes before the member cut off (clients write it before
// the params): nil when there is none to be found.
func leadingID(prefix []byte) json.RawMessage {
	dec := json.NewDecoder(bytes.NewReader(prefix))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil
	}
	for dec.More() {
		key, err := dec.Token()
		if err != nil {
			return nil
		}
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil
		}
		if key != "id" {
			continue
		}
		switch {
		case len(v) > 0 && v[0] == '"':
			return v
		case len(v) > 0 && (v[0] == '-' || (v[0] >= '0' && v[0] <= '9')):
			// A number at the very end of the part read may be cut short.
			if len(bytes.TrimSpace(prefix[dec.InputOffset():])) == 0 {
				return nil
			}
			return v
		default:
			return nil
		}
	}
	return nil
}
