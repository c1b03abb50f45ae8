package cli

import (
	"cmp"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/docent/docent/agent"
	"github.com/docent/docent/agent/textfmt"
	"github.com/docent/docent/app/server"
	"github.com/docent/docent/storage"
)

// threadList is what `docent threads --json` prints.
type threadList struct {
	Threads []storage.Thread `json:"threads"`
}

func runThreads(ctx context.Context, env *Env, args []string) error {
	fs := flag.NewFlagSet("threads", flag.ContinueOnError)
	asJSON := fs.Bool("json", false, "")
	ask := fs.Bool("ask", false, "")
	rest, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	switch {
	case *ask && len(rest) > 1:
		return usagef("threads --ask takes at most one thread\n%s", usageLine("threads"))
	case !*ask && (len(rest) < 1 || len(rest) > 2):
		return usagef("threads takes a document and at most one thread, or --ask\n%s", usageLine("threads"))
	}
	db, err := env.Store(ctx)
	if err != nil {
		return err
	}
	// Ask Docent's threads belong to no document: the store's "" is the
	// library.
	var doc storage.Document
	threadArgs := rest
	if !*ask {
		if doc, err = db.FindDocument(ctx, rest[0]); err != nil {
			return err
		}
		threadArgs = rest[1:]
	}
	docID := doc.ID
	if len(threadArgs) == 1 {
		return showThread(ctx, env, db, docID, threadArgs[0], *asJSON)
	}
	threads, err := db.ListThreads(ctx, docID)
	if err != nil {
		return err
	}
	if *asJSON {
		if threads == nil {
			threads = []storage.Thread{}
		}
		return writeJSON(env.IO, threadList{Threads: threads})
	}
	if len(threads) == 0 {
		if *ask {
			fmt.Fprintf(env.IO.Err, "no questions asked yet; ask one with: docent ask \"...\"\n")
			return nil
		}
		fmt.Fprintf(env.IO.Err, "no conversations about %s yet; start one with: docent chat %s \"...\"\n", textfmt.Visible(doc.Name), doc.ID)
		return nil
	}
	t := newTable(env.IO.Out, "THREAD", "TITLE", "MESSAGES", "UPDATED")
	for _, th := range threads {
		t.row(th.ID, textfmt.Shorten(th.Title, 60), fmt.Sprint(th.MessageCount), formatTime(th.UpdatedAt))
	}
	return t.flush()
}

// showThread prints one conversation as the user saw it.
func showThread(ctx context.Context, env *Env, db *storage.DB, docID, threadID string, asJSON bool) error {
	th, err := db.GetThread(ctx, docID, threadID)
	if err != nil {
		return err
	}
	msgs, err := db.ThreadMessages(ctx, th.ID)
	if err != nil {
		return err
	}
	if asJSON {
		if msgs == nil {
			msgs = []storage.ThreadMessage{}
		}
		agent.SummarizeStored(ctx, db, th, msgs) // as GET .../threads/{thread_id} answers
		return writeJSON(env.IO, server.ThreadWithMessages{Thread: th, Messages: msgs})
	}
	w := env.IO.Out
	fmt.Fprintf(w, "%s  %s\n", th.ID, textfmt.Visible(th.Title))
	fmt.Fprintf(w, "%d messages, model %s, updated %s\n", th.MessageCount, textfmt.Visible(cmp.Or(th.Model, "(default)")), formatTime(th.UpdatedAt))
	for _, m := range msgs {
		printThreadMessage(ctx, w, m)
	}
	return nil
}

// printThreadMessage writes one message of a transcript: who said it, the
// calls an assistant proposed and how each went.
func printThreadMessage(ctx context.Context, w io.Writer, m storage.ThreadMessage) {
	data := agent.ParseMessageData(m.Data) // Data is optional; a missing field reads as zero
	switch m.Role {
	case storage.RoleUser:
		fmt.Fprintf(w, "\nyou: %s\n", textfmt.VisibleLines(m.Content))
	case storage.RoleAssistant:
		if m.Thinking != "" {
			fmt.Fprintf(w, "\n  (thought: %s)\n", textfmt.Visible(textfmt.Shorten(strings.Join(strings.Fields(m.Thinking), " "), 160)))
		}
		if strings.TrimSpace(m.Content) != "" {
			fmt.Fprintf(w, "\nassistant: %s\n", textfmt.VisibleLines(m.Content))
		}
		var calls []agent.ToolCall
		_ = json.Unmarshal(m.ToolCalls, &calls)
		for _, c := range calls {
			// Named as the model made them (no store), not by what their
			// references name today.
			fmt.Fprintf(w, "  → %s  [%s]\n", callLine(c, agent.Summarize(ctx, nil, c.Name, c.Arguments)), textfmt.Visible(c.ID))
		}
		if data.TurnID != "" {
			fmt.Fprintf(w, "  (paused for approval as turn %s)\n", data.TurnID)
		}
	case storage.RoleTool:
		status := "ok"
		switch {
		case data.Rejected:
			status = "rejected"
		case data.Success == nil || !*data.Success:
			status = "error"
		case data.Edited:
			status = "ok, ran with edited arguments " + compactArgs(data.Arguments)
		}
		detail := ""
		if status == "ok" {
			detail = agent.ResultWords(m.ToolName, json.RawMessage(m.Content))
		}
		if detail == "" {
			detail = textfmt.Shorten(strings.Join(strings.Fields(m.Content), " "), 160)
		}
		fmt.Fprintf(w, "  ← %s %s: %s\n", textfmt.Visible(m.ToolName), status, textfmt.Visible(detail))
	}
}
