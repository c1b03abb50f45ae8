// Command tsgen writes the web UI's TypeScript contract with the server
// from the Go types, so that nothing of it is written twice:
//
//   - frontend/src/api/events.gen.ts: the agent's events (package agent)
//     and the metadata stored with thread messages (events.go);
//   - frontend/src/api/api.gen.ts: the request and answer bodies and query
//     parameters of the HTTP API, the codes of its error answers and the
//     desktop window's import events (apiFile);
//   - frontend/src/api/routes.gen.ts: one typed function per route of
//     app/server's route table, from each route's Contract (routes.go).
//
// The Go-to-TypeScript mapping is Gen's (gen.go). Run it after changing
// those types, from the repository root:
//
//	go generate ./app/server/          (or: go run ./app/internal/tsgen)
//
// With -check it writes nothing and fails when a file is not what it
// would write; TestGeneratedFilesAreCurrent does the same under `go test`.
package main

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"

	"github.com/docent/docent/agent"
	"github.com/docent/docent/agent/schema"
	"github.com/docent/docent/app/cli"
	"github.com/docent/docent/app/desktop"
	"github.com/docent/docent/app/export"
	"github.com/docent/docent/app/server"
	"github.com/docent/docent/app/settings"
	"github.com/docent/docent/storage"
)

// Command is how to regenerate the files, as they and the test tell it.
const Command = "go generate ./app/server/ (or, from the repository root: go run ./app/internal/tsgen)"

// The generated files, relative to the repository root.
const (
	EventsFile = "frontend/src/api/events.gen.ts"
	APIFile    = "frontend/src/api/api.gen.ts"
	RoutesFile = "frontend/src/api/routes.gen.ts"
)

func main() {
	check := flag.Bool("check", false, "write nothing; fail when a generated file is stale")
	flag.Parse()
	if err := run(*check); err != nil {
		fmt.Fprintln(os.Stderr, "tsgen:", err)
		os.Exit(1)
	}
}

func run(check bool) error {
	root, err := RepoRoot()
	if err != nil {
		return err
	}
	files, err := Generate(root)
	if err != nil {
		return err
	}
	for _, path := range []string{EventsFile, APIFile, RoutesFile} {
		if err := writeOrCheck(filepath.Join(root, path), files[path], check); err != nil {
			return err
		}
	}
	return nil
}

// writeOrCheck writes src to path, or with check says how the file there
// differs from it, with the command to run.
func writeOrCheck(path string, src []byte, check bool) error {
	if !check {
		return os.WriteFile(path, src, 0o644)
	}
	old, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("%w; run %s", err, Command)
	}
	if !bytes.Equal(old, src) {
		return fmt.Errorf("%s is stale (%s): run %s", path, FirstDifference(old, src), Command)
	}
	return nil
}

// Generate returns the content of each generated file by its path; root
// is the repository root, where the Go sources of the doc comments are.
func Generate(root string) (map[string][]byte, error) {
	eventsSrc, events, err := Events(root)
	if err != nil {
		return nil, err
	}
	apiSrc, routesSrc, err := apiFiles(root, events)
	if err != nil {
		return nil, err
	}
	return map[string][]byte{EventsFile: eventsSrc, APIFile: apiSrc, RoutesFile: routesSrc}, nil
}

// apiFiles returns api.gen.ts and routes.gen.ts; events are the types
// events.gen.ts declares, which both import from there.
func apiFiles(root string, events map[reflect.Type]string) (api, routes []byte, err error) {
	g := New(root)
	g.Imported = events
	g.Names[reflect.TypeFor[storage.Document]()] = "DocumentInfo"
	g.Names[reflect.TypeFor[cli.ImportReport]()] = "ImportReport"
	// Go's names that are too general for the web UI's one namespace.
	g.Names[reflect.TypeFor[settings.View]()] = "ServerSettings"
	g.Names[reflect.TypeFor[settings.Patch]()] = "SettingsPatch"
	g.Names[reflect.TypeFor[settings.Check]()] = "ProviderCheck"
	g.Names[reflect.TypeFor[settings.Status]()] = "SetupStatus"
	g.Names[reflect.TypeFor[settings.OllamaStatus]()] = "SetupOllama"
	g.Names[reflect.TypeFor[settings.OpenAIStatus]()] = "SetupOpenAI"
	g.Names[reflect.TypeFor[settings.NextStep]()] = "SetupStep"
	g.Names[reflect.TypeFor[settings.Recommended]()] = "SetupRecommended"
	g.Names[reflect.TypeFor[export.Column]()] = "DataColumn"
	g.Names[reflect.TypeFor[storage.Word]()] = "PageWord"
	g.Names[reflect.TypeFor[agent.Message]()] = "ChatMessage"
	// Query parameters of the Go constants' values.
	g.Names[reflect.TypeFor[storage.DocumentSort]()] = "DocumentSort"
	g.Names[reflect.TypeFor[storage.RowStatus]()] = "DataStatus"
	g.Names[server.SortOrderType()] = "SortOrder"
	g.Names[reflect.TypeFor[agent.PriceSource]()] = "PriceSource"

	g.Union("ErrorCode", "The `code` of an error answer ({error, code, field?}): what a client\nbranches on, never the message. app/server's statusOf gives each its\nHTTP status.", server.ErrorCodes())
	for _, t := range server.WireTypes() {
		g.Declare(t)
	}
	for _, t := range server.RequestTypes() {
		g.DeclareRequest(t)
	}
	apiRoutes := server.APIRoutes()
	for _, rt := range apiRoutes {
		if rt.Query != nil && !g.done[rt.Query] {
			g.DeclareRequest(rt.Query) // every parameter may be left out
		}
	}
	g.WriteString(fmt.Sprintf("\n/** The desktop window's runtime event when an import starts: an ImportEvent without a report. */\nexport const importingEvent = %q;\n", desktop.ImportingEvent))
	g.WriteString(fmt.Sprintf("\n/** The desktop window's runtime event when an import ends: an ImportEvent. */\nexport const importedEvent = %q;\n", desktop.ImportedEvent))
	g.Declare(reflect.TypeFor[desktop.ImportEvent]())
	g.Declare(reflect.TypeFor[cli.ImportReport]())
	// Stored as JSON by the store, which does not know the agent's types:
	// the store's SchemaRevision names it with a ts tag.
	g.Declare(reflect.TypeFor[schema.ResponseFormat]())
	// The same for an evaluation's report, which the store's Evaluation
	// holds.
	g.Declare(reflect.TypeFor[agent.EvalReport]())
	routesSrc := routesFile(g, apiRoutes)
	body, err := g.Finish()
	if err != nil {
		return nil, nil, err
	}

	var b strings.Builder
	b.WriteString(`// Code generated by tsgen from the Go types of the HTTP API; DO NOT EDIT.
//
// The request and answer bodies of the HTTP API (docs/protocol.md), the
// codes of its error answers and the desktop window's import events, as
// app/server/wire.go lists them. After changing those types run
//
//   ` + Command + `
//
// A Go test (app/internal/tsgen) fails while this file is stale.
`)
	if imports := g.Imports(); len(imports) > 0 {
		fmt.Fprintf(&b, "\nimport type { %s } from \"./events.gen\";\n", strings.Join(imports, ", "))
	}
	b.Write(body)
	return []byte(b.String()), routesSrc.finish(events), nil
}
