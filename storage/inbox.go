package storage

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"
)

// The inbox folder's memory (app/inbox): each file the watcher has seen, by
// path, with its size and mtime when seen and what became of it. The
// watcher compares a file on disk with its row to decide, without reading
// it, whether it is new, changed or settled.

// Inbox file statuses (inbox_files.status).
const (
	// InboxWaiting: seen, not yet stable, or being stored. A row left
	// waiting by a process that stopped is taken up again at its next start.
	InboxWaiting = "waiting"
	// InboxStored: stored as a new document (document_id).
	InboxStored = "stored"
	// InboxDuplicate: the same bytes were there already (duplicate_of).
	InboxDuplicate = "duplicate"
	// InboxFailed: error says why; tried again only when the file changes.
	InboxFailed = "failed"
)

// Inbox stages: a file's document's place in the pipeline, from its status
// and auto-create status (InboxFile.Stage).
const (
	StageStored        = "stored"
	StageReading       = "reading"
	StageExtracting    = "extracting"
	StageDone          = "done"
	StageNeedsPassword = "needs_password"
	StageFailed        = "failed"
)

// InboxMark is what the watcher compares a file on disk with: the size
// and mtime its row was written for, and the row's status.
type InboxMark struct {
	Size    int64
	ModTime time.Time
	Status  string
}

// Matches reports whether a file of this size and mtime is the one the
// row is about.
func (m InboxMark) Matches(size int64, mod time.Time) bool {
	return m.Size == size && m.ModTime.Equal(mod)
}

// InboxFile is one file of the inbox as GET /api/inbox and `docent inbox
// --json` show it (docs/protocol.md).
type InboxFile struct {
	// Path is the file's absolute path; Rel the path under the inbox
	// folder, with slashes.
	Path string `json:"path"`
	Rel  string `json:"rel"`
	// Size and Modified are the file's when the row was written.
	Size     int64     `json:"size"`
	Modified time.Time `json:"modified"`
	// SHA256 is of the bytes stored, once stored or found a duplicate.
	SHA256 string `json:"sha256,omitempty"`
	// Status is waiting, stored, duplicate or failed (the Inbox constants).
	Status string `json:"status" ts:"'waiting' | 'stored' | 'duplicate' | 'failed'"`
	// Error says why the file failed; ErrorCode classifies it
	// ("password_required", "too_large", "permission", "unreadable",
	// "gone", "symlink_loop", "unsupported").
	Error     string `json:"error,omitempty"`
	ErrorCode string `json:"error_code,omitempty"`
	// DocumentID is the document the file became; DuplicateOf the one
	// that had its bytes already.
	DocumentID  string `json:"document_id,omitempty"`
	DuplicateOf string `json:"duplicate_of,omitempty"`
	// Stage is the document's place in the pipeline (the Stage
	// constants); absent while the file waits.
	Stage string `json:"stage,omitempty" ts:"'stored' | 'reading' | 'embedding' | 'extracting' | 'done' | 'needs_password' | 'waiting_for_model' | 'failed'"`
	// DocumentName, Kind (its schema id), KindName and ExtractionID (its
	// latest extraction) are the document's, when known.
	DocumentName string `json:"document_name,omitempty"`
	Kind         string `json:"kind,omitempty"`
	KindName     string `json:"kind_name,omitempty"`
	ExtractionID string `json:"extraction_id,omitempty"`
	// Tags are the names the file's subfolders gave it.
	Tags      []string  `json:"tags"`
	UpdatedAt time.Time `json:"updated_at"`
}

// InboxObservation is a file the watcher has seen at a size and mtime
// that no row matches (new, or changed since).
type InboxObservation struct {
	Path, Rel string
	Size      int64
	ModTime   time.Time
	Tags      []string
}

