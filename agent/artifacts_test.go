package agent

import (
	"context"
	"encoding/json"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/docent/docent/storage"
)

func openStore(t *testing.T) *storage.DB {
	t.Helper()
	db, err := storage.Open(context.Background(), filepath.Join(t.TempDir(), "docent.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

const invoiceSchema = `{
	"type": "object",
	"properties": {
		"invoice_number": {"type": "string"},
		"total": {"type": ["number", "null"]}
	},
	"required": ["invoice_number", "total"],
	"additionalProperties": false
}`

func TestCreateSchemaFromABareSchemaSavesAResponseFormat(t *testing.T) {
	db := openStore(t)
	res, err := CreateSchema(context.Background(), db, "invoice", json.RawMessage(invoiceSchema))
	if err != nil {
		t.Fatal(err)
	}
	if res.Version != 1 || len(res.Warnings) != 0 {
		t.Fatalf("result = %+v, want version 1 without warnings", res)
	}
	var rf struct {
		Type       string `json:"type"`
		JSONSchema struct {
			Name   string `json:"name"`
			Strict bool   `json:"strict"`
		} `json:"json_schema"`
	}
	if err := json.Unmarshal(res.ResponseFormat, &rf); err != nil {
		t.Fatal(err)
	}
	if rf.Type != "json_schema" || rf.JSONSchema.Name != "invoice" || !rf.JSONSchema.Strict {
		t.Errorf("stored response_format = %s", res.ResponseFormat)
	}
}

func TestInvalidSchemaIsRefusedWithEveryProblemAndNothingStored(t *testing.T) {
	db := openStore(t)
	bad := `{"type":"object","properties":{"total":{"type":"strin"}},"required":["total"],"additionalProperties":false}`
	_, err := CreateSchema(context.Background(), db, "invoice", json.RawMessage(bad))
	if !errors.Is(err, storage.ErrInvalid) || !strings.Contains(err.Error(), "/properties/total/type") {
		t.Fatalf("err = %v, want invalid naming /properties/total/type", err)
	}
	if _, total, _ := db.ListSchemas(context.Background(), storage.ListFilter{}); total != 0 {
		t.Errorf("%d schemas stored after a refusal", total)
	}
}

func TestLaxSchemaIsSavedWithStrictModeWarnings(t *testing.T) {
	db := openStore(t)
	lax := `{"type":"object","properties":{"total":{"type":"number"}}}`
	res, err := CreateSchema(context.Background(), db, "lax", json.RawMessage(lax))
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Warnings) == 0 {
		t.Error("no strict-mode warnings for an object without required and additionalProperties")
	}
}

func TestUpdateSchemaChecksAndVersions(t *testing.T) {
	db := openStore(t)
	ctx := context.Background()
	v1, err := CreateSchema(ctx, db, "invoice", json.RawMessage(invoiceSchema))
	if err != nil {
		t.Fatal(err)
	}
	same, err := UpdateSchema(ctx, db, v1.SchemaID, nil, json.RawMessage(invoiceSchema))
	if err != nil || !same.NoChanges || same.Version != 1 {
		t.Fatalf("identical update = %+v, %v; want no changes", same, err)
	}
	if _, err := UpdateSchema(ctx, db, v1.SchemaID, nil, json.RawMessage(`{"type":"array"}`)); !errors.Is(err, storage.ErrInvalid) {
		t.Errorf("non-object root accepted on update: %v", err)
	}
	changed := strings.Replace(invoiceSchema, `"total"`, `"amount_due"`, 2)
	v2, err := UpdateSchema(ctx, db, v1.SchemaID, nil, json.RawMessage(changed))
	if err != nil || v2.Version != 2 || v2.SchemaRevID == v1.SchemaRevID {
		t.Fatalf("update = %+v, %v; want version 2 with a new revision id", v2, err)
	}
}
