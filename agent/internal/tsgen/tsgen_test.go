package main

import (
	"strings"
	"testing"

	"github.com/docent/docent/agent/tsdecl"
)

// TestGeneratedFileIsCurrent is the CI check that the TypeScript wire types
// are those of the Go types: it fails, with the command to run, when the
// checked-in file differs from what the generator writes now.
func TestGeneratedFileIsCurrent(t *testing.T) {
	if err := file.Stale(); err != nil {
		t.Fatal(err)
	}
}

// The generated file names every event type once, in the union, with the
// protocol's field names and optional members.
func TestGeneratedShapes(t *testing.T) {
	root, err := tsdecl.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	src, err := Generate(root)
	if err != nil {
		t.Fatal(err)
	}
	s := string(src)
	for _, want := range []string{
		"export interface ToolResultEvent {\n  type: \"tool_result\";\n",
		"  call_id: string;\n",
		"  success: boolean;\n",
		"  result?: unknown;\n",
		"  preview?: string;\n",
		"  | ToolResultEvent\n",
		"  code?: string;\n",
		"  needs_approval: string[];\n",
		"  turn_id?: string;\n",
		"  extraction?: Extraction;\n",
		"  created_at: string;\n",
		"export interface MessageData {\n",
		"  round_index?: number;\n",
		"  mentions?: Mention[];\n",
		"  type: \"schema\" | \"prompt\" | \"tag\" | \"document\";\n",
		"export type AgentEventType = AgentEvent[\"type\"];\n",
	} {
		if !strings.Contains(s, want) {
			t.Errorf("the generated file lacks %q", want)
		}
	}
	if !strings.Contains(s, Command) {
		t.Error("the generated file does not say how to regenerate it")
	}
	if tsdecl.FirstDifference([]byte("a\nb\n"), []byte("a\nc\n")) != `line 2 is "b", want "c"` {
		t.Error(tsdecl.FirstDifference([]byte("a\nb\n"), []byte("a\nc\n")))
	}
}
