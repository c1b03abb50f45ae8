package storage

import (
	"context"
	"strings"
	"testing"

	"github.com/docent/docent/storage/fault"
)

func TestSchemaAndPromptNamesHaveALengthLimit(t *testing.T) {
	db := mustOpen(t)
	ctx := context.Background()
	long := strings.Repeat("n", MaxNameLength+1)
	if _, err := db.CreateSchema(ctx, long, invoiceFormat("total")); fault.ErrorCode(err) != "invalid" || !strings.Contains(fault.ErrorMessage(err), "at most 100") {
		t.Errorf("a %d-character schema name: %v", len(long), err)
	}
	if _, err := db.CreatePrompt(ctx, NewPrompt{Name: long, Content: "x"}); fault.ErrorCode(err) != "invalid" || !strings.Contains(fault.ErrorMessage(err), "at most 100") {
		t.Errorf("a %d-character prompt name: %v", len(long), err)
	}
}
