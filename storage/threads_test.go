package storage

import (
	"context"
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"time"
)

func mustCreateThread(t testing.TB, db *DB, documentID, title string) Thread {
	t.Helper()
	th, err := db.CreateThread(context.Background(), documentID, title, "")
	if err != nil {
		t.Fatalf("CreateThread(%q): %v", title, err)
	}
	return th
}

func mustAppend(t testing.TB, db *DB, threadID string, ws json.RawMessage, msgs ...ThreadMessage) []ThreadMessage {
	t.Helper()
	out, err := db.AppendMessages(context.Background(), threadID, msgs, ws)
	if err != nil {
		t.Fatalf("AppendMessages: %v", err)
	}
	return out
}

func seqs(msgs []ThreadMessage) []int {
	out := []int{}
	for _, m := range msgs {
		out = append(out, m.Seq)
	}
	return out
}

func TestThreadCRUD(t *testing.T) {
	db := mustOpen(t)
	ctx := context.Background()
	doc := mustCreateDocument(t, db, NewDocument{Name: "a.txt", Pages: []string{"text"}})

	th, err := db.CreateThread(ctx, doc.ID, "  Invoice questions ", " ollama/qwen3:8b ")
	if err != nil {
		t.Fatal(err)
	}
	want := Thread{ID: th.ID, DocumentID: doc.ID, Title: "Invoice questions", Model: "ollama/qwen3:8b",
		WorkingState: json.RawMessage(`{}`), CreatedAt: th.CreatedAt, UpdatedAt: th.CreatedAt}
	if !strings.HasPrefix(th.ID, "thr_") || !reflect.DeepEqual(th, want) {
		t.Errorf("created\n%+v\nwant\n%+v", th, want)
	}
	if got, err := db.GetThread(ctx, doc.ID, th.ID); err != nil || !reflect.DeepEqual(got, th) {
		t.Errorf("GetThread = %+v, %v", got, err)
	}
	b, _ := json.Marshal(th)
	for _, field := range []string{`"thread_id":"thr_`, `"document_id":"` + doc.ID, `"working_state":{}`, `"message_count":0`, `"model":"ollama/qwen3:8b"`} {
		if !strings.Contains(string(b), field) {
			t.Errorf("JSON %s lacks %s", b, field)
		}
	}

	untitled := mustCreateThread(t, db, doc.ID, "")
	if untitled.Title != "" || untitled.Model != "" {
		t.Errorf("untitled thread = %+v", untitled)
	}
	if b, _ := json.Marshal(untitled); strings.Contains(string(b), `"model"`) {
		t.Errorf("JSON of a thread without model = %s", b)
	}

	renamed, err := db.RenameThread(ctx, doc.ID, th.ID, " Totals ")
	if err != nil || renamed.Title != "Totals" || !renamed.UpdatedAt.After(th.UpdatedAt) || !renamed.CreatedAt.Equal(th.CreatedAt) {
		t.Errorf("RenameThread = %+v, %v", renamed, err)
	}
	_, err = db.RenameThread(ctx, doc.ID, th.ID, "  ")
	wantCode(t, err, ErrInvalid, "thread title is empty")

	if err := db.DeleteThread(ctx, doc.ID, th.ID); err != nil {
		t.Fatal(err)
	}
	_, err = db.GetThread(ctx, doc.ID, th.ID)
	wantCode(t, err, ErrNotFound, "document "+doc.ID+" has no thread "+th.ID)
	wantCode(t, db.DeleteThread(ctx, doc.ID, th.ID), ErrNotFound, "")

	_, err = db.CreateThread(ctx, "doc_missing", "x", "")
	wantCode(t, err, ErrNotFound, "document doc_missing not found")
	_, err = db.ListThreads(ctx, "doc_missing")
	wantCode(t, err, ErrNotFound, "document doc_missing not found")
	_, err = db.ThreadMessages(ctx, "thr_missing")
	wantCode(t, err, ErrNotFound, "thread thr_missing not found")
	_, err = db.AppendMessages(ctx, "thr_missing", []ThreadMessage{{Role: RoleUser}}, nil)
	wantCode(t, err, ErrNotFound, "thread thr_missing not found")
}

