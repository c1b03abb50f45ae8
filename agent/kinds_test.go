package agent_test

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/docent/docent/agent"
	"github.com/docent/docent/agent/modeltest"
	"github.com/docent/docent/storage"
)

var kindLine = regexp.MustCompile(`- id (sch_[0-9A-Z]+): "([^"]+)"`)

// kindModel is a model that sorts documents as a person would: invoices
// with invoices, receipts with receipts. Asked for a kind, it picks the
// kind named after what the document says it is, or "new"; asked to plan,
// it makes a schema and prompt named so and extracts; asked to extract, it
// answers.
func kindModel(t *testing.T) func(modeltest.Request) modeltest.Reply {
	return func(r modeltest.Request) modeltest.Reply {
		msgs, err := r.ChatMessages()
		if err != nil || len(msgs) == 0 {
			return modeltest.Reply{Fault: modeltest.Fault{Status: 400, Message: "unreadable request"}}
		}
		last := msgs[len(msgs)-1]
		// What the document says it is, read from its text alone.
		text := ""
		for _, m := range msgs {
			if _, t, ok := strings.Cut(m.Content, "<document_text>"); ok {
				text = t
			}
		}
		sort := "invoice"
		if strings.Contains(strings.ToLower(text), "receipt") {
			sort = "receipt"
		}
		switch {
		case strings.Contains(string(r.Format), `"kind"`):
			choice := "new"
			for _, m := range kindLine.FindAllStringSubmatch(last.Content, -1) {
				if m[2] == sort {
					choice = m[1]
				}
			}
			return modeltest.Reply{Text: fmt.Sprintf(`{"kind":%q,"reason":"it is a %s"}`, choice, sort)}
		case len(r.Format) > 0:
			return modeltest.Reply{Text: `{"invoice_number":"A-1","total":12.5}`}
		case last.Role == "tool":
			return modeltest.Reply{Text: "Done."}
		}
		return modeltest.Reply{ToolCalls: []modeltest.ToolCall{
			{Name: "create_schema", Arguments: `{"name":"` + sort + `","response_format":` + acInvoiceSchema + `}`},
			{Name: "create_prompt", Arguments: `{"name":"` + sort + `","content":"Extract the number and total.","schema_id":"` + sort + `"}`},
			{Name: "run_extraction", Arguments: `{}`},
		}}
	}
}