// InboxMarks returns the mark of every row whose path is under folder, by
// path: what a start compares the folder's files with, in one read and
// without touching the files.
func (db *DB) InboxMarks(ctx context.Context, folder string) (map[string]InboxMark, error) {
	out := map[string]InboxMark{}
	err := db.view(ctx, "read the inbox's files", func(tx *sql.Tx) error {
		return queryEach(ctx, tx, func(s scanner) error {
			var path string
			var m InboxMark
			var ns int64
			if err := s.Scan(&path, &m.Size, &ns, &m.Status); err != nil {
				return err
			}
			m.ModTime = time.Unix(0, ns)
			out[path] = m
			return nil
		}, `SELECT path, size, mtime_ns, status FROM inbox_files WHERE `+underFolder, folderArgs(folder)...)
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// underFolder selects rows whose path is the folder's or under it, with
// folderArgs' two arguments; LIKE is not used, as a path may hold % and _.
const underFolder = `(substr(path, 1, length(?)) = ? )`

func folderArgs(folder string) []any {
	prefix := strings.TrimRight(folder, `/\`) + pathSep(folder)
	return []any{prefix, prefix}
}

// pathSep is the separator folder's paths use.
func pathSep(folder string) string {
	if strings.Contains(folder, `\`) && !strings.Contains(folder, "/") {
		return `\`
	}
	return "/"
}

// NoteInboxWaiting records files as waiting, in one transaction: new rows,
// or rows whose file changed (what they said is cleared). The files are
// then stored one by one (FinishInboxFile).
func (db *DB) NoteInboxWaiting(ctx context.Context, files ...InboxObservation) error {
	if len(files) == 0 {
		return nil
	}
	return db.update(ctx, "note inbox files", func(tx *writeTx) error {
		stmt, err := tx.PrepareContext(ctx, `INSERT INTO inbox_files (path, rel, size, mtime_ns, status, tags, seen_at, updated_at)
			VALUES (?, ?, ?, ?, 'waiting', ?, ?, ?)
			ON CONFLICT (path) DO UPDATE SET rel = excluded.rel, size = excluded.size, mtime_ns = excluded.mtime_ns,
				status = 'waiting', tags = excluded.tags, sha256 = '', error = '', error_code = '', document_id = '',
				duplicate_of = '', seen_at = excluded.seen_at, updated_at = excluded.updated_at`)
		if err != nil {
			return err
		}
		defer stmt.Close()
		now := tx.nowText()
		for _, f := range files {
			if f.Path == "" || f.Size < 0 {
				return Errorf(ErrInvalid, "an inbox file needs a path and a size")
			}
			tags, err := json.Marshal(nonNil(f.Tags))
			if err != nil {
				return err
			}
			if _, err := stmt.ExecContext(ctx, f.Path, f.Rel, f.Size, f.ModTime.UnixNano(), string(tags), now, now); err != nil {
				return err
			}
		}
		return nil
	})
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// InboxResult is what became of a waiting file.
type InboxResult struct {
	Path string
	// Size and ModTime are the file's as it was taken; the row is written
	// for them, so a file that changed since is seen as changed.
	Size    int64
	ModTime time.Time
	// DocumentID is the document stored, or, with Duplicate, the one that
	// had the bytes already. A failure may have one too (a PDF that needs
	// its password is stored, waiting for it).
	DocumentID string
	Duplicate  bool
	// Error and ErrorCode say why it failed; "" for none.
	Error, ErrorCode string
}

// FinishInboxFile writes what became of a waiting file and returns its row.
//
// A duplicate whose document no other inbox row claims and that was
// created after this row was seen is this file's own document: a process
// that stopped after storing it and before writing this row left it, and
// the file is stored, not a duplicate of itself.
func (db *DB) FinishInboxFile(ctx context.Context, r InboxResult) (InboxFile, error) {
	var out InboxFile
	err := db.update(ctx, "finish inbox file", func(tx *writeTx) error {
		var seen string
		err := tx.QueryRowContext(ctx, `SELECT seen_at FROM inbox_files WHERE path = ?`, r.Path).Scan(&seen)
		if errors.Is(err, sql.ErrNoRows) {
			return Errorf(ErrNotFound, "inbox file %s not found", r.Path)
		}
		if err != nil {
			return err
		}
		status, docID, dupOf := InboxStored, r.DocumentID, ""
		switch {
		case r.Error != "":
			status = InboxFailed
		case r.Duplicate:
			var created string
			err := tx.QueryRowContext(ctx, `SELECT created_at FROM documents WHERE id = ?
				AND NOT EXISTS (SELECT 1 FROM inbox_files WHERE path <> ? AND document_id = ? AND status = 'stored')`,
				r.DocumentID, r.Path, r.DocumentID).Scan(&created)
			switch {
			case err == nil && created >= seen:
				// This file's own document, stored before a stop.
			case err == nil || errors.Is(err, sql.ErrNoRows):
				status, docID, dupOf = InboxDuplicate, "", r.DocumentID
			default:
				return err
			}
		case r.DocumentID == "":
			return Errorf(ErrInvalid, "a stored inbox file needs its document")
		}
		var sha sql.NullString
		if id := docID + dupOf; id != "" {
			if err := tx.QueryRowContext(ctx, `SELECT sha256 FROM documents WHERE id = ?`, id).Scan(&sha); err != nil && !errors.Is(err, sql.ErrNoRows) {
				return err
			}
		}
		if _, err := tx.ExecContext(ctx, `UPDATE inbox_files SET size = ?, mtime_ns = ?, status = ?, error = ?, error_code = ?,
			document_id = ?, duplicate_of = ?, sha256 = ?, updated_at = ? WHERE path = ?`,
			r.Size, r.ModTime.UnixNano(), status, r.Error, r.ErrorCode, docID, dupOf, sha.String, tx.nowText(), r.Path); err != nil {
			return err
		}
		out, err = getInboxFile(ctx, tx, r.Path)
		return err
	})
	return out, err
}

// GetInboxFile returns one row of the inbox, with its document's stage.
func (db *DB) GetInboxFile(ctx context.Context, path string) (InboxFile, error) {
	var out InboxFile
	err := db.view(ctx, "get inbox file", func(tx *sql.Tx) error {
		var err error
		out, err = getInboxFile(ctx, tx, path)
		return err
	})
	return out, err
}

// ListInboxFiles returns the rows under folder, newest first, at most
// limit (DefaultListLimit when 0), each with its document's stage, kind
// and latest extraction.
func (db *DB) ListInboxFiles(ctx context.Context, folder string, limit int) ([]InboxFile, error) {
	if limit <= 0 {
		limit = DefaultListLimit
	}
	var out []InboxFile
	err := db.view(ctx, "list inbox files", func(tx *sql.Tx) error {
		var err error
		out, err = queryRows(ctx, tx, scanInboxFile, `SELECT `+inboxColumns+` FROM inbox_files f `+inboxJoins+
			` WHERE `+strings.ReplaceAll(underFolder, "path", "f.path")+` ORDER BY f.updated_at DESC, f.path LIMIT ?`,
			append(folderArgs(folder), limit)...)
		return err
	})
	if err != nil {
		return nil, err
	}
	return nonNilFiles(out), nil
}

func nonNilFiles(s []InboxFile) []InboxFile {
	if s == nil {
		return []InboxFile{}
	}
	return s
}

const inboxColumns = `f.path, f.rel, f.size, f.mtime_ns, f.sha256, f.status, f.error, f.error_code, f.document_id,
	f.duplicate_of, f.tags, f.updated_at, coalesce(d.name, ''), coalesce(d.status, ''), coalesce(d.error_code, ''),
	coalesce(d.auto_create_status, ''), coalesce(d.schema_id, ''), coalesce(s.name, ''),
	coalesce((SELECT e.id FROM extractions e WHERE e.document_id = d.id ORDER BY e.created_at DESC, e.id DESC LIMIT 1), '')`

// inboxJoins brings each row's document: the one it became, else the one
// it duplicates.
const inboxJoins = `LEFT JOIN documents d ON d.id = (CASE WHEN f.document_id <> '' THEN f.document_id ELSE f.duplicate_of END)
	LEFT JOIN schemas s ON s.id = d.schema_id`

func getInboxFile(ctx context.Context, q queryer, path string) (InboxFile, error) {
	f, err := scanInboxFile(q.QueryRowContext(ctx, `SELECT `+inboxColumns+` FROM inbox_files f `+inboxJoins+` WHERE f.path = ?`, path))
	if errors.Is(err, sql.ErrNoRows) {
		return InboxFile{}, Errorf(ErrNotFound, "inbox file %s not found", path)
	}
	return f, err
}

func scanInboxFile(s scanner) (InboxFile, error) {
	var (
		f                                       InboxFile
		ns                                      int64
		tags, updated                           string
		docStatus, docErrCode, autoCreateStatus string
	)
	err := s.Scan(&f.Path, &f.Rel, &f.Size, &ns, &f.SHA256, &f.Status, &f.Error, &f.ErrorCode, &f.DocumentID,
		&f.DuplicateOf, &tags, &updated, &f.DocumentName, &docStatus, &docErrCode, &autoCreateStatus,
		&f.Kind, &f.KindName, &f.ExtractionID)
	if err != nil {
		return InboxFile{}, err
	}
	f.Modified = time.Unix(0, ns).UTC()
	if f.UpdatedAt, err = parseTime(updated); err != nil {
		return InboxFile{}, err
	}
	if err := json.Unmarshal([]byte(tags), &f.Tags); err != nil {
		return InboxFile{}, fmt.Errorf("inbox file %s: tags: %w", f.Path, err)
	}
	f.Tags = nonNil(f.Tags)
	f.Stage = inboxStage(f, docStatus, docErrCode, autoCreateStatus)
	return f, nil
}

// inboxStage is where a file's document stands in the pipeline.
func inboxStage(f InboxFile, docStatus, docErrCode, autoCreate string) string {
	switch {
	case f.Status == InboxWaiting:
		return ""
	case f.Status == InboxFailed && (f.ErrorCode == ErrorCodePasswordRequired || docErrCode == ErrorCodePasswordRequired):
		return StageNeedsPassword
	case f.Status == InboxFailed:
		return StageFailed
	case docStatus == "":
		return "" // the document was deleted since
	case docStatus == StatusFailed && docErrCode == ErrorCodePasswordRequired:
		return StageNeedsPassword
	case docStatus == StatusFailed:
		return StageFailed
	case docStatus == StatusNeedsOCR || docStatus == StatusOCR:
		return StageReading
	case f.ExtractionID != "" || autoCreate == AutoCreateProposed || autoCreate == AutoCreateAccepted:
		return StageDone
	case autoCreate == AutoCreatePending || autoCreate == AutoCreateRunning:
		return StageExtracting
	case autoCreate == AutoCreateFailed:
		return StageFailed
	}
	return StageStored
}