func TestThreadOfAnotherDocumentIsNotFound(t *testing.T) {
	db := mustOpen(t)
	ctx := context.Background()
	a := mustCreateDocument(t, db, NewDocument{Name: "a.txt", Pages: []string{"a"}})
	b := mustCreateDocument(t, db, NewDocument{Name: "b.txt", Pages: []string{"b"}})
	th := mustCreateThread(t, db, a.ID, "of a")
	mustAppend(t, db, th.ID, nil, ThreadMessage{Role: RoleUser, Content: "hi"})

	msg := "document " + b.ID + " has no thread " + th.ID
	_, err := db.GetThread(ctx, b.ID, th.ID)
	wantCode(t, err, ErrNotFound, msg)
	_, err = db.RenameThread(ctx, b.ID, th.ID, "stolen")
	wantCode(t, err, ErrNotFound, msg)
	wantCode(t, db.TruncateThread(ctx, b.ID, th.ID, 0), ErrNotFound, msg)
	wantCode(t, db.DeleteThread(ctx, b.ID, th.ID), ErrNotFound, msg)
	_, err = db.SaveTurnState(ctx, th.ID, b.ID, json.RawMessage(`{}`), 0)
	wantCode(t, err, ErrNotFound, msg)
	if list, err := db.ListThreads(ctx, b.ID); err != nil || len(list) != 0 {
		t.Errorf("ListThreads(b) = %+v, %v", list, err)
	}

	// Nothing changed through the wrong path.
	got, err := db.GetThread(ctx, a.ID, th.ID)
	if err != nil || got.Title != "of a" || got.MessageCount != 1 {
		t.Errorf("thread after the attempts = %+v, %v", got, err)
	}
}

func TestListThreadsMostRecentlyUpdatedFirst(t *testing.T) {
	db := mustOpen(t)
	ctx := context.Background()
	doc := mustCreateDocument(t, db, NewDocument{Name: "a.txt", Pages: []string{"a"}})
	other := mustCreateDocument(t, db, NewDocument{Name: "b.txt", Pages: []string{"b"}})
	t1 := mustCreateThread(t, db, doc.ID, "one")
	t2 := mustCreateThread(t, db, doc.ID, "two")
	t3 := mustCreateThread(t, db, doc.ID, "three")
	mustCreateThread(t, db, other.ID, "elsewhere")

	ids := func() []string {
		t.Helper()
		list, err := db.ListThreads(ctx, doc.ID)
		if err != nil {
			t.Fatal(err)
		}
		out := []string{}
		for _, th := range list {
			out = append(out, th.ID)
		}
		return out
	}
	if got, want := ids(), []string{t3.ID, t2.ID, t1.ID}; !reflect.DeepEqual(got, want) {
		t.Errorf("order after create = %v, want %v", got, want)
	}
	mustAppend(t, db, t1.ID, nil, ThreadMessage{Role: RoleUser, Content: "hi"})
	if got, want := ids(), []string{t1.ID, t3.ID, t2.ID}; !reflect.DeepEqual(got, want) {
		t.Errorf("order after append = %v, want %v", got, want)
	}
	if _, err := db.RenameThread(ctx, doc.ID, t2.ID, "renamed"); err != nil {
		t.Fatal(err)
	}
	if got, want := ids(), []string{t2.ID, t1.ID, t3.ID}; !reflect.DeepEqual(got, want) {
		t.Errorf("order after rename = %v, want %v", got, want)
	}
	list, _ := db.ListThreads(ctx, doc.ID)
	if list[1].MessageCount != 1 || list[0].MessageCount != 0 {
		t.Errorf("message counts = %d, %d", list[0].MessageCount, list[1].MessageCount)
	}

	empty := mustCreateDocument(t, db, NewDocument{Name: "c.txt", Pages: []string{"c"}})
	if list, err := db.ListThreads(ctx, empty.ID); err != nil || list == nil || len(list) != 0 {
		t.Errorf("ListThreads(empty) = %#v, %v (want an empty, non-nil list)", list, err)
	}
}

