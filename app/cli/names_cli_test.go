package cli

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/docent/docent/agent/modeltest"
	"github.com/docent/docent/app"
	"github.com/docent/docent/storage"
)

// evil is what a user or a client may name things: an OSC that retitles
// the terminal, a clear screen, a C1 CSI, DEL and a right-to-left
// override.
const evil = "\x1b]0;PWNED\x07 \x1b[2J\u009b31m\x7f\u202egpj.exe"

// terminalUnsafe returns what of out could steer a terminal: a C0 control
// other than newline and tab, DEL, a C1 control, a bidi override or
// isolate, or a byte that is not UTF-8.
func terminalUnsafe(out string) []string {
	var bad []string
	for i, r := range out {
		switch {
		case r == '\n' || r == '\t':
		case r < 0x20 || r == 0x7f || (r >= 0x80 && r <= 0x9f),
			r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069, r == 0x200e, r == 0x200f:
			bad = append(bad, strings.ToValidUTF8(out[max(i-12, 0):min(i+12, len(out))], "?"))
		case r == utf8.RuneError:
			if _, size := utf8.DecodeRuneInString(out[i:]); size == 1 {
				bad = append(bad, "invalid byte")
			}
		}
	}
	return bad
}

// Every command that prints names prints them with their control
// characters spelled out: a document (its file's name, then a name set
// through the store as the API sets it), a schema, a prompt, a tag, a
// thread and its messages, an MCP client in the history, search hits, a
// chat's text and tool lines, export's message and the errors that quote
// a name. --json is left to JSON's own escaping.
func TestNoControlCharacterOfANameReachesTheTerminal(t *testing.T) {
	srv := modeltest.New(t)
	t.Setenv("OLLAMA_HOST", srv.OllamaURL())
	t.Setenv("OPENAI_BASE_URL", srv.OpenAIURL())
	t.Setenv("OPENAI_API_KEY", "test-key")
	t.Setenv("DOCENT_MODEL", "ollama/qwen3:8b")
	data := t.TempDir()
	file := filepath.Join(t.TempDir(), "receipt"+evil+".txt")
	if err := os.WriteFile(file, []byte("Taxifahrt vom 29.10.2018\nTotal 12.50 EUR\n"+evil+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := docent(t, data, "import", "--no-embed", file)
	if code != ExitOK {
		t.Fatalf("import: exit %d\n%s\n%s", code, out, errOut)
	}
	if bad := terminalUnsafe(out + errOut); len(bad) > 0 {
		t.Errorf("import let control characters through: %q\n%s\n%s", bad, out, errOut)
	}

	// Names as the HTTP API and an MCP client set them: through the store.
	ctx := context.Background()
	db, err := storage.Open(ctx, filepath.Join(data, app.DatabaseFile))
	if err != nil {
		t.Fatal(err)
	}
	docs, _, err := db.ListDocuments(ctx, storage.DocumentFilter{})
	if err != nil || len(docs) != 1 {
		t.Fatalf("documents %+v %v", docs, err)
	}
	docID := docs[0].ID
	mcp := storage.WithActor(ctx, storage.Actor{Edge: storage.EdgeMCP, Name: "client " + evil})
	tag, err := db.CreateTag(mcp, storage.NewTag{Name: "tag " + evil, Description: "about " + evil})
	if err != nil {
		t.Fatal(err)
	}
	name, tags := "doc "+evil, []string{tag.ID}
	if _, err := db.UpdateDocument(mcp, docID, storage.DocumentPatch{Name: &name, TagIDs: &tags, Metadata: json.RawMessage(`{"note":"` + "\u202e" + `"}`)}); err != nil {
		t.Fatal(err)
	}
	schema, err := db.CreateSchema(mcp, "schema "+evil, json.RawMessage(`{"type":"json_schema","json_schema":{"name":"r","schema":{"type":"object","properties":{"total":{"type":"string"}}}}}`))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.CreatePrompt(mcp, storage.NewPrompt{Name: "prompt " + evil, Content: "Extract " + evil, SchemaID: schema.SchemaID, Model: "ollama/" + evil, ForKind: true}); err != nil {
		t.Fatal(err)
	}
	th, err := db.CreateThread(ctx, docID, "thread "+evil, "")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.AppendMessages(ctx, th.ID, []storage.ThreadMessage{
		{Role: storage.RoleUser, Content: "question " + evil},
		{Role: storage.RoleAssistant, Content: "answer " + evil, Thinking: "thought " + evil},
	}, nil); err != nil {
		t.Fatal(err)
	}
	db.Close()

	srv.Enqueue(
		modeltest.Reply{ToolCalls: []modeltest.ToolCall{{Name: "list_documents", Arguments: `{"search":"` + "\\u001b]0;PWNED\\u0007" + `"}`}}},
		modeltest.Reply{Text: "The receipt " + evil + " says 12.50."},
	)
	for _, args := range [][]string{
		{"documents"},
		{"documents", "--search", "Taxifahrt"},
		{"show", docID},
		{"schemas"},
		{"schemas", "show", schema.SchemaID},
		{"prompts"},
		{"tags"},
		{"threads", docID},
		{"threads", docID, th.ID},
		{"history"},
		{"search", "Taxifahrt", "--by", "words"},
		{"chat", docID, "What does it say?"},
		{"export", "--schema", schema.SchemaID, "--out", filepath.Join(t.TempDir(), "out.csv")},
		{"show", "doc " + evil + " that is not there"},
		{"rm", docID},
	} {
		code, out, errOut := docent(t, data, args...)
		if bad := terminalUnsafe(out + errOut); len(bad) > 0 {
			t.Errorf("docent %q (exit %d) let control characters through: %q\nstdout:\n%s\nstderr:\n%s", args, code, bad, out, errOut)
		}
		if !strings.Contains(out+errOut, `\x1b]0;PWNED`) {
			t.Errorf("docent %q (exit %d) did not print the name, spelled out\nstdout:\n%s\nstderr:\n%s", args, code, out, errOut)
		}
	}
}
