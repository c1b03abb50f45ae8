package mcp

import sdk "github.com/modelcontextprotocol/go-sdk/mcp"

func addResources(s *sdk.Server, opts Options) {}
