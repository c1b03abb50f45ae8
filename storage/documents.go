package storage

import (
	"bytes"
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"iter"
	"strings"
	"time"
)

// Document statuses: what reading the file gave.
const (
	StatusReady    = "ready"     // the text of every page is stored
	StatusNeedsOCR = "needs_ocr" // the pages are images; Error says so
	StatusOCR      = "ocr"       // text recognition is reading the pages (ocr.go)
	StatusFailed   = "failed"    // the file could not be read; Error says why
)

// ErrorCodePasswordRequired is a failed document's ErrorCode when the file
// is encrypted and opens only with a password (none or a wrong one was
// given): reading it again with its password may succeed.
const ErrorCodePasswordRequired = "password_required"

// Document is a stored document without its bytes and text.
type Document struct {
	ID        string `json:"id"`
	Name      string `json:"name"`
	MediaType string `json:"media_type"`
	Size      int64  `json:"size"`
	SHA256    string `json:"sha256"`
	// Pages is the page count.
	Pages  int    `json:"pages"`
	Status string `json:"status"`
	Error  string `json:"error"`
	// ErrorCode classifies Error for clients when its cause is known:
	// "password_required" (ErrorCodePasswordRequired); "", absent in JSON,
	// otherwise.
	ErrorCode string `json:"error_code,omitempty" ts:"'password_required'"`
	// TagIDs are the document's tags, ordered by tag name; never nil, so it
	// is [] rather than null in JSON.
	TagIDs []string `json:"tag_ids"`
	// Metadata is a JSON object, {} when there is none.
	Metadata  json.RawMessage `json:"metadata" ts:"Record<string, unknown>"`
	CreatedAt time.Time       `json:"created_at"`
	UpdatedAt time.Time       `json:"updated_at"`
	// AutoCreateStatus is one of the AutoCreate constants (auto_create.go):
	// where the headless agent's proposal for this document stands.
	AutoCreateStatus string `json:"auto_create_status"`
	// AutoCreateError says why the last run failed (status failed).
	AutoCreateError string `json:"auto_create_error,omitempty"`
	// The proposal: the schema, prompt and extraction the run proposes and
	// the thread it ran in. Schema, prompt and extraction are set together,
	// from proposed on; while running they name what the run has made so
	// far; never on a failed run.
	AutoCreateSchemaID     string `json:"auto_create_schema_id,omitempty"`
	AutoCreatePromptID     string `json:"auto_create_prompt_id,omitempty"`
	AutoCreateExtractionID string `json:"auto_create_extraction_id,omitempty"`
	AutoCreateThreadID     string `json:"auto_create_thread_id,omitempty"`
	// AutoCreateUpdatedAt is when the status last changed (for running: when
	// the run claimed the document).
	AutoCreateUpdatedAt *time.Time `json:"auto_create_updated_at,omitempty"`
	// AutoCreateRefused lists what the last auto-create run tried to do
	// outside its scope and was refused (changes to things it did not
	// make); a proposal with refusals deserves a closer look.
	AutoCreateRefused []Refusal `json:"auto_create_refused,omitempty"`
	// AutoCreateModel is the model the document's queued auto-create run
	// uses, chosen when it was queued; "" is the default model of whoever
	// runs it. It stays while the run is running (an interrupted run goes
	// back to the queue with it) and is cleared when the run ends in a
	// proposal or a failure. It is not part of the API's document.
	AutoCreateModel string `json:"-"`
	// SchemaID is the document's kind: the schema documents like it are
	// extracted with ("" for none yet). Auto-create sets it with its
	// proposal; people move documents between kinds (kinds.go).
	SchemaID string `json:"schema_id,omitempty"`
	// OCRPagesDone and OCRPagesTotal are the progress of text recognition
	// while the status is ocr (ocr.go).
	OCRPagesDone  int `json:"ocr_pages_done,omitempty"`
	OCRPagesTotal int `json:"ocr_pages_total,omitempty"`
}

