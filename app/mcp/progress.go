package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/docent/docent/agent"
)

// progressEvery is how often a call that asked for progress (a
// progressToken, as clients send for run_extraction) hears that it is still
// running: a model can take minutes, and a client shows the call alive.
var progressEvery = 2 * time.Second

// startProgress sends, when the client asked for progress, a notification
// that the call started (what it does, in words: the tool's summary), then
// one every progressEvery while it runs. The returned stop ends them; it
// must be called once the call returns.
func startProgress(ctx context.Context, req *sdk.CallToolRequest, t agent.Tool, env *agent.ToolEnv, args json.RawMessage) func() {
	token := req.Params.GetProgressToken()
	if token == nil || req.Session == nil {
		return func() {}
	}
	what := agent.Summarize(ctx, env, t.Name, args).Title
	notify := func(n float64, msg string) {
		// A client that went away hears nothing; the call goes on until
		// its context says otherwise.
		_ = req.Session.NotifyProgress(ctx, &sdk.ProgressNotificationParams{ProgressToken: token, Progress: n, Message: msg})
	}
	notify(0, what)
	done := make(chan struct{})
	stopped := make(chan struct{})
	go func() {
		defer close(stopped)
		tick := time.NewTicker(progressEvery)
		defer tick.Stop()
		start := time.Now()
		for n := 1.0; ; n++ {
			select {
			case <-done:
				return
			case <-ctx.Done():
				return
			case <-tick.C:
				notify(n, fmt.Sprintf("%s: still running (%s)", what, time.Since(start).Round(time.Second)))
			}
		}
	}()
	return func() { close(done); <-stopped }
}
