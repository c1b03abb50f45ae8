package agent

import (
	"context"
	"strings"
	"testing"

	"github.com/docent/docent/storage"
)

func TestSystemMessageExcerptIsCappedAndStateIsLast(t *testing.T) {
	db := openStore(t)
	ctx := context.Background()
	long := strings.Repeat("lorem ipsum ", 2000)
	doc, err := db.CreateDocument(ctx, storage.NewDocument{Name: "long.txt", MediaType: "text/plain", Data: []byte("long"), Pages: []string{long}})
	if err != nil {
		t.Fatal(err)
	}
	dc, err := documentContext(ctx, db, doc, ExcerptCap)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(dc, "[truncated:") || len(dc) > ExcerptCap+1000 {
		t.Errorf("excerpt not capped: %d chars", len(dc))
	}
	state := &WorkingState{SchemaRevID: "srv_1"}
	s := systemMessage(dc, "", state, false)
	if !strings.HasPrefix(s, systemInstructions) || !strings.HasSuffix(s, state.Describe()) {
		t.Error("system message order")
	}
	if !strings.HasPrefix(systemMessage(dc, "", &WorkingState{}, false), s[:len(s)-len(state.Describe())-1]) {
		t.Error("the prefix changes with the working state")
	}
}

func TestThreadTitle(t *testing.T) {
	if got := threadTitle("  hello\n world "); got != "hello world" {
		t.Errorf("%q", got)
	}
	long := strings.Repeat("word ", 30)
	if got := threadTitle(long); len([]rune(got)) > 61 || !strings.HasSuffix(got, "…") {
		t.Errorf("%q", got)
	}
}
