package storage

import (
	"context"
	"strings"
	"testing"
)

func TestSchemaAndPromptNamesHaveALengthLimit(t *testing.T) {
	db := mustOpen(t)
	ctx := context.Background()
	long := strings.Repeat("n", MaxNameLength+1)
	if _, err := db.CreateSchema(ctx, long, invoiceFormat("total")); ErrorCode(err) != "invalid" || !strings.Contains(ErrorMessage(err), "at most 100") {
		t.Errorf("a %d-character schema name: %v", len(long), err)
	}
	if _, err := db.CreatePrompt(ctx, NewPrompt{Name: long, Content: "x"}); ErrorCode(err) != "invalid" || !strings.Contains(ErrorMessage(err), "at most 100") {
		t.Errorf("a %d-character prompt name: %v", len(long), err)
	}
}
