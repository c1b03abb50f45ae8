package mcp

import sdk "github.com/modelcontextprotocol/go-sdk/mcp"

func addPrompts(s *sdk.Server, opts Options) {}
