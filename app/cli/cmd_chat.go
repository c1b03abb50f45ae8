package cli

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/docent/docent/agent"
	"github.com/docent/docent/agent/textfmt"
	"github.com/docent/docent/app/internal/listarg"
	"github.com/docent/docent/storage"
	"github.com/docent/docent/storage/fault"
)

func runChat(ctx context.Context, env *Env, args []string) error {
	fs := flag.NewFlagSet("chat", flag.ContinueOnError)
	threadID := fs.String("thread", "", "")
	autoApprove := fs.Bool("auto-approve", false, "")
	approveTools := fs.String("approve-tools", "", "")
	var mentionFlags stringList
	fs.Var(&mentionFlags, "mention", "")
	asJSON := fs.Bool("json", false, "")
	verbose := fs.Bool("verbose", false, "")
	rest, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(rest) < 1 || len(rest) > 2 {
		return usagef("chat needs a document and at most one message\n%s", usageLine("chat"))
	}
	mentions, err := parseMentions(mentionFlags)
	if err != nil {
		return err
	}
	var message string
	if len(rest) == 2 {
		message = rest[1]
	} else {
		b, err := io.ReadAll(env.IO.In)
		if err != nil {
			return fmt.Errorf("read the message from stdin: %w", err)
		}
		message = string(b)
	}
	if strings.TrimSpace(message) == "" {
		return usagef("chat needs a message, as an argument or on stdin\n%s", usageLine("chat"))
	}
	tools := listarg.Split([]string{*approveTools})
	db, err := env.Store(ctx)
	if err != nil {
		return err
	}
	doc, err := db.FindDocument(ctx, rest[0])
	if err != nil {
		return err
	}
	a, err := env.Agent(ctx)
	if err != nil {
		return err
	}
	// No process stays up to sweep on a timer: each chat clears what
	// expired since, so paused turns nobody approved do not pile up.
	if _, err := db.SweepTurnStates(ctx); err != nil {
		env.Logger.Warn("sweep expired turns", "err", err)
	}
	out := newTurnPrinter(ctx, env, db, doc.ID, *asJSON, *verbose)
	res, err := a.Chat(ctx, agent.ChatRequest{
		DocumentID: doc.ID, ThreadID: *threadID, Message: message, Model: env.Model,
		AutoApprove: *autoApprove, AutoApprovedTools: tools, Mentions: mentions,
	}, out)
	if err == nil && res.Paused() && env.IO.InTTY && !*asJSON {
		return approveOnTerminal(ctx, env, a, doc.ID, out, res)
	}
	return out.finish(res, err)
}

// parseMentions reads the --mention TYPE:ID values; a malformed one is a
// usage error, found before any model call.
func parseMentions(values []string) ([]agent.Mention, error) {
	var out []agent.Mention
	for _, v := range values {
		m, err := agent.ParseMention(v)
		if err != nil {
			return nil, usagef("--mention: %s\n%s", fault.ErrorMessage(err), usageLine("chat"))
		}
		out = append(out, m)
	}
	return out, nil
}

// approveOnTerminal asks the person at the terminal about the calls a
// paused chat turn waits for, approves them and streams the rest of the
// turn, asking again each time it pauses. At the end of stdin or on Ctrl-C
// it stops asking and prints how to approve later: the turn stays paused.
func approveOnTerminal(ctx context.Context, env *Env, a *agent.Agent, docID string, out *turnPrinter, res agent.TurnResult) error {
	ask := newApprover(env.IO, out.style, out.verbose)
	for res.Paused() {
		out.endThinking()
		out.endText()
		paused, err := a.Pending(ctx, res.TurnID)
		if err != nil {
			return err
		}
		asked := time.Now()
		approvals, err := ask.decide(ctx, res.ToolCalls, paused.NeedsApproval, out.summaryEnv(res.WorkingState))
		out.waited += time.Since(asked) // the person's time is not the turn's
		if err != nil {
			if ferr := out.finish(res, nil); ferr != nil {
				return ferr
			}
			if errors.Is(err, errStopAsking) {
				return nil
			}
			return err
		}
		out.pending = nil
		res, err = a.Approve(ctx, agent.ApproveRequest{
			DocumentID: docID, TurnID: res.TurnID, Approvals: approvals,
			AutoApprovedTools: slices.Clone(ask.always),
		}, out)
		if err != nil {
			return out.finish(res, err)
		}
	}
	return out.finish(res, nil)
}

