package mcp

import (
	"context"
	"encoding/json"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/docent/docent/agent"
	"github.com/docent/docent/agent/textfmt"
)

// recordWrite is the one place every write through MCP passes, after it
// succeeded. The store has journaled it already, in the write's own
// transaction, as the client's through the mcp edge (the handler's
// storage.WithActor): the History page, `docent history` and undo show
// it. The log line says the same for people who read logs, with the
// arguments as the client sent them (document_id included).
func (o Options) recordWrite(ctx context.Context, req *sdk.CallToolRequest, t agent.Tool, res agent.ToolResult) {
	client := clientName(req)
	created := make([]string, len(res.Created))
	for i, r := range res.Created {
		created[i] = r.Kind + " " + r.ID
	}
	o.logger().InfoContext(ctx, "write through MCP",
		"edge", "mcp", "transport", o.Edge, "client", client, "tool", t.Name,
		"args", logArgs(req.Params.Arguments), "preview", res.Preview, "created", created)
}

// logArgs are a call's arguments as the log keeps them: cut at 2,000
// characters, since an argument may be megabytes (a schema, a value).
func logArgs(args json.RawMessage) string {
	s, _ := textfmt.Cut(string(args), 2000)
	return s
}

// clientNameMax is how many characters of the name a client gives are
// kept: enough for any real client's ("claude-ai", "Visual Studio Code"),
// and a name of megabytes would otherwise be stored in every journal entry
// of its writes, and logged with each.
const clientNameMax = 200

// clientName is how the history names an MCP client: the name it gave
// when it connected ("claude-ai", "cursor"), cut to clientNameMax
// characters, or "MCP client".
func clientName(req *sdk.CallToolRequest) string {
	if req.Session != nil {
		if p := req.Session.InitializeParams(); p != nil && p.ClientInfo != nil && p.ClientInfo.Name != "" {
			return textfmt.Shorten(p.ClientInfo.Name, clientNameMax)
		}
	}
	return "MCP client"
}