func TestAppendMessages(t *testing.T) {
	db := mustOpen(t)
	ctx := context.Background()
	doc := mustCreateDocument(t, db, NewDocument{Name: "a.txt", Pages: []string{"a"}})
	th := mustCreateThread(t, db, doc.ID, "t")

	first := mustAppend(t, db, th.ID, nil,
		ThreadMessage{Role: RoleSystem, Content: "You are Docent."},
		ThreadMessage{Role: RoleUser, Content: "What is the total?", Seq: 99}, // Seq is ignored
	)
	if got := seqs(first); !reflect.DeepEqual(got, []int{0, 1}) {
		t.Errorf("first seqs = %v", got)
	}
	afterFirst, _ := db.GetThread(ctx, doc.ID, th.ID)
	if string(afterFirst.WorkingState) != "{}" || !afterFirst.UpdatedAt.After(th.UpdatedAt) ||
		!afterFirst.UpdatedAt.Equal(first[0].CreatedAt) || afterFirst.MessageCount != 2 {
		t.Errorf("thread after first append = %+v", afterFirst)
	}

	ws := json.RawMessage(`{ "schema_revid": "srv_1", "prompt_revid": null }`)
	second := mustAppend(t, db, th.ID, ws,
		ThreadMessage{Role: RoleAssistant, Thinking: "Look it up.", ToolCalls: json.RawMessage(`[ {"id": "c1", "name": "search", "arguments": {"q": "total"}} ]`),
			Data: json.RawMessage(`{ "round_index": 0 }`)},
		ThreadMessage{Role: RoleTool, Content: `{"hits": []}`, ToolCallID: "c1", ToolName: "search"},
		ThreadMessage{Role: RoleAssistant, Content: "I found none.", ToolCalls: json.RawMessage(`null`), Data: json.RawMessage(`{}`)},
	)
	if got := seqs(second); !reflect.DeepEqual(got, []int{2, 3, 4}) {
		t.Errorf("second seqs = %v", got)
	}
	if string(second[0].ToolCalls) != `[{"id":"c1","name":"search","arguments":{"q":"total"}}]` ||
		string(second[0].Data) != `{"round_index":0}` || second[2].ToolCalls != nil || second[2].Data != nil {
		t.Errorf("stored JSON fields = %s %s %q %q", second[0].ToolCalls, second[0].Data, second[2].ToolCalls, second[2].Data)
	}
	if n := count(t, db, "thread_messages", "thread_id = ? AND tool_calls IS NULL AND data = '{}'", th.ID); n != 4 {
		t.Errorf("%d messages without tool calls stored as NULL and {}, want 4", n)
	}

	got, err := db.ThreadMessages(ctx, th.ID)
	if err != nil {
		t.Fatal(err)
	}
	if want := append(first, second...); !reflect.DeepEqual(got, want) {
		t.Errorf("ThreadMessages\n%+v\nwant\n%+v", got, want)
	}
	b, _ := json.Marshal(got[1])
	if want := `{"seq":1,"role":"user","content":"What is the total?","created_at":"` +
		got[1].CreatedAt.Format(time.RFC3339Nano) + `"}`; string(b) != want {
		t.Errorf("JSON of a plain message = %s", b)
	}

	th2, _ := db.GetThread(ctx, doc.ID, th.ID)
	if string(th2.WorkingState) != `{"schema_revid":"srv_1","prompt_revid":null}` || th2.MessageCount != 5 {
		t.Errorf("thread after second append = %+v", th2)
	}

	// nil keeps the working state; a state alone is saved without messages.
	mustAppend(t, db, th.ID, nil, ThreadMessage{Role: RoleUser, Content: "thanks"})
	if th3, _ := db.GetThread(ctx, doc.ID, th.ID); string(th3.WorkingState) != string(th2.WorkingState) || th3.MessageCount != 6 {
		t.Errorf("nil working state did not keep it: %+v", th3)
	}
	if out := mustAppend(t, db, th.ID, json.RawMessage(`{"extraction": "ext_1"}`)); len(out) != 0 {
		t.Errorf("appending no messages returned %+v", out)
	}
	th4, _ := db.GetThread(ctx, doc.ID, th.ID)
	if string(th4.WorkingState) != `{"extraction":"ext_1"}` || th4.MessageCount != 6 {
		t.Errorf("working state alone not saved: %+v", th4)
	}
	mustAppend(t, db, th.ID, nil) // nothing to do: no change
	if th5, _ := db.GetThread(ctx, doc.ID, th.ID); !th5.UpdatedAt.Equal(th4.UpdatedAt) {
		t.Errorf("an empty append moved updated_at")
	}

	// Bad input writes nothing, not even the valid messages before it.
	for _, tt := range []struct {
		msgs []ThreadMessage
		ws   json.RawMessage
		msg  string
	}{
		{[]ThreadMessage{{Role: RoleUser}, {Role: "robot"}}, nil, `message 1 has unknown role "robot" (want system, user, assistant or tool)`},
		{[]ThreadMessage{{Role: RoleUser}, {Role: RoleAssistant, ToolCalls: json.RawMessage(`{"id": 1}`)}}, nil, "message 1: tool calls must be a JSON array"},
		{[]ThreadMessage{{Role: RoleUser, Data: json.RawMessage(`[1]`)}}, nil, "message 0: data must be a JSON object"},
		{[]ThreadMessage{{Role: RoleUser, Data: json.RawMessage(`{`)}}, nil, "message 0: data must be a JSON object"},
		{[]ThreadMessage{{Role: RoleUser}}, json.RawMessage(`[]`), "working state must be a JSON object"},
		{[]ThreadMessage{{Role: RoleUser}}, json.RawMessage(``), "working state must be a JSON object"},
	} {
		_, err := db.AppendMessages(ctx, th.ID, tt.msgs, tt.ws)
		wantCode(t, err, ErrInvalid, tt.msg)
	}
	if th6, _ := db.GetThread(ctx, doc.ID, th.ID); th6.MessageCount != 6 || string(th6.WorkingState) != `{"extraction":"ext_1"}` {
		t.Errorf("a refused append changed the thread: %+v", th6)
	}
}

