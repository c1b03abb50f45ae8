package storage

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"
)

// seedDocuments stores n one-page documents of about 1,500 characters drawn
// from a small vocabulary (so common words hit many chunks), in one
// transaction to keep setup short. Every tenth document has the tag it
// returns.
func seedDocuments(b testing.TB, db *DB, n int) Tag {
	b.Helper()
	ctx := context.Background()
	tag := mustCreateTag(b, db, "tenth")
	words := strings.Fields(`invoice total amount due date customer supplier payment tax net gross
		receipt order number account bank transfer reference address street city country phone email
		quarter report summary revenue cost margin growth forecast budget contract term signature`)
	r := rand.New(rand.NewPCG(1, 2))
	err := db.update(ctx, "seed", func(tx *writeTx) error {
		for i := range n {
			var sb strings.Builder
			for sb.Len() < 1500 {
				sb.WriteString(words[r.IntN(len(words))])
				sb.WriteByte(' ')
			}
			text := sb.String()
			sum := sha256.Sum256([]byte(text + fmt.Sprint(i)))
			id := newID(prefixDocument)
			now := formatTime(tx.now.Add(timeStep(i)))
			if _, err := tx.ExecContext(ctx, `INSERT INTO documents (id, name, media_type, size, sha256, pages, status, created_at, updated_at)
				VALUES (?, ?, 'text/plain', ?, ?, 1, 'ready', ?, ?)`, id, fmt.Sprintf("document-%05d.txt", i), len(text), hex.EncodeToString(sum[:]), now, now); err != nil {
				return err
			}
			if _, err := tx.ExecContext(ctx, `INSERT INTO document_files (document_id, bytes) VALUES (?, ?)`, id, []byte(text)); err != nil {
				return err
			}
			if _, err := insertPages(ctx, tx, id, Pages([]string{text})); err != nil {
				return err
			}
			if i%10 == 0 {
				if err := setDocumentTags(ctx, tx, id, []string{tag.ID}); err != nil {
					return err
				}
			}
		}
		return nil
	})
	if err != nil {
		b.Fatalf("seed: %v", err)
	}
	return tag
}

func BenchmarkListDocuments(b *testing.B) {
	db := mustOpen(b)
	tag := seedDocuments(b, db, 10_000)
	ctx := context.Background()
	for _, bc := range []struct {
		name   string
		filter DocumentFilter
	}{
		{"newest", DocumentFilter{Limit: 50}},
		{"page100", DocumentFilter{Limit: 50, Offset: 5000}},
		{"tag", DocumentFilter{Limit: 50, TagIDs: []string{tag.ID}}},
		{"search_name", DocumentFilter{Limit: 50, Search: "document-0042"}},
		{"search_text", DocumentFilter{Limit: 50, Search: "invoice signature"}},
	} {
		b.Run(bc.name, func(b *testing.B) {
			for b.Loop() {
				docs, total, err := db.ListDocuments(ctx, bc.filter)
				if err != nil || len(docs) == 0 || total == 0 {
					b.Fatalf("ListDocuments: %d docs, total %d, %v", len(docs), total, err)
				}
			}
		})
	}
}

func BenchmarkSearch(b *testing.B) {
	db := mustOpen(b)
	seedDocuments(b, db, 10_000)
	ctx := context.Background()
	for _, q := range []string{"invoice", "invoice signature", "sig*"} {
		b.Run(q, func(b *testing.B) {
			for b.Loop() {
				hits, err := db.Search(ctx, q, 10)
				if err != nil || len(hits) == 0 {
					b.Fatalf("Search: %d hits, %v", len(hits), err)
				}
			}
		})
	}
}

func timeStep(i int) time.Duration { return time.Duration(i) * time.Millisecond }
