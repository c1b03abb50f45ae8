// Command tsgen writes the TypeScript wire types of the agent's events, and
// of the metadata stored with thread messages, from their Go types:
// frontend/src/api/events.gen.ts. It reflects over the event payloads
// registered in package agent (agent.EventTypes, agent.PayloadType) and
// agent.MessageData, and over every struct they reference, reading members
// through their JSON tags as encoding/json does; doc comments are copied
// from the Go source.
//
// Run it after changing those types, from the repository root:
//
//	go generate ./agent/          (or: go run ./agent/internal/tsgen)
//
// With -check it writes nothing and fails when the file is not what it
// would write; TestGeneratedFileIsCurrent does the same under `go test`,
// which is how CI notices a stale file.
//
// The mapping from Go to TypeScript is package tsdecl's; an event payload
// XPayload is the interface XEvent, with its `type` first. The evidence of
// an extraction (agent/evidence) is declared here too, as Extraction holds
// it.
package main

import (
	"github.com/docent/docent/agent/tsdecl"
)

// Output is the generated file, relative to the repository root.
const Output = tsdecl.EventsFile

// Command is how to regenerate it, as the file and the test tell it.
const Command = tsdecl.EventsCommand

func main() { file.Main() }

// file is the generated file, as main writes it and the test checks it.
var file = tsdecl.File{Output: Output, Command: Command, Generate: Generate}

// Generate returns the file's content; root is the repository root, where
// the Go sources of the doc comments are.
func Generate(root string) ([]byte, error) {
	src, _, err := tsdecl.Events(root)
	return src, err
}