func runApprove(ctx context.Context, env *Env, args []string) error {
	fs := flag.NewFlagSet("approve", flag.ContinueOnError)
	all := fs.Bool("all", false, "")
	var approve, reject stringList
	fs.Var(&approve, "approve", "")
	fs.Var(&reject, "reject", "")
	asJSON := fs.Bool("json", false, "")
	verbose := fs.Bool("verbose", false, "")
	rest, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	approve, reject = listarg.Split(approve), listarg.Split(reject)
	switch {
	case len(rest) != 1:
		return usagef("approve needs one turn id\n%s", usageLine("approve"))
	case *all && (len(approve) > 0 || len(reject) > 0):
		return usagef("--all goes without --approve and --reject\n%s", usageLine("approve"))
	case !*all && len(approve) == 0 && len(reject) == 0:
		return usagef("approve needs --all, or --approve and --reject with call ids\n%s", usageLine("approve"))
	}
	turnID := rest[0]
	a, err := env.Agent(ctx)
	if err != nil {
		return err
	}
	paused, err := a.Pending(ctx, turnID)
	if err != nil {
		return err
	}
	pending := paused.NeedsApproval
	var approvals []agent.Approval
	if *all {
		for _, id := range pending {
			approvals = append(approvals, agent.Approval{CallID: id, Approved: true})
		}
	} else {
		for _, id := range slices.Concat(approve, reject) {
			if !slices.Contains(pending, id) {
				return usagef("call %s does not wait for approval in turn %s (pending: %s)", id, turnID, strings.Join(pending, ", "))
			}
		}
		// Calls named in neither list are rejected, as the protocol says;
		// Agent.Approve reports a call approved and rejected twice.
		for _, id := range approve {
			approvals = append(approvals, agent.Approval{CallID: id, Approved: true})
		}
		for _, id := range reject {
			approvals = append(approvals, agent.Approval{CallID: id, Approved: false})
		}
	}
	db, err := env.Store(ctx)
	if err != nil {
		return err
	}
	out := newTurnPrinter(ctx, env, db, paused.DocumentID, *asJSON, *verbose)
	res, err := a.Approve(ctx, agent.ApproveRequest{DocumentID: paused.DocumentID, TurnID: turnID, Approvals: approvals}, out)
	return out.finish(res, err)
}

// turnPrinter is the sink of a turn on the command line: NDJSON events on
// stdout with --json, else the answer on stdout and what happens around it
// on stderr: thinking, each tool call and result on one line
// (chat_print.go), and a closing line naming the thread and what the turn
// cost.
type turnPrinter struct {
	ios     *IOStreams
	json    bool
	verbose bool // --verbose: the calls' arguments as JSON too
	ask     bool // a turn of `docent ask`: its closing line says how to go on
	style   styler
	failed  string // the message of an error event
	// ctx, db and docID are the conversation's: the closing line names
	// its thread, and calls that came without a summary are summarised.
	ctx   context.Context
	db    *storage.DB
	docID string

	textOpen     bool // answer text printed without its final newline
	thinkingOpen bool
	pending      []agent.ToolCall

	// What the closing line says.
	threadID string
	rounds   int // the highest round index seen, plus one
	tokens   int // of the usage events seen
	started  time.Time
	waited   time.Duration // spent waiting for the person's answers
}

func newTurnPrinter(ctx context.Context, env *Env, db *storage.DB, docID string, asJSON, verbose bool) *turnPrinter {
	return &turnPrinter{
		ios: env.IO, json: asJSON, verbose: verbose, style: newStyler(env.IO.ErrTTY),
		ctx: ctx, db: db, docID: docID, started: time.Now(),
	}
}

// summaryEnv is what names the things a call changes for a call that came
// without its summary (a turn paused by an older build).
func (p *turnPrinter) summaryEnv(ws agent.WorkingState) *agent.ToolEnv {
	return &agent.ToolEnv{DB: p.db, DocumentID: p.docID, State: &ws}
}

// Emit writes one event: with --json as its NDJSON line, else as what a
// person reads, by its payload type (events of types it does not show, or
// does not know, print nothing).
func (p *turnPrinter) Emit(e agent.Event) error {
	p.track(e)
	if p.json {
		b, err := json.Marshal(e)
		if err != nil {
			return err
		}
		_, err = p.ios.Out.Write(append(b, '\n'))
		return err
	}
	switch ev := e.Payload.(type) {
	case agent.ThinkingChunkPayload:
		if !p.thinkingOpen && p.style.on {
			fmt.Fprint(p.ios.Err, "\033[2m")
		}
		p.thinkingOpen = true
		fmt.Fprint(p.ios.Err, textfmt.VisibleLines(ev.Chunk))
	case agent.ThinkingDonePayload:
		p.endThinking()
	case agent.TextChunkPayload:
		p.endThinking()
		p.textOpen = !strings.HasSuffix(ev.Chunk, "\n")
		// The model's words may repeat a document's, whatever they hold.
		_, err := fmt.Fprint(p.ios.Out, textfmt.VisibleLines(ev.Chunk))
		return err
	case agent.TextDonePayload:
		p.endText()
	case agent.ToolCallsPayload:
		p.endThinking()
		p.endText()
		for _, c := range ev.ToolCalls {
			fmt.Fprintf(p.ios.Err, "→ %s\n", callLine(c, summaryOf(p.ctx, c, nil)))
			if p.verbose {
				fmt.Fprintf(p.ios.Err, "  %s\n", textfmt.VisibleLines(fullArgs(c.Arguments)))
			}
			if slices.Contains(ev.NeedsApproval, c.ID) {
				p.pending = append(p.pending, c)
			}
		}
	case agent.ToolResultPayload:
		mark := p.style.green("✓")
		if !ev.Success {
			mark = p.style.red("✗")
		}
		fmt.Fprintf(p.ios.Err, "%s %s\n", mark, resultLine(ev))
	case agent.UsagePayload:
		if ev.PromptTruncated != nil {
			// The server cut the prompt to fit the model's window: the
			// answer comes from part of the conversation.
			p.endThinking()
			p.endText()
			fmt.Fprintf(p.ios.Err, "%s %s\n", p.style.yellow("!"), ev.PromptTruncated.Warning)
		}
		if ev.OutputTruncated != nil {
			// The server cut the answer at its output limit: what was
			// printed is incomplete.
			p.endThinking()
			p.endText()
			fmt.Fprintf(p.ios.Err, "%s %s\n", p.style.yellow("!"), ev.OutputTruncated.Warning)
		}
	}
	return nil
}