// NewDocument is what CreateDocument stores.
type NewDocument struct {
	Name      string
	MediaType string
	// Data is the original file; the store computes Size and SHA256 from it.
	Data []byte
	// File, when not nil, stands for Data: the bytes are read from it and
	// stored while they are read, so that a large file is never in memory
	// whole.
	File *FileSource
	// Status is one of the Status constants; "" means StatusReady.
	Status string
	Error  string
	// ErrorCode classifies Error (Document.ErrorCode).
	ErrorCode string
	// Pages is the text of each page, page 1 first; a page without text is
	// "".
	Pages []string
	// PageSource, when not nil, stands for Pages: it yields the text of each
	// page in order while the document is stored, so that a long text costs
	// the memory of one page. An error it yields stores nothing.
	PageSource iter.Seq2[string, error]
	// Words are the words of each page with their boxes, index page-1: a
	// PDF's text layer, in points (DPI 72). A nil entry is a page without
	// words; nil is none at all.
	Words []*PageWords
	// WordSource, when not nil, stands for Words: it yields the words of
	// each page in order (nil for a page without) while the document is
	// stored, so that the words of a long document need not all be held
	// at once in the store's form (56 bytes a word). An error it yields
	// stores nothing.
	WordSource iter.Seq2[*PageWords, error]
	TagIDs     []string
	// Metadata must be a JSON object; nil means {}.
	Metadata json.RawMessage
	// OCRPages are the pages (1-based) that text recognition reads (ocr.go).
	OCRPages []int
}

// DocumentPatch changes the fields that are set.
type DocumentPatch struct {
	Name *string
	// TagIDs, when set, replaces the document's tags.
	TagIDs *[]string
	// Metadata, when set, replaces the metadata; it must be a JSON object,
	// or null, which clears it to {}.
	Metadata json.RawMessage
}

// DocumentFilter selects documents for ListDocuments.
type DocumentFilter struct {
	// Search matches the name (case-insensitive substring) or the text
	// (full-text search, every word must occur).
	Search string
	// TagIDs: a document must have all of them.
	TagIDs []string
	// Limit is the page size, 50 when 0. Offset skips that many documents.
	Limit, Offset int
	// Sort is one of the Sort constants (document_list.go), "" newest
	// first; Order is "asc" or "desc", "" for the sort's own default.
	Sort  DocumentSort
	Order string
}

// DefaultListLimit is the page size of ListDocuments when none is given.
const DefaultListLimit = 50

// documentColumns are the columns scanDocument reads, for a query over
// documents d. Tag ids come from a subquery so that a list is one query.
const documentColumns = `d.id, d.name, d.media_type, d.size, d.sha256, d.pages, d.status, d.error, d.error_code,
	d.metadata, d.created_at, d.updated_at, d.auto_create_status, d.auto_create_error,
	coalesce(d.auto_create_schema_id, ''), coalesce(d.auto_create_prompt_id, ''),
	coalesce(d.auto_create_extraction_id, ''), coalesce(d.auto_create_thread_id, ''), d.auto_create_updated_at,
	d.auto_create_refused, d.auto_create_model, d.ocr_pages_done, d.ocr_pages_total, coalesce(d.schema_id, ''),
	(SELECT group_concat(dt.tag_id, ',' ORDER BY t.name, t.id)
	   FROM document_tags dt JOIN tags t ON t.id = dt.tag_id
	  WHERE dt.document_id = d.id)`

type scanner interface{ Scan(dest ...any) error }

func scanDocument(s scanner) (Document, error) {
	var (
		d                 Document
		metadata          string
		created, updated  string
		tags              sql.NullString
		errCreate, errUpd error
		acUpdated         sql.NullString
		refused           string
	)
	err := s.Scan(&d.ID, &d.Name, &d.MediaType, &d.Size, &d.SHA256, &d.Pages, &d.Status, &d.Error, &d.ErrorCode,
		&metadata, &created, &updated, &d.AutoCreateStatus, &d.AutoCreateError,
		&d.AutoCreateSchemaID, &d.AutoCreatePromptID, &d.AutoCreateExtractionID, &d.AutoCreateThreadID, &acUpdated, &refused,
		&d.AutoCreateModel, &d.OCRPagesDone, &d.OCRPagesTotal, &d.SchemaID, &tags)
	if err != nil {
		return Document{}, err
	}
	if refused != "[]" {
		if err := json.Unmarshal([]byte(refused), &d.AutoCreateRefused); err != nil {
			return Document{}, fmt.Errorf("document %s: auto_create_refused: %w", d.ID, err)
		}
	}
	if acUpdated.Valid {
		t, err := parseTime(acUpdated.String)
		if err != nil {
			return Document{}, err
		}
		d.AutoCreateUpdatedAt = &t
	}
	d.Metadata = json.RawMessage(metadata)
	d.CreatedAt, errCreate = parseTime(created)
	d.UpdatedAt, errUpd = parseTime(updated)
	d.TagIDs = []string{}
	if tags.String != "" {
		d.TagIDs = strings.Split(tags.String, ",")
	}
	return d, errors.Join(errCreate, errUpd)
}

