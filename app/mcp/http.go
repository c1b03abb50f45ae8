package mcp

import (
	"net/http"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// httpSessionIdle is how long an HTTP client's session lives without a
// request: a client that went away without saying so is forgotten then.
const httpSessionIdle = time.Hour

// Handler serves MCP over Streamable HTTP, as `docent --serve` does at
// /mcp; the caller applies its access rules (token, Origin, Host) first.
// A client gets the read-only tools alone while opts.ReadOnly says so
// when it connects, and a write is refused at any time it says so. A
// message over MaxRequestBytes, or one that is not JSON, is answered with
// a JSON-RPC error (checkBody).
func Handler(opts Options) http.Handler {
	full, readOnly := NewServer(opts, false), NewServer(opts, true)
	return checkBody(sdk.NewStreamableHTTPHandler(func(r *http.Request) *sdk.Server {
		if opts.readOnly(r.Context()) {
			return readOnly
		}
		return full
	}, &sdk.StreamableHTTPOptions{SessionTimeout: httpSessionIdle, MaxRequestBodyBytes: MaxRequestBytes}))
}
