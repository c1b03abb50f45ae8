package storage

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"strings"
	"time"
)

// Message roles, as the model sees them.
const (
	RoleSystem    = "system"
	RoleUser      = "user"
	RoleAssistant = "assistant"
	RoleTool      = "tool"
)

// Thread is a conversation with the agent about one document, or about the
// whole library (Ask Docent) when DocumentID is "".
type Thread struct {
	ID string `json:"thread_id"`
	// DocumentID is the document the thread is about; "" for a library
	// thread (stored as NULL).
	DocumentID string `json:"document_id"`
	Title      string `json:"title"`
	// Model is the provider-prefixed model the thread was started with, or
	// "" for the default.
	Model string `json:"model,omitempty"`
	// WorkingState is the JSON object {schema_revid, prompt_revid,
	// extraction} restored on the thread's next turn; {} at first.
	WorkingState json.RawMessage `json:"working_state" ts:"WorkingState"`
	CreatedAt    time.Time       `json:"created_at"`
	// UpdatedAt moves with every change: messages appended or truncated,
	// working state saved, a rename.
	UpdatedAt    time.Time `json:"updated_at"`
	MessageCount int       `json:"message_count"`
}

// ThreadMessage is one message of a thread, in the order the model saw it.
type ThreadMessage struct {
	// Seq is the 0-based position in the thread; AppendMessages sets it.
	Seq     int    `json:"seq"`
	Role    string `json:"role"` // one of the Role constants
	Content string `json:"content"`
	// Thinking is the model's reasoning, for an assistant message.
	Thinking string `json:"thinking,omitempty"`
	// ToolCalls is the assistant's JSON array [{id, name, arguments}], nil
	// when it called none.
	ToolCalls json.RawMessage `json:"tool_calls,omitempty" ts:"ToolCall[]"`
	// ToolCallID and ToolName belong to a tool message: the call it answers.
	ToolCallID string `json:"tool_call_id,omitempty"`
	ToolName   string `json:"tool_name,omitempty"`
	// Data is a JSON object of what the protocol records beside the message
	// (approvals, proposed and executed arguments, usage, round index); nil
	// when there is none.
	Data json.RawMessage `json:"data,omitempty" ts:"MessageData"`
	// CreatedAt is set by AppendMessages.
	CreatedAt time.Time `json:"created_at"`
}

const threadColumns = `t.id, coalesce(t.document_id, ''), t.title, t.model, t.working_state, t.created_at, t.updated_at,
	(SELECT count(*) FROM thread_messages m WHERE m.thread_id = t.id)`

func scanThread(s scanner) (Thread, error) {
	var th Thread
	var ws, created, updated string
	if err := s.Scan(&th.ID, &th.DocumentID, &th.Title, &th.Model, &ws, &created, &updated, &th.MessageCount); err != nil {
		return Thread{}, err
	}
	th.WorkingState = json.RawMessage(ws)
	var errC, errU error
	th.CreatedAt, errC = parseTime(created)
	th.UpdatedAt, errU = parseTime(updated)
	return th, errors.Join(errC, errU)
}

// threadOwner is documentID as threads.document_id holds it: NULL for the
// library, so that `document_id IS ?` matches library threads only for ""
// and a document's threads only for its id.
func threadOwner(documentID string) any {
	if documentID == "" {
		return nil
	}
	return documentID
}

// noThread is the error for a thread that is not one of documentID's (or
// of the library's, for "").
func noThread(documentID, threadID string) error {
	if documentID == "" {
		return Errorf(ErrNotFound, "the library has no thread %s (a document's thread continues in that document's chat)", threadID)
	}
	return Errorf(ErrNotFound, "document %s has no thread %s", documentID, threadID)
}