func TestAutoCreateKeepsOneSchemaPerKind(t *testing.T) {
	f := newTurnFixture(t)
	ctx := context.Background()
	docs := f.moreDocuments(t, 3) // acme.pdf and three more invoices
	for i := range 2 {
		d, err := f.db.CreateDocument(ctx, storage.NewDocument{
			Name: fmt.Sprintf("receipt-%d.txt", i), MediaType: "text/plain", Data: fmt.Appendf(nil, "receipt %d", i),
			Pages: []string{fmt.Sprintf("CORNER SHOP\nRECEIPT %d\nCASH 4.%d0\n", i, i)},
		})
		if err != nil {
			t.Fatal(err)
		}
		docs = append(docs, d)
	}
	f.srv.Handle(kindModel(t))
	var mu sync.Mutex
	var reused []storage.Document // the invoices that extracted with the kind of another's run
	sched := &agent.AutoCreateScheduler{
		Creator:     func() *agent.AutoCreator { return &agent.AutoCreator{Agent: f.agent} },
		Concurrency: 3,
		Done: func(_ context.Context, d storage.Document, res agent.AutoCreateResult, err error) {
			if err != nil || res.Status != storage.AutoCreateProposed {
				t.Errorf("%s: %+v %v", d.Name, res, err)
			}
			if res.ExtractionOnly && !strings.HasPrefix(d.Name, "receipt") {
				mu.Lock()
				reused = append(reused, d)
				mu.Unlock()
			}
		},
	}
	sched.RunAll(ctx, docs)

	kinds, err := f.db.Kinds(ctx)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]int{}
	for _, k := range kinds {
		got[k.Schema.Name] = k.Documents
	}
	if len(kinds) != 2 || got["invoice"] != 4 || got["receipt"] != 2 {
		t.Fatalf("kinds %v, want invoice 4 and receipt 2", got)
	}
	// Each kind: the schema and prompt of the run that made it, and the
	// schema's auto-create prompt the others extracted with (nobody has
	// accepted the first run's prompt yet, so no other document is
	// extracted with it).
	_, schemas, _ := f.db.ListSchemas(ctx, storage.ListFilter{})
	_, prompts, _ := f.db.ListPrompts(ctx, storage.PromptFilter{})
	if schemas != 2 || prompts != 4 {
		t.Errorf("%d schemas and %d prompts, want one schema and two prompts per kind", schemas, prompts)
	}

	// A document that reused its kind, rejected and run again, is of its
	// kind again, and the run makes nothing new.
	if len(reused) != 3 {
		t.Fatalf("%d invoices reused the kind, want 3", len(reused))
	}
	again := reused[0]
	if _, err := f.db.RejectAutoCreate(ctx, again.ID); err != nil {
		t.Fatal(err)
	}
	res, err := (&agent.AutoCreator{Agent: f.agent}).Run(ctx, again.ID, agent.AutoCreateOptions{})
	if err != nil || !res.ExtractionOnly {
		t.Fatalf("rerun: %+v %v, want an extraction with the kind's schema", res, err)
	}
	_, schemas2, _ := f.db.ListSchemas(ctx, storage.ListFilter{})
	_, prompts2, _ := f.db.ListPrompts(ctx, storage.PromptFilter{})
	if schemas2 != schemas || prompts2 != prompts {
		t.Errorf("the rerun made %d schemas and %d prompts", schemas2-schemas, prompts2-prompts)
	}

	// Rejecting the run that made the invoice kind removes the kind: the
	// proposals that extracted with it, nobody having accepted them, go
	// with it and say why.
	maker := ""
	for _, d := range docs[:4] {
		if !slices.ContainsFunc(reused, func(r storage.Document) bool { return r.ID == d.ID }) {
			maker = d.ID
		}
	}
	if _, err := f.db.RejectAutoCreate(ctx, maker); err != nil {
		t.Fatal(err)
	}
	for _, r := range reused {
		d, _ := f.db.GetDocument(ctx, r.ID)
		if d.AutoCreateStatus != storage.AutoCreateFailed || d.SchemaID != "" || !strings.Contains(d.AutoCreateError, "was removed") {
			t.Errorf("%s after its kind's run was rejected: %s %q, kind %q; want failed saying why, no kind", d.Name, d.AutoCreateStatus, d.AutoCreateError, d.SchemaID)
		}
	}
	_, schemas3, _ := f.db.ListSchemas(ctx, storage.ListFilter{})
	_, prompts3, _ := f.db.ListPrompts(ctx, storage.PromptFilter{})
	if schemas3 != 1 || prompts3 != 2 {
		t.Errorf("after rejecting the invoice kind's run: %d schemas and %d prompts, want the receipt kind's 1 and 2", schemas3, prompts3)
	}
}

// The agent in chat sees which schemas documents already use, and the
// document's own kind.
func TestChatSeesTheKindsInUse(t *testing.T) {
	f := newTurnFixture(t)
	ctx := context.Background()
	s, err := f.db.CreateSchema(ctx, "invoice", json.RawMessage(`{"type":"json_schema","json_schema":{"name":"invoice","schema":`+acInvoiceSchema+`}}`))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.db.SetDocumentKind(ctx, f.doc.ID, s.SchemaID); err != nil {
		t.Fatal(err)
	}
	f.srv.Enqueue(modeltest.Reply{Text: "It is an invoice."})
	f.chat(t, agent.ChatRequest{Message: "what is this?"})
	system := messagesOf(t, f.srv.Requests()[0])[0].Content
	for _, want := range []string{`- kind: schema "invoice"`, "Schemas already used", `"invoice", 1 document(s); fields: invoice_number, total`} {
		if !strings.Contains(system, want) {
			t.Errorf("the system message lacks %q:\n%s", want, system)
		}
	}
}