// getDocument reads one document by id inside or outside a transaction.
const getDocumentSQL = `SELECT ` + documentColumns + ` FROM documents d WHERE d.id = ?`

func getDocument(ctx context.Context, q queryer, id string) (Document, error) {
	d, err := scanDocument(q.QueryRowContext(ctx, getDocumentSQL, id))
	if errors.Is(err, sql.ErrNoRows) {
		return Document{}, Errorf(ErrNotFound, "document %s not found", id)
	}
	return d, err
}

const (
	insertDocumentSQL = `INSERT INTO documents
		(id, name, media_type, size, sha256, pages, status, error, error_code, metadata, created_at, updated_at)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`
	updateDocumentPagesSQL = `UPDATE documents SET pages = ? WHERE id = ?`
)

// CreateDocument stores a new document in one transaction: its row, its
// bytes, its pages, their chunks and full-text index, and its tags. When the
// same bytes are already stored it returns a *DuplicateError (a conflict)
// that carries the existing document. Unknown tag ids are invalid.
func (db *DB) CreateDocument(ctx context.Context, nd NewDocument) (Document, error) {
	name := strings.TrimSpace(nd.Name)
	if name == "" {
		return Document{}, Errorf(ErrInvalid, "document name is empty")
	}
	if nd.MediaType == "" {
		return Document{}, Errorf(ErrInvalid, "document %q has no media type", name)
	}
	status, err := checkStatus(nd.Status)
	if err != nil {
		return Document{}, err
	}
	metadata, err := normalizeMetadata(nd.Metadata)
	if err != nil {
		return Document{}, err
	}
	tagIDs := uniqueStrings(nd.TagIDs)
	file := nd.File
	if file == nil {
		sum := sha256.Sum256(nd.Data)
		file = &FileSource{R: bytes.NewReader(nd.Data), Size: int64(len(nd.Data)), SHA256: hex.EncodeToString(sum[:])}
	}
	sha := strings.ToLower(file.SHA256)
	if len(sha) != sha256.Size*2 || file.Size < 0 {
		return Document{}, Errorf(ErrInvalid, "document %q: the file's SHA-256 %q or size %d is not valid", name, file.SHA256, file.Size)
	}
	pages := nd.PageSource
	if pages == nil {
		pages = Pages(nd.Pages)
	}
	words := nd.WordSource
	if words == nil {
		words = func(yield func(*PageWords, error) bool) {
			for _, pw := range nd.Words {
				if !yield(pw, nil) {
					return
				}
			}
		}
	}

	var doc Document
	err = db.update(ctx, "create document", func(tx *writeTx) error {
		existing, err := documentBySHA256(ctx, tx, sha)
		if err == nil {
			return newDuplicateError(existing)
		}
		if !errors.Is(err, ErrNotFound) {
			return err
		}
		if err := checkTagsExist(ctx, tx, tagIDs); err != nil {
			return err
		}
		id := newID(prefixDocument)
		if _, err := tx.journal(ctx, change{op: "import document", kind: "document", id: id, documentID: id,
			summary: fmt.Sprintf("imported document %q", name), writes: []string{documentKey(id)},
			scopes: []scope{treeScope("documents", id)}}); err != nil {
			return err
		}
		now := tx.nowText()
		_, err = tx.ExecContext(ctx, insertDocumentSQL, id, name, nd.MediaType, file.Size, sha, 0, status, CapMessage(nd.Error), nd.ErrorCode, metadata, now, now)
		if err != nil {
			return err
		}
		if err := insertFile(ctx, tx, id, FileSource{R: file.R, Size: file.Size, SHA256: sha}); err != nil {
			return err
		}
		n, err := insertPages(ctx, tx, id, pages)
		if err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, updateDocumentPagesSQL, n, id); err != nil {
			return err
		}
		if err := insertWords(ctx, tx, id, name, n, words); err != nil {
			return err
		}
		if err := markOCRPages(ctx, tx, id, nd.OCRPages); err != nil {
			return err
		}
		if err := setDocumentTags(ctx, tx, id, tagIDs); err != nil {
			return err
		}
		doc, err = getDocument(ctx, tx, id)
		return err
	})
	return doc, err
}

// DocumentBySHA256 returns the document whose bytes have this SHA-256 (hex).
func (db *DB) DocumentBySHA256(ctx context.Context, sha string) (Document, error) {
	return documentBySHA256(ctx, db.reader(), strings.ToLower(sha))
}