func TestTruncateThread(t *testing.T) {
	db := mustOpen(t)
	ctx := context.Background()
	doc := mustCreateDocument(t, db, NewDocument{Name: "a.txt", Pages: []string{"a"}})
	th := mustCreateThread(t, db, doc.ID, "t")
	for _, c := range []string{"q1", "a1", "q2", "a2", "q3"} {
		mustAppend(t, db, th.ID, nil, ThreadMessage{Role: RoleUser, Content: c})
	}

	wantCode(t, db.TruncateThread(ctx, doc.ID, th.ID, 6), ErrInvalid, "thread "+th.ID+" has 5 messages: cannot keep 6")
	wantCode(t, db.TruncateThread(ctx, doc.ID, th.ID, -1), ErrInvalid, "")
	before, _ := db.GetThread(ctx, doc.ID, th.ID)
	if err := db.TruncateThread(ctx, doc.ID, th.ID, 5); err != nil {
		t.Fatal(err)
	}
	if after, _ := db.GetThread(ctx, doc.ID, th.ID); after.MessageCount != 5 || !after.UpdatedAt.Equal(before.UpdatedAt) {
		t.Errorf("keeping every message changed the thread: %+v", after)
	}

	if err := db.TruncateThread(ctx, doc.ID, th.ID, 2); err != nil {
		t.Fatal(err)
	}
	msgs, _ := db.ThreadMessages(ctx, th.ID)
	if len(msgs) != 2 || msgs[0].Content != "q1" || msgs[1].Content != "a1" {
		t.Errorf("after truncate to 2: %+v", msgs)
	}
	after, _ := db.GetThread(ctx, doc.ID, th.ID)
	if after.MessageCount != 2 || !after.UpdatedAt.After(before.UpdatedAt) {
		t.Errorf("thread after truncate = %+v", after)
	}

	// The next message takes the freed place: seq stays contiguous.
	out := mustAppend(t, db, th.ID, nil, ThreadMessage{Role: RoleUser, Content: "q2 again"})
	if out[0].Seq != 2 {
		t.Errorf("seq after truncate = %d, want 2", out[0].Seq)
	}
	msgs, _ = db.ThreadMessages(ctx, th.ID)
	if got := seqs(msgs); !reflect.DeepEqual(got, []int{0, 1, 2}) {
		t.Errorf("seqs = %v", got)
	}

	if err := db.TruncateThread(ctx, doc.ID, th.ID, 0); err != nil {
		t.Fatal(err)
	}
	if msgs, _ := db.ThreadMessages(ctx, th.ID); msgs == nil || len(msgs) != 0 {
		t.Errorf("after truncate to 0: %#v", msgs)
	}
	if out := mustAppend(t, db, th.ID, nil, ThreadMessage{Role: RoleUser}); out[0].Seq != 0 {
		t.Errorf("seq after truncate to 0 = %d", out[0].Seq)
	}
}

