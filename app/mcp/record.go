package mcp

import (
	"context"
	"encoding/json"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/docent/docent/agent"
	"github.com/docent/docent/agent/textfmt"
)

// recordWrite is the one place every write through MCP passes, after it
// succeeded: what changed (the tool, its arguments, its one-line preview,
// what it created), when, through which edge and which client. For now it
// is logged; the undo journal will keep it, with the thread-less history
// the app shows, once it exists.
func (o Options) recordWrite(ctx context.Context, req *sdk.CallToolRequest, t agent.Tool, args json.RawMessage, res agent.ToolResult) {
	client := ""
	if req.Session != nil {
		if p := req.Session.InitializeParams(); p != nil && p.ClientInfo != nil {
			client = p.ClientInfo.Name
		}
	}
	created := make([]string, len(res.Created))
	for i, r := range res.Created {
		created[i] = r.Kind + " " + r.ID
	}
	o.logger().InfoContext(ctx, "write through MCP",
		"edge", "mcp", "transport", o.Edge, "client", client, "tool", t.Name,
		"args", logArgs(args), "preview", res.Preview, "created", created)
}

// logArgs are a call's arguments as the log keeps them: cut at 2,000
// characters, since an argument may be megabytes (a schema, a value).
func logArgs(args json.RawMessage) string {
	s, _ := textfmt.Cut(string(args), 2000)
	return s
}