const documentBySHA256SQL = `SELECT ` + documentColumns + ` FROM documents d WHERE d.sha256 = ?`

func documentBySHA256(ctx context.Context, q queryer, sha string) (Document, error) {
	d, err := scanDocument(q.QueryRowContext(ctx, documentBySHA256SQL, sha))
	if errors.Is(err, sql.ErrNoRows) {
		return Document{}, Errorf(ErrNotFound, "no document with SHA-256 %s", sha)
	}
	if err != nil {
		return Document{}, fmt.Errorf("get document by sha256: %w", err)
	}
	return d, nil
}

// GetDocument returns the document with this id.
func (db *DB) GetDocument(ctx context.Context, id string) (Document, error) {
	d, err := getDocument(ctx, db.reader(), id)
	return d, translate("get document", err)
}

// FindDocument returns the document with this id or, failing that, with
// exactly this name. Several documents with that name are a conflict whose
// message lists their ids, so the user can pick one.
func (db *DB) FindDocument(ctx context.Context, idOrName string) (Document, error) {
	d, err := getDocument(ctx, db.sql, idOrName)
	if !errors.Is(err, ErrNotFound) {
		return d, translate("find document", err)
	}
	docs, err := queryRows(ctx, db.sql, scanDocument, `SELECT `+documentColumns+` FROM documents d
		WHERE d.name = ? ORDER BY d.created_at, d.id LIMIT 11`, idOrName)
	if err != nil {
		return Document{}, fmt.Errorf("find document: %w", err)
	}
	switch len(docs) {
	case 0:
		return Document{}, Errorf(ErrNotFound, "document %q not found", idOrName)
	case 1:
		return docs[0], nil
	}
	ids := make([]string, 0, len(docs))
	for i, d := range docs {
		if i == 10 {
			ids = append(ids, "…")
			break
		}
		ids = append(ids, d.ID)
	}
	return Document{}, Errorf(ErrConflict, "several documents are named %q (%s): use an id", idOrName, strings.Join(ids, ", "))
}