// getThread reads a thread of one document, or of the library for "": a
// thread of another document, or of the library for a document and vice
// versa, is not found, as an unknown one is.
func getThread(ctx context.Context, q queryer, documentID, threadID string) (Thread, error) {
	th, err := scanThread(q.QueryRowContext(ctx, `SELECT `+threadColumns+` FROM threads t
		WHERE t.id = ? AND t.document_id IS ?`, threadID, threadOwner(documentID)))
	if errors.Is(err, sql.ErrNoRows) {
		return Thread{}, noThread(documentID, threadID)
	}
	return th, err
}

// threadExists checks that a thread exists, whatever its document.
func threadExists(ctx context.Context, q queryer, threadID string) error {
	var one int
	err := q.QueryRowContext(ctx, `SELECT 1 FROM threads WHERE id = ?`, threadID).Scan(&one)
	if errors.Is(err, sql.ErrNoRows) {
		return Errorf(ErrNotFound, "thread %s not found", threadID)
	}
	return err
}

// CreateThread starts an empty thread about a document, or about the
// library when documentID is "", with an empty working state. The title may
// be empty (the agent can name the thread later) but not longer than
// MaxTitleLength; an unknown document is not found.
func (db *DB) CreateThread(ctx context.Context, documentID, title, model string) (Thread, error) {
	title = strings.TrimSpace(title)
	if err := checkLength("thread title", "title", title, MaxTitleLength); err != nil {
		return Thread{}, err
	}
	var th Thread
	err := db.update(ctx, "create thread", func(tx *writeTx) error {
		if documentID != "" {
			if _, err := getDocument(ctx, tx, documentID); err != nil {
				return err
			}
		}
		id, now := newID(prefixThread), tx.nowText()
		_, err := tx.ExecContext(ctx, `INSERT INTO threads (id, document_id, title, model, working_state, created_at, updated_at)
			VALUES (?, ?, ?, ?, '{}', ?, ?)`, id, threadOwner(documentID), title, strings.TrimSpace(model), now, now)
		if err != nil {
			return err
		}
		th, err = getThread(ctx, tx, documentID, id)
		return err
	})
	return th, err
}

// GetThread returns a thread of a document, or of the library for "". A
// thread of another document (or a document's thread asked for as the
// library's, and vice versa) is not found, so that a path naming the wrong
// owner reads nothing.
func (db *DB) GetThread(ctx context.Context, documentID, threadID string) (Thread, error) {
	th, err := getThread(ctx, db.sql, documentID, threadID)
	return th, translate("get thread", err)
}

// ListThreads returns a document's threads, or the library's for "", most
// recently updated first. An unknown document is not found.
func (db *DB) ListThreads(ctx context.Context, documentID string) ([]Thread, error) {
	if documentID == "" {
		var out []Thread
		err := db.view(ctx, "list library threads", func(tx *sql.Tx) error {
			var err error
			out, err = queryRows(ctx, tx, scanThread, `SELECT `+threadColumns+` FROM threads t
				WHERE t.document_id IS NULL ORDER BY t.updated_at DESC, t.id DESC`)
			return err
		})
		if err != nil {
			return nil, err
		}
		return out, nil
	}
	return queryDocumentRows(ctx, db, "list threads", documentID, scanThread, `SELECT `+threadColumns+` FROM threads t
		WHERE t.document_id = ? ORDER BY t.updated_at DESC, t.id DESC`, documentID)
}

// RenameThread sets a thread's title; an empty title, or one longer than
// MaxTitleLength, is invalid.
func (db *DB) RenameThread(ctx context.Context, documentID, threadID, title string) (Thread, error) {
	title = strings.TrimSpace(title)
	if title == "" {
		return Thread{}, Errorf(ErrInvalid, "thread title is empty")
	}
	if err := checkLength("thread title", "title", title, MaxTitleLength); err != nil {
		return Thread{}, err
	}
	var th Thread
	err := db.update(ctx, "rename thread", func(tx *writeTx) error {
		if _, err := getThread(ctx, tx, documentID, threadID); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `UPDATE threads SET title = ?, updated_at = ? WHERE id = ?`,
			title, tx.nowText(), threadID); err != nil {
			return err
		}
		var err error
		th, err = getThread(ctx, tx, documentID, threadID)
		return err
	})
	return th, err
}

