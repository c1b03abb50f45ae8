package cli

import (
	"context"
	"flag"
	"log/slog"

	"github.com/docent/docent/app"
	"github.com/docent/docent/app/mcp"
)

// runMCP serves Docent's tools to an MCP client on stdin and stdout
// (`docent mcp`): Claude Desktop, Claude Code, Cursor and the like start it
// as a child process. Stdout is the protocol's alone; the log, with every
// write the client makes, goes to stderr, which those clients keep in
// their logs.
func runMCP(ctx context.Context, env *Env, args []string) error {
	fs := flag.NewFlagSet("mcp", flag.ContinueOnError)
	readOnly := fs.Bool("read-only", false, "")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return usagef("mcp takes no arguments\n%s", usageLine("mcp"))
	}
	live, err := env.Settings(ctx)
	if err != nil {
		return err
	}
	logger := slog.New(slog.NewTextHandler(env.IO.Err, &slog.HandlerOptions{Level: slog.LevelInfo}))
	opts := mcp.Options{Agent: live.Agent, Edge: "stdio", Version: app.Build().Version, Logger: logger}
	return mcp.ServeStdio(ctx, opts, *readOnly, env.IO.In, env.IO.Out)
}