// ListDocuments returns the documents that match f, newest first, and how
// many match in all (ignoring Limit and Offset).
func (db *DB) ListDocuments(ctx context.Context, f DocumentFilter) ([]Document, int, error) {
	limit := f.Limit
	if limit <= 0 {
		limit = DefaultListLimit
	}
	offset := max(f.Offset, 0)
	order, orderErr := documentOrder(f.Sort, f.Order)
	if orderErr != nil {
		return nil, 0, orderErr
	}

	var conds []string
	var args []any
	if s := strings.TrimSpace(f.Search); s != "" {
		if err := checkListSearch(s); err != nil {
			return nil, 0, err
		}
		cond := `d.name LIKE ? ESCAPE '\'`
		args = append(args, "%"+escapeLike(s)+"%")
		if q := ftsQuery(s); q != "" {
			cond = `(` + cond + ` OR d.id IN (SELECT c.document_id FROM chunks c
				WHERE c.id IN (SELECT rowid FROM chunks_fts WHERE chunks_fts MATCH ?)))`
			args = append(args, q)
		}
		conds = append(conds, cond)
	}
	for _, tagID := range uniqueStrings(f.TagIDs) {
		conds = append(conds, `EXISTS (SELECT 1 FROM document_tags dt WHERE dt.document_id = d.id AND dt.tag_id = ?)`)
		args = append(args, tagID)
	}
	where := ""
	if len(conds) > 0 {
		where = " WHERE " + strings.Join(conds, " AND ")
	}

	var docs []Document
	var total int
	err := db.view(ctx, "list documents", func(tx *sql.Tx) error {
		if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM documents d`+where, args...).Scan(&total); err != nil {
			return err
		}
		var err error
		docs, err = queryRows(ctx, tx, scanDocument, `SELECT `+documentColumns+` FROM documents d`+where+
			` ORDER BY `+order+` LIMIT ? OFFSET ?`, append(args, limit, offset)...)
		return err
	})
	if err != nil {
		return nil, 0, err
	}
	return docs, total, nil
}

// UpdateDocument changes the fields set in p and returns the document.
func (db *DB) UpdateDocument(ctx context.Context, id string, p DocumentPatch) (Document, error) {
	var sets []string
	var args []any
	if p.Name != nil {
		name := strings.TrimSpace(*p.Name)
		if name == "" {
			return Document{}, Errorf(ErrInvalid, "document name is empty")
		}
		sets, args = append(sets, "name = ?"), append(args, name)
	}
	if len(p.Metadata) > 0 {
		raw := p.Metadata
		if string(bytes.TrimSpace(raw)) == "null" {
			raw = nil
		}
		metadata, err := normalizeMetadata(raw)
		if err != nil {
			return Document{}, err
		}
		sets, args = append(sets, "metadata = ?"), append(args, metadata)
	}
	var doc Document
	err := db.update(ctx, "update document", func(tx *writeTx) error {
		cur, err := getDocument(ctx, tx, id)
		if err != nil {
			return err
		}
		if len(sets) > 0 || p.TagIDs != nil {
			summary, err := documentPatchSummary(ctx, tx, cur, p)
			if err != nil {
				return err
			}
			if _, err := tx.journal(ctx, change{op: "update document", kind: "document", id: id, documentID: id,
				summary: summary, writes: []string{rowKey(id)}, reads: tagKeys(p.TagIDs),
				scopes: []scope{columnsScope("documents", id, "name", "metadata", "updated_at"),
					rowsScope("document_tags", "document_id", id)}}); err != nil {
				return err
			}
		}
		if p.TagIDs != nil {
			tagIDs := uniqueStrings(*p.TagIDs)
			if err := checkTagsExist(ctx, tx, tagIDs); err != nil {
				return err
			}
			if _, err := tx.ExecContext(ctx, `DELETE FROM document_tags WHERE document_id = ?`, id); err != nil {
				return err
			}
			if err := setDocumentTags(ctx, tx, id, tagIDs); err != nil {
				return err
			}
		}
		if len(sets) > 0 || p.TagIDs != nil {
			q := `UPDATE documents SET ` + strings.Join(append(sets, "updated_at = ?"), ", ") + ` WHERE id = ?`
			if _, err := tx.ExecContext(ctx, q, append(args, tx.nowText(), id)...); err != nil {
				return err
			}
		}
		doc, err = getDocument(ctx, tx, id)
		return err
	})
	return doc, err
}

// DeleteDocument deletes a document and everything that belongs to it: its
// file, pages, chunks and index entries, tags links, extractions, threads
// and their messages, and paused turns (all by ON DELETE CASCADE).
func (db *DB) DeleteDocument(ctx context.Context, id string) error {
	return db.update(ctx, "delete document", func(tx *writeTx) error {
		d, err := getDocument(ctx, tx, id)
		if err != nil {
			return err
		}
		var extractions int
		if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM extractions WHERE document_id = ?`, id).Scan(&extractions); err != nil {
			return err
		}
		if _, err := tx.journal(ctx, change{op: "delete document", kind: "document", id: id, documentID: id,
			summary: fmt.Sprintf("deleted document %q (%s, %s)", d.Name, plural(d.Pages, "page"), plural(extractions, "extraction")),
			writes:  []string{documentKey(id)},
			scopes:  []scope{treeScope("documents", id)}}); err != nil {
			return err
		}
		_, err = tx.ExecContext(ctx, `DELETE FROM documents WHERE id = ?`, id)
		return err
	})
}

func checkStatus(status string) (string, error) {
	switch status {
	case "":
		return StatusReady, nil
	case StatusReady, StatusNeedsOCR, StatusFailed:
		return status, nil
	}
	return "", Errorf(ErrInvalid, "unknown document status %q (want %s, %s or %s)", status, StatusReady, StatusNeedsOCR, StatusFailed)
}

// normalizeMetadata checks that raw is a JSON object and compacts it; nil or
// empty means {}.
func normalizeMetadata(raw json.RawMessage) (string, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return "{}", nil
	}
	if raw[0] != '{' || !json.Valid(raw) {
		return "", Errorf(ErrInvalid, "metadata must be a JSON object")
	}
	var buf bytes.Buffer
	if err := json.Compact(&buf, raw); err != nil {
		return "", Errorf(ErrInvalid, "metadata must be a JSON object")
	}
	return buf.String(), nil
}

// escapeLike escapes LIKE's wildcards so that user text matches literally
// (with ESCAPE '\').
func escapeLike(s string) string {
	return strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`).Replace(s)
}

// uniqueStrings drops empty and repeated values, keeping the first order.
func uniqueStrings(in []string) []string {
	out := make([]string, 0, len(in))
	seen := make(map[string]bool, len(in))
	for _, s := range in {
		if s != "" && !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	return out
}