// DeleteThread deletes a thread of a document (or of the library, for "")
// with its messages and its
// paused turns (ON DELETE CASCADE). A document whose auto-create ran in it
// keeps its proposal, without the link to the thread.
func (db *DB) DeleteThread(ctx context.Context, documentID, threadID string) error {
	return db.update(ctx, "delete thread", func(tx *writeTx) error {
		res, err := tx.ExecContext(ctx, `DELETE FROM threads WHERE id = ? AND document_id IS ?`, threadID, threadOwner(documentID))
		if err != nil {
			return err
		}
		if n, err := res.RowsAffected(); err != nil {
			return err
		} else if n == 0 {
			return noThread(documentID, threadID)
		}
		return nil
	})
}

const threadMessageColumns = `seq, role, content, thinking, tool_calls, tool_call_id, tool_name, data, created_at`

func scanThreadMessage(s scanner) (ThreadMessage, error) {
	var m ThreadMessage
	var toolCalls sql.NullString
	var data, created string
	if err := s.Scan(&m.Seq, &m.Role, &m.Content, &m.Thinking, &toolCalls, &m.ToolCallID, &m.ToolName,
		&data, &created); err != nil {
		return ThreadMessage{}, err
	}
	if toolCalls.Valid {
		m.ToolCalls = json.RawMessage(toolCalls.String)
	}
	if data != "{}" {
		m.Data = json.RawMessage(data)
	}
	var err error
	m.CreatedAt, err = parseTime(created)
	return m, err
}