// track notes what the closing line and the names of later calls need.
func (p *turnPrinter) track(e agent.Event) {
	if r, ok := e.Round(); ok && r+1 > p.rounds {
		p.rounds = r + 1
	}
	switch ev := e.Payload.(type) {
	case agent.ErrorPayload:
		p.failed = ev.Error
	case agent.TurnStartedPayload:
		p.threadID = cmp.Or(ev.ThreadID, p.threadID)
	case agent.UsagePayload:
		p.tokens += ev.PromptTokens + ev.CompletionTokens
	case agent.DonePayload:
		p.threadID = cmp.Or(ev.Result.ThreadID, p.threadID)
	}
}

func (p *turnPrinter) endThinking() {
	if !p.thinkingOpen {
		return
	}
	p.thinkingOpen = false
	if p.style.on {
		fmt.Fprint(p.ios.Err, "\033[0m")
	}
	fmt.Fprintln(p.ios.Err)
}

func (p *turnPrinter) endText() {
	if p.textOpen {
		fmt.Fprintln(p.ios.Out)
		p.textOpen = false
	}
}

// finish ends the output of a turn and turns its outcome into the
// command's error: a failed turn exits 1 with the error event's message.
func (p *turnPrinter) finish(res agent.TurnResult, err error) error {
	if !p.json {
		p.endThinking()
		p.endText()
	}
	if err != nil {
		if !p.json {
			p.closing(res)
		}
		if p.failed != "" && !errors.Is(err, context.Canceled) {
			return &fault.Error{Code: fault.ErrorCode(err), Message: p.failed, Err: err}
		}
		return err
	}
	if p.json {
		return nil
	}
	if res.Paused() {
		fmt.Fprintf(p.ios.Err, "\nturn %s waits for approval of:\n", res.TurnID)
		for _, c := range p.pending {
			fmt.Fprintf(p.ios.Err, "  %s  %s (%s)\n", textfmt.Visible(c.ID), textfmt.Visible(summaryOf(p.ctx, c, p.summaryEnv(res.WorkingState)).Title), textfmt.Visible(c.Name))
			if p.verbose {
				fmt.Fprintf(p.ios.Err, "      %s\n", textfmt.VisibleLines(fullArgs(c.Arguments)))
			}
		}
		fmt.Fprintf(p.ios.Err, "approve with: docent approve %s --all\n", res.TurnID)
	}
	if res.HistoryTurnID != "" {
		// The turn's changes so far, before and after its pauses.
		fmt.Fprintf(p.ios.Err, "undo with: docent undo --turn %s\n", res.HistoryTurnID)
	}
	if notes := footnotes(res); len(notes) > 0 {
		// Below the answer, as a page's footnotes are.
		fmt.Fprintf(p.ios.Out, "\n%s\n", strings.Join(notes, "\n"))
	}
	p.closing(res)
	return nil
}

// closing prints the line that ends a turn's output: its thread, rounds,
// tokens and time. A turn that never reached a thread prints none.
func (p *turnPrinter) closing(res agent.TurnResult) {
	id := cmp.Or(res.ThreadID, p.threadID)
	if id == "" {
		return
	}
	if p.ask {
		fmt.Fprintln(p.ios.Err, p.style.dim(askClosingLine(id)))
		return
	}
	title := ""
	if th, err := p.db.GetThread(p.ctx, p.docID, id); err == nil {
		title = th.Title
	}
	tokens := res.Usage.PromptTokens + res.Usage.CompletionTokens // the whole turn's, approvals included
	if tokens == 0 {
		tokens = p.tokens
	}
	took := time.Since(p.started) - p.waited
	fmt.Fprintln(p.ios.Err, p.style.dim(closingLine(id, title, p.rounds, tokens, took, res.Usage)))
}

// compactArgs renders a call's arguments on one line, shortened for people.
func compactArgs(raw json.RawMessage) string {
	s := strings.Join(strings.Fields(string(raw)), " ")
	if s == "" {
		s = "{}"
	}
	return textfmt.Shorten(s, 200)
}

// fullArgs renders a call's arguments as compact JSON, whole (--verbose).
func fullArgs(raw json.RawMessage) string {
	var b bytes.Buffer
	if err := json.Compact(&b, raw); err != nil || b.Len() == 0 {
		return strings.Join(strings.Fields(cmp.Or(string(raw), "{}")), " ")
	}
	return b.String()
}
