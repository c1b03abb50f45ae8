package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestGeneratedFilesAreCurrent is the CI check that the TypeScript
// contract is the Go one: it fails, with the command to run, when a
// checked-in file differs from what the generator writes now.
func TestGeneratedFilesAreCurrent(t *testing.T) {
	if err := run(true); err != nil {
		t.Fatal(err)
	}
}

// The generated files have what the web UI relies on. Events: every event
// type once, in the union, with the protocol's field names and optional
// members. The API: every error code the server answers with, the field of
// a field error, typed evidence, request bodies whose members may be left
// out, the query parameters with the unions of their Go constants, the
// desktop window's events, and the agent's types imported, not declared
// twice. Routes: a typed function per route, none untyped.
func TestGeneratedShapes(t *testing.T) {
	root, err := RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	files, err := Generate(root)
	if err != nil {
		t.Fatal(err)
	}
	for path, wants := range map[string][]string{
		EventsFile: {
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
		},
		APIFile: {
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
			"export interface DocumentQuery {\n",
			"  tag_id?: string[];\n",
			"  sort?: DocumentSort;\n",
			"export type DocumentSort =\n  | \"created_at\"\n  | \"name\"\n",
			"export type DataStatus =\n  | \"\"\n  | \"valid\"\n",
			"export type SortOrder =\n  | \"asc\"\n  | \"desc\";\n",
			"  filter?: string[];\n",
		},
		RoutesFile: {
			"export const listDocuments = (query: DocumentQuery = {}, signal?: AbortSignal): Promise<DocumentList> =>\n" +
				"  request<DocumentList>(\"/api/documents\", { method: \"GET\", query, signal });\n",
			"export const renameThread = (id: string | number, thread_id: string | number, body: ThreadBody, signal?: AbortSignal): Promise<Thread> =>\n" +
				"  request<Thread>(`/api/documents/${enc(String(id))}/chat/threads/${enc(String(thread_id))}`, { method: \"PATCH\", body, signal });\n",
			"export const schemaExportURL = (schema_id: string | number, query: SchemaExportQuery = {}): string =>\n",
			"export const chatURL = (id: string | number): string =>\n",
			"import type { ",
			"export const api = {\n  health,\n",
		},
	} {
		s := string(files[path])
		for _, want := range wants {
			if !strings.Contains(s, want) {
				t.Errorf("%s lacks %q", filepath.Base(path), want)
			}
		}
		if !strings.Contains(s, Command) {
			t.Errorf("%s does not say how to regenerate it", filepath.Base(path))
		}
	}
	for _, not := range []string{"export interface Extraction ", "export interface Value ", "export interface WorkingState "} {
		if strings.Contains(string(files[APIFile]), not) {
			t.Errorf("api.gen.ts declares %q, which events.gen.ts declares or which is not a wire type", not)
		}
	}
	for _, not := range []string{"unknown>", `"/mcp"`} {
		if strings.Contains(string(files[RoutesFile]), not) {
			t.Errorf("routes.gen.ts has %q: an untyped answer, or a route not of the web client", not)
		}
	}
	if FirstDifference([]byte("a\nb\n"), []byte("a\nc\n")) != `line 2 is "b", want "c"` {
		t.Error(FirstDifference([]byte("a\nb\n"), []byte("a\nc\n")))
	}
}
