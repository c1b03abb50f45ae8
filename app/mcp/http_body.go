package mcp

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
)

// MaxRequestBytes is the most a message to /mcp may hold (the SDK's own
// default): a tool's arguments are a schema, a prompt or a value, never a
// document's file, which is imported, not sent as an argument.
const MaxRequestBytes = 4 << 20

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
		body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, MaxRequestBytes))
		var tooLarge *http.MaxBytesError
		switch {
		case errors.As(err, &tooLarge):
			writeRPCError(w, http.StatusRequestEntityTooLarge, leadingID(body), codeInvalidRequest,
				fmt.Sprintf("the request is larger than %d MiB, the most Docent's MCP server takes in one message; import a large document into Docent rather than sending it as an argument", MaxRequestBytes>>20))
			return
		case err != nil:
			// The client left, or its body did not arrive in time
			// (app/server's read deadline): the message says which.
			writeRPCError(w, http.StatusBadRequest, nil, codeInvalidRequest, "the request's body could not be read: "+err.Error())
			return
		case !json.Valid(body):
			writeRPCError(w, http.StatusBadRequest, nil, codeParseError, "the request is not valid JSON; a JSON-RPC 2.0 message is expected")
			return
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		next.ServeHTTP(w, r)
	})
}

// JSON-RPC 2.0's error codes for a request the server could not take.
const (
	codeParseError     = -32700
	codeInvalidRequest = -32600
)

// writeRPCError answers with a JSON-RPC error for id (null when unknown).
func writeRPCError(w http.ResponseWriter, status int, id json.RawMessage, code int, msg string) {
	if id == nil {
		id = json.RawMessage("null")
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(map[string]any{
		"jsonrpc": "2.0", "id": id,
		"error": map[string]any{"code": code, "message": msg},
	})
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
