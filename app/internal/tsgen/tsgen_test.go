package main

import (
	"strings"
	"testing"

	"github.com/docent/docent/agent/tsdecl"
)

// TestGeneratedFileIsCurrent is the CI check that the TypeScript types of
// the HTTP API are those of the Go types: it fails, with the command to
// run, when the checked-in file differs from what the generator writes now.
func TestGeneratedFileIsCurrent(t *testing.T) {
	if err := file.Stale(); err != nil {
		t.Fatal(err)
	}
}

// The generated file has what the web UI relies on: every error code the
// server answers with (misdirected among them), the field of a field
// error, typed evidence, request bodies whose members may be left out, the
// desktop window's events, and the agent's types imported, not declared
// twice.
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
		"export type ErrorCode =\n",
		"  | \"misdirected\"\n",
		"  | \"unreachable\";\n",
		"  code: ErrorCode;\n",
		"  field?: string;\n",
		"export interface DocumentInfo {\n",
		"  evidence: EvidenceMap;\n",
		"  validation_errors: SchemaProblem[];\n",
		"export interface TagBody {\n  name?: string;\n",
		"  working_state: WorkingState;\n",
		"  data?: MessageData;\n",
		"  response_format: ResponseFormat;\n",
		"export const importedEvent = \"docent:imported\";\n",
		"  report?: ImportReport;\n",
		"export interface ServerSettings {\n",
		"  report: EvalReport;\n",
		"import type { ",
	} {
		if !strings.Contains(s, want) {
			t.Errorf("the generated file lacks %q", want)
		}
	}
	for _, not := range []string{"export interface Extraction ", "export interface Value ", "export interface WorkingState "} {
		if strings.Contains(s, not) {
			t.Errorf("the generated file declares %q, which events.gen.ts declares or which is not a wire type", not)
		}
	}
	if !strings.Contains(s, Command) {
		t.Error("the generated file does not say how to regenerate it")
	}
}