func TestDeletingThreadsWithTheirDocument(t *testing.T) {
	db := mustOpen(t)
	ctx := context.Background()
	doc := mustCreateDocument(t, db, NewDocument{Name: "a.txt", Pages: []string{"a"}})
	keep := mustCreateDocument(t, db, NewDocument{Name: "b.txt", Pages: []string{"b"}})
	th := mustCreateThread(t, db, doc.ID, "t")
	other := mustCreateThread(t, db, doc.ID, "u")
	kept := mustCreateThread(t, db, keep.ID, "kept")
	for _, id := range []string{th.ID, other.ID, kept.ID} {
		mustAppend(t, db, id, nil, ThreadMessage{Role: RoleUser, Content: "q"}, ThreadMessage{Role: RoleAssistant, Content: "a"})
	}
	state := json.RawMessage(`{"pending": true}`)
	for _, tt := range []struct{ thread, doc string }{{th.ID, doc.ID}, {other.ID, doc.ID}, {"", doc.ID}, {kept.ID, keep.ID}} {
		if _, err := db.SaveTurnState(ctx, tt.thread, tt.doc, state, 0); err != nil {
			t.Fatal(err)
		}
	}
	mustExec(t, db, `UPDATE documents SET auto_create_thread_id = ? WHERE id = ?`, th.ID, doc.ID)

	// Deleting a thread takes its messages and paused turns, not the
	// stateless turn of its document, and unlinks the auto-create.
	if err := db.DeleteThread(ctx, doc.ID, th.ID); err != nil {
		t.Fatal(err)
	}
	if n := count(t, db, "thread_messages", "thread_id = ?", th.ID); n != 0 {
		t.Errorf("%d messages of the deleted thread remain", n)
	}
	if n := count(t, db, "turn_states", "document_id = ?", doc.ID); n != 2 {
		t.Errorf("%d turn states of the document remain, want 2 (the other thread's and the stateless one)", n)
	}
	if n := count(t, db, "documents", "id = ? AND auto_create_thread_id IS NULL", doc.ID); n != 1 {
		t.Error("auto_create_thread_id still names the deleted thread")
	}

	if err := db.DeleteDocument(ctx, doc.ID); err != nil {
		t.Fatal(err)
	}
	for table, where := range map[string]string{
		"threads":         "document_id = ?",
		"thread_messages": "thread_id IN (SELECT id FROM threads WHERE document_id = ?) OR thread_id = '" + other.ID + "'",
		"turn_states":     "document_id = ?",
	} {
		if n := count(t, db, table, where, doc.ID); n != 0 {
			t.Errorf("%d rows of %s remain after deleting the document", n, table)
		}
	}
	if n := count(t, db, "thread_messages", "thread_id = ?", kept.ID); n != 2 {
		t.Errorf("the other document's thread lost messages: %d left", n)
	}
	if n := count(t, db, "turn_states", "document_id = ?", keep.ID); n != 1 {
		t.Errorf("the other document's turn state is gone")
	}
}

// TestThreadTitleHasALengthLimit: a title given when the thread is made or
// renamed (the rename route and tool take any text) fits the thread list.
func TestThreadTitleHasALengthLimit(t *testing.T) {
	db := mustOpen(t)
	ctx := context.Background()
	doc := mustCreateDocument(t, db, NewDocument{Name: "a.txt", Pages: []string{"text"}})
	huge := strings.Repeat("t", 500_000)
	_, err := db.CreateThread(ctx, doc.ID, huge, "")
	wantCode(t, err, ErrInvalid, "thread title is 500000 characters long: at most 200 are allowed")

	th := mustCreateThread(t, db, doc.ID, strings.Repeat("ä", MaxTitleLength))
	_, err = db.RenameThread(ctx, doc.ID, th.ID, huge)
	wantCode(t, err, ErrInvalid, "thread title is 500000 characters long: at most 200 are allowed")
	if _, err := db.RenameThread(ctx, doc.ID, th.ID, "  "+strings.Repeat("b", MaxTitleLength)+"  "); err != nil {
		t.Errorf("a title of %d characters with spaces around: %v", MaxTitleLength, err)
	}
}