// ThreadMessages returns a thread's messages in seq order.
func (db *DB) ThreadMessages(ctx context.Context, threadID string) ([]ThreadMessage, error) {
	var out []ThreadMessage
	err := db.view(ctx, "read thread messages", func(tx *sql.Tx) error {
		if err := threadExists(ctx, tx, threadID); err != nil {
			return err
		}
		var err error
		out, err = queryRows(ctx, tx, scanThreadMessage, `SELECT `+threadMessageColumns+` FROM thread_messages
			WHERE thread_id = ? ORDER BY seq`, threadID)
		return err
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// storedMessage is a message checked and in the form it is stored.
type storedMessage struct {
	msg       ThreadMessage
	toolCalls any // nil (NULL) or the compact JSON array as a string
	data      string
}

// checkMessage validates a message to append; i is its index in the call,
// for messages.
func checkMessage(i int, m ThreadMessage) (storedMessage, error) {
	switch m.Role {
	case RoleSystem, RoleUser, RoleAssistant, RoleTool:
	default:
		return storedMessage{}, Errorf(ErrInvalid, "message %d has unknown role %q (want %s, %s, %s or %s)",
			i, m.Role, RoleSystem, RoleUser, RoleAssistant, RoleTool)
	}
	sm := storedMessage{msg: m, data: "{}"}
	sm.msg.ToolCalls, sm.msg.Data = nil, nil
	if len(strings.TrimSpace(string(m.ToolCalls))) > 0 {
		c, ok := compactJSON(m.ToolCalls)
		switch {
		case !ok || (c[0] != '[' && string(c) != "null"):
			return storedMessage{}, Errorf(ErrInvalid, "message %d: tool calls must be a JSON array", i)
		case c[0] == '[':
			sm.toolCalls, sm.msg.ToolCalls = string(c), c
		}
	}
	if len(strings.TrimSpace(string(m.Data))) > 0 {
		c, ok := compactJSON(m.Data)
		switch {
		case !ok || (c[0] != '{' && string(c) != "null"):
			return storedMessage{}, Errorf(ErrInvalid, "message %d: data must be a JSON object", i)
		case c[0] == '{' && string(c) != "{}":
			sm.data, sm.msg.Data = string(c), c
		}
	}
	return sm, nil
}

// normalizeWorkingState checks that raw is a JSON object and compacts it.
func normalizeWorkingState(raw json.RawMessage) (string, error) {
	c, ok := compactJSON(raw)
	if !ok || c[0] != '{' {
		return "", Errorf(ErrInvalid, "working state must be a JSON object")
	}
	return string(c), nil
}

// AppendMessages adds messages at the end of a thread in one transaction:
// their seq continues from the thread's last message, they all get the
// transaction's time, the thread's updated_at moves, and workingState, when
// not nil, replaces the thread's working state (it must be a JSON object).
// It returns the messages as stored, with seq and time. Appending nothing
// with a nil working state changes nothing.
func (db *DB) AppendMessages(ctx context.Context, threadID string, msgs []ThreadMessage, workingState json.RawMessage) ([]ThreadMessage, error) {
	stored := make([]storedMessage, len(msgs))
	for i, m := range msgs {
		sm, err := checkMessage(i, m)
		if err != nil {
			return nil, err
		}
		stored[i] = sm
	}
	var ws string
	if workingState != nil {
		var err error
		if ws, err = normalizeWorkingState(workingState); err != nil {
			return nil, err
		}
	}
	out := []ThreadMessage{}
	err := db.update(ctx, "append thread messages", func(tx *writeTx) error {
		if err := threadExists(ctx, tx, threadID); err != nil {
			return err
		}
		if len(msgs) == 0 && workingState == nil {
			return nil
		}
		// The write lock is held from BEGIN (see dsn), so no other writer can
		// take the same seq between this read and the inserts.
		var next int
		if err := tx.QueryRowContext(ctx, `SELECT coalesce(max(seq) + 1, 0) FROM thread_messages WHERE thread_id = ?`,
			threadID).Scan(&next); err != nil {
			return err
		}
		stmt, err := tx.PrepareContext(ctx, `INSERT INTO thread_messages
			(thread_id, seq, role, content, thinking, tool_calls, tool_call_id, tool_name, data, created_at)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`)
		if err != nil {
			return err
		}
		defer stmt.Close()
		now := tx.nowText()
		for i, sm := range stored {
			m := sm.msg
			m.Seq, m.CreatedAt = next+i, tx.now
			if _, err := stmt.ExecContext(ctx, threadID, m.Seq, m.Role, m.Content, m.Thinking, sm.toolCalls,
				m.ToolCallID, m.ToolName, sm.data, now); err != nil {
				return err
			}
			out = append(out, m)
		}
		if workingState != nil {
			_, err = tx.ExecContext(ctx, `UPDATE threads SET working_state = ?, updated_at = ? WHERE id = ?`, ws, now, threadID)
		} else {
			_, err = tx.ExecContext(ctx, `UPDATE threads SET updated_at = ? WHERE id = ?`, now, threadID)
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// TruncateThread keeps the first keep messages of a thread and deletes the
// rest, to resubmit from an earlier turn; the next message appended gets seq
// keep. Keeping more messages than the thread has is invalid. The working
// state and paused turns of the thread are left as they are.
func (db *DB) TruncateThread(ctx context.Context, documentID, threadID string, keep int) error {
	if keep < 0 {
		return Errorf(ErrInvalid, "cannot keep %d messages: the count cannot be negative", keep)
	}
	return db.update(ctx, "truncate thread", func(tx *writeTx) error {
		th, err := getThread(ctx, tx, documentID, threadID)
		if err != nil {
			return err
		}
		if keep > th.MessageCount {
			return Errorf(ErrInvalid, "thread %s has %d messages: cannot keep %d", threadID, th.MessageCount, keep)
		}
		if keep == th.MessageCount {
			return nil
		}
		if _, err := tx.ExecContext(ctx, `DELETE FROM thread_messages WHERE thread_id = ? AND seq >= ?`, threadID, keep); err != nil {
			return err
		}
		_, err = tx.ExecContext(ctx, `UPDATE threads SET updated_at = ? WHERE id = ?`, tx.nowText(), threadID)
		return err
	})
}
