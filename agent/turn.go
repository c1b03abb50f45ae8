package agent

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/docent/docent/agent/provider"
	"github.com/docent/docent/agent/textfmt"
	"github.com/docent/docent/storage"
	"github.com/docent/docent/storage/fault"
)

// Defaults of an Agent's limits.
const (
	DefaultMaxToolRounds = 10
	DefaultTurnTTL       = storage.DefaultTurnTTL
)

// MaxRoundsText is the answer of a turn that reached the round cap.
const MaxRoundsText = "(Max tool rounds reached.)"

// RejectedText is the error a rejected call reports to the model.
const RejectedText = "User rejected this action."

// Agent runs the turns of document conversations (docs/protocol.md,
// "Turn").
type Agent struct {
	DB        *storage.DB
	Providers *provider.Registry
	Extractor *Extractor
	// Embedder embeds chunks and queries for search by meaning; nil, or
	// one without a model, leaves search by words alone.
	Embedder     *Embedder
	DefaultModel string
	// MaxToolRounds caps the rounds of a turn, approvals included (default 10).
	MaxToolRounds int
	// TurnTTL is how long a paused turn waits for approval (default 30m).
	TurnTTL time.Duration
	// Logger is where the agent logs; nil means slog.Default(). The
	// composition root sets the process's logger.
	Logger *slog.Logger
}

// ChatRequest starts a turn.
type ChatRequest struct {
	DocumentID string
	// ThreadID continues a thread; "" starts a new one.
	ThreadID string
	Message  string
	// Model is a provider-prefixed model id; "" uses the thread's model,
	// then the agent's default.
	Model string
	// AutoApprove runs every tool without asking.
	AutoApprove bool
	// AutoApprovedTools names read-write tools that run without asking.
	AutoApprovedTools []string
	// Mentions are artifacts the user @-mentioned; each is resolved and
	// shown in full in the system message. An unknown one is an
	// ErrInvalid error before any model call.
	Mentions []Mention
	// Messages, when not nil and ThreadID is "", is the history the client
	// carries (stateless use): nothing is stored in a thread.
	Messages []Message
	// TruncateThreadToMessageCount, with ThreadID, first cuts the thread
	// to that many messages: resubmitting from an earlier question.
	TruncateThreadToMessageCount *int
	// CallLimits caps how many times a tool may run in this turn; a call
	// over its limit is not run and reports an error to the model. The
	// headless auto-create run uses it to bound refinements.
	CallLimits map[string]int
	// Scope, when set, makes the turn unattended: every call runs without
	// asking, but only within the scope (NewScope); calls outside it are
	// refused and noted there.
	Scope *Scope
	// Script, when set, stands in for the model in the turn's rounds: for
	// each round it returns the model's part, or false to ask the model.
	// It sees the working state as the round starts. Auto-create's
	// extract-only run is a turn whose rounds are scripted.
	Script func(round int, ws WorkingState) (provider.Response, bool)
}

// Mention is one @-mentioned artifact.
type Mention struct {
	// Type is "schema", "prompt", "tag" or "document".
	Type string `json:"type" ts:"'schema' | 'prompt' | 'tag' | 'document'"`
	ID   string `json:"id"`
}

// Message is one message of a history the client carries (stateless
// chat): what a previous turn's thread would hold.
type Message struct {
	// Role is "user", "assistant" or "tool".
	Role    string `json:"role"`
	Content string `json:"content"`
	// ToolCalls are an assistant message's calls.
	ToolCalls []ToolCall `json:"tool_calls,omitempty"`
	// ToolCallID and Name are a tool message's call id and tool name.
	ToolCallID string `json:"tool_call_id,omitempty"`
	Name       string `json:"name,omitempty"`
}

// Approval is the user's decision on one pending call.
type Approval struct {
	CallID   string `json:"call_id"`
	Approved bool   `json:"approved"`
	// Arguments, when set, replace the proposed arguments.
	Arguments json.RawMessage `json:"arguments,omitempty"`
}

// ApproveRequest continues a paused turn.
type ApproveRequest struct {
	DocumentID string
	TurnID     string
	Approvals  []Approval
	// AutoApprovedTools adds tools the user chose to always approve for the
	// rest of the turn (the "always approve this tool" answer).
	AutoApprovedTools []string
}

// turnState is what a turn carries across a pause. The turn owns it:
// pausing saves it as it is (JSON, in the store), approving loads it into
// a new turn whole; nothing is copied out and back in field by field.
type turnState struct {
	ThreadID string `json:"thread_id"`
	// HistoryTurn is the turn's id in the journal: its changes are
	// recorded with it, across pauses (TurnResult.HistoryTurnID).
	HistoryTurn string `json:"history_turn,omitempty"`
	// Changed is set once a read-write call of the turn succeeded.
	Changed bool `json:"changed,omitempty"`
	// Model is the provider-prefixed model id.
	Model string `json:"model"`
	// Round is the current round, counted across the whole turn.
	Round        int          `json:"round_index"`
	WorkingState WorkingState `json:"working_state"`
	// AutoApprove and AutoApprovedTools say which read-write calls run
	// without asking.
	AutoApprove       bool            `json:"auto_approve"`
	AutoApprovedTools []string        `json:"auto_approved_tools,omitempty"`
	ExecutedRounds    []ExecutedRound `json:"executed_rounds,omitempty"`
	Usage             TurnUsage       `json:"usage"`
	// SearchCalls counts search_docs and open_citation calls (the tools
	// see it through ToolEnv.SearchCalls).
	SearchCalls int `json:"search_calls,omitempty"`
	// CallIDs are the call ids used in this turn, kept unique.
	CallIDs callIDSet `json:"call_ids,omitempty"`
	// Mentions is the turn's resolved @-mentions, kept so the continuation
	// sends the same system message.
	Mentions string `json:"mentions,omitempty"`
	// TextMode is set when the model takes tools through the text protocol.
	TextMode bool `json:"text_mode,omitempty"`
	// CallLimits and CallCounts are ChatRequest.CallLimits and how much of
	// them is used.
	CallLimits map[string]int `json:"call_limits,omitempty"`
	CallCounts map[string]int `json:"call_counts,omitempty"`
	// History is what the model is sent after the system message. Only a
	// stateless turn saves it; a thread's lives in the thread.
	History []provider.Message `json:"history,omitempty"`

	// Set when the turn pauses. Pending is the assistant message whose
	// Calls wait; NeedsApproval names those that need a decision.
	Pending       storage.ThreadMessage `json:"pending"`
	Calls         []ToolCall            `json:"tool_calls"`
	NeedsApproval []string              `json:"needs_approval"`
	// MessageCount is the thread's length once the pending assistant
	// message is stored; a thread that has moved on since cannot continue.
	MessageCount int `json:"message_count,omitempty"`
}

// callIDSet is a set of call ids, a sorted JSON array on the wire.
type callIDSet map[string]bool

func (s callIDSet) MarshalJSON() ([]byte, error) {
	ids := slices.Sorted(maps.Keys(s))
	if ids == nil {
		ids = []string{}
	}
	return json.Marshal(ids)
}

func (s *callIDSet) UnmarshalJSON(b []byte) error {
	var ids []string
	if err := json.Unmarshal(b, &ids); err != nil {
		return err
	}
	*s = callIDSet{}
	for _, id := range ids {
		(*s)[id] = true
	}
	return nil
}

// turn is one running turn: its state, and what it works with.
type turn struct {
	turnState

	a          *Agent
	sink       Sink
	doc        storage.Document
	prov       provider.Provider
	name       string // model name without prefix
	stateless  bool   // the client carries the history; nothing is stored
	docContext string
	env        *ToolEnv
	limits     provider.Limits
	script     func(round int, ws WorkingState) (provider.Response, bool)
	lastRound  roundFacts // how the latest model call went
	// tools are the names of the tools the turn offers; nil for all of
	// them. A library turn (Ask) offers the read-only ones of askTools.
	tools []string
	// cites numbers the thread's citations; nil for a stateless turn.
	cites *citeBook
	// finalCites are the numbers a text-protocol FINAL listed.
	finalCites []int
	// spent is what the turn's model calls cost, the meter adding to it
	// through the context (metered); settleCost copies it into Usage.
	spent *spendTally
}

// metered returns ctx with the turn's spending tally, begun from what the
// turn spent before a pause.
func (t *turn) metered(ctx context.Context) context.Context {
	if t.spent == nil {
		t.spent = newSpendTally(t.Usage)
	}
	return withSpendTally(ctx, t.spent)
}

// settleCost copies what the turn's calls cost so far into Usage, for its
// result and its saved state.
func (t *turn) settleCost() {
	if t.spent != nil {
		t.Usage.CostUSD, t.Usage.UnpricedCalls = t.spent.totals()
	}
}

// library reports whether the turn is about the whole library (Ask),
// not one document.
func (t *turn) library() bool { return t.doc.ID == "" }

// system is the round's system message.
func (t *turn) system(textMode bool) string {
	if t.library() {
		return librarySystemMessage(textMode)
	}
	return systemMessage(t.docContext, t.Mentions, t.env.State, textMode)
}

// providerTools are the tools the turn offers, as the provider's
// definitions.
func (t *turn) providerTools() []provider.Tool {
	all := ProviderTools()
	if t.tools == nil {
		return all
	}
	return slices.DeleteFunc(all, func(pt provider.Tool) bool { return !slices.Contains(t.tools, pt.Name) })
}

// continueThread takes up a thread's stored messages: they are the
// turn's history, and its citable results are numbered after theirs.
func (t *turn) continueThread(stored []storage.ThreadMessage) {
	t.History = historyOf(stored)
	t.cites = newCiteBook(stored)
	t.env.cites = t.cites
}

// assistantData is the metadata of a round's assistant message.
func (t *turn) assistantData(round int, u provider.Usage) MessageData {
	return MessageData{RoundIndex: new(round), Usage: new(u), Model: t.Model,
		ThinkingMS: t.lastRound.thinkingMS, Speed: t.lastRound.speed, OutputTruncated: t.lastRound.outputCut}
}

func (a *Agent) maxRounds() int {
	if a.MaxToolRounds > 0 {
		return a.MaxToolRounds
	}
	return DefaultMaxToolRounds
}

func (a *Agent) turnTTL() time.Duration {
	if a.TurnTTL > 0 {
		return a.TurnTTL
	}
	return DefaultTurnTTL
}

// Chat runs a turn: the user's message, then model rounds and tool calls
// until the model answers, a call needs approval, or the round cap. Errors
// before the turn starts (an unknown document or thread, an empty message,
// no model) are returned without events; after turn_started every failure
// is an error event as well as the returned error.
func (a *Agent) Chat(ctx context.Context, req ChatRequest, sink Sink) (TurnResult, error) {
	msg, err := checkMessage(req.Message, "message", "mention it")
	if err != nil {
		return TurnResult{}, err
	}
	doc, err := a.DB.GetDocument(ctx, req.DocumentID)
	if err != nil {
		return TurnResult{}, err
	}
	if req.TruncateThreadToMessageCount != nil && req.ThreadID == "" {
		return TurnResult{}, fault.Errorf(fault.Invalid, "truncate_thread_to_message_count needs a thread_id")
	}
	mentions, err := resolveMentions(ctx, a.DB, req.Mentions)
	if err != nil {
		return TurnResult{}, err
	}
	var th storage.Thread
	if req.ThreadID != "" {
		if th, err = a.DB.GetThread(ctx, doc.ID, req.ThreadID); err != nil {
			return TurnResult{}, err
		}
	}
	model := cmp.Or(strings.TrimSpace(req.Model), th.Model, a.DefaultModel)
	t, err := a.newTurn(ctx, doc, model, sink)
	if err != nil {
		return TurnResult{}, err
	}
	t.Mentions = mentions
	if err := t.fitsWindow(msg); err != nil {
		return TurnResult{}, err
	}
	t.AutoApprove, t.AutoApprovedTools = req.AutoApprove || req.Scope != nil, slices.Clone(req.AutoApprovedTools)
	t.env.Scope = req.Scope
	t.script = req.Script
	t.CallLimits = req.CallLimits
	t.stateless = req.ThreadID == "" && req.Messages != nil
	switch {
	case t.stateless:
		t.History = historyOfClient(req.Messages)
	default:
		if th.ID == "" {
			if th, err = a.DB.CreateThread(ctx, doc.ID, threadTitle(msg), model); err != nil {
				return TurnResult{}, err
			}
		}
		release, err := a.holdThread(ctx, th.ID)
		if err != nil {
			return TurnResult{}, err
		}
		defer release()
		if n := req.TruncateThreadToMessageCount; n != nil {
			if err := a.DB.TruncateThread(ctx, doc.ID, th.ID, *n); err != nil {
				return TurnResult{}, err
			}
		}
		t.ThreadID = th.ID
		if len(th.WorkingState) > 0 {
			if err := json.Unmarshal(th.WorkingState, t.env.State); err != nil {
				return TurnResult{}, fmt.Errorf("thread %s: working state: %w", th.ID, err)
			}
		}
		stored, err := a.DB.ThreadMessages(ctx, th.ID)
		if err != nil {
			return TurnResult{}, err
		}
		t.continueThread(stored)
	}
	if err := t.emit(TurnStarted(t.ThreadID, t.Model)); err != nil {
		return TurnResult{}, err
	}
	user := storage.ThreadMessage{Role: storage.RoleUser, Content: req.Message}
	if len(req.Mentions) > 0 {
		user.Data = mustJSON(MessageData{Mentions: req.Mentions})
	}
	if err := t.persist(ctx, user); err != nil {
		return t.fail(ctx, err)
	}
	t.History = append(t.History, provider.Message{Role: storage.RoleUser, Content: req.Message})
	return t.loop(ctx)
}

// MaxMessageChars caps a user's message: longer text belongs in a
// document, where it is paged and searchable.
const MaxMessageChars = 100_000

// checkMessage trims a user's message (what it is called: "message",
// "question") and refuses it empty or over MaxMessageChars, saying what
// to do with long text instead ("mention it").
func checkMessage(text, what, instead string) (string, error) {
	msg := strings.TrimSpace(text)
	if msg == "" {
		return "", fault.Errorf(fault.Invalid, "the %s is empty", what)
	}
	if n := utf8.RuneCountInString(msg); n > MaxMessageChars {
		return "", fault.Errorf(fault.Invalid, "the %s is %s characters; the limit is %s: import long text as a document and %s instead",
			what, textfmt.Thousands(n), textfmt.Thousands(MaxMessageChars), instead)
	}
	return msg, nil
}

// fitsWindow refuses, before a thread is made or anything is stored, a
// message that cannot fit the model's window beside the instructions and
// the document excerpt: the model would refuse it anyway.
func (t *turn) fitsWindow(msg string) error {
	window := t.limits.ContextWindow
	if window <= 0 {
		return nil
	}
	system := t.system(t.TextMode)
	req := provider.Request{Messages: []provider.Message{
		{Role: storage.RoleSystem, Content: system}, {Role: storage.RoleUser, Content: msg},
	}}
	if !t.TextMode {
		req.Tools = t.providerTools()
	}
	if est := provider.EstimateTokens(req); est > window {
		return &provider.Error{Kind: provider.KindContextOverflow, Message: fmt.Sprintf(
			"the message does not fit %s's context window: about %s tokens with the instructions and the document excerpt, the window is %s; shorten it",
			t.Model, textfmt.Thousands(est), textfmt.Thousands(window))}
	}
	return nil
}

// Approve continues a paused turn: it claims the turn (once), runs the
// approved calls (with edited arguments where given), reports the others
// as rejected, and goes on as Chat does.
func (a *Agent) Approve(ctx context.Context, req ApproveRequest, sink Sink) (TurnResult, error) {
	if strings.TrimSpace(req.TurnID) == "" {
		return TurnResult{}, fault.Errorf(fault.Invalid, "no turn_id given")
	}
	seen := map[string]bool{}
	for _, ap := range req.Approvals {
		if seen[ap.CallID] {
			return TurnResult{}, fault.Errorf(fault.Invalid, "call %s is approved or rejected twice", ap.CallID)
		}
		seen[ap.CallID] = true
		if len(ap.Arguments) > 0 && !json.Valid(ap.Arguments) {
			return TurnResult{}, fault.Errorf(fault.Invalid, "the edited arguments of call %s are not valid JSON", ap.CallID)
		}
	}
	doc, err := a.DB.GetDocument(ctx, req.DocumentID)
	if err != nil {
		return TurnResult{}, err
	}
	// Check the decisions against the paused calls before the turn is
	// claimed: a mistaken approval must not spend it.
	if peek, err := a.DB.PeekTurnState(ctx, req.TurnID); err == nil && peek.DocumentID == doc.ID {
		var p turnState
		if err := json.Unmarshal(peek.State, &p); err != nil {
			return TurnResult{}, fmt.Errorf("turn %s: state: %w", peek.ID, err)
		}
		for _, ap := range req.Approvals {
			if !slices.Contains(p.NeedsApproval, ap.CallID) {
				return TurnResult{}, fault.Errorf(fault.Invalid, "call %q does not wait for approval in turn %s; the calls that do: %s",
					ap.CallID, req.TurnID, strings.Join(p.NeedsApproval, ", "))
			}
		}
		if p.ThreadID != "" {
			release, err := a.holdThread(ctx, p.ThreadID)
			if err != nil {
				return TurnResult{}, err
			}
			defer release()
		}
	}
	ts, err := a.DB.ClaimDocumentTurnState(ctx, doc.ID, req.TurnID)
	if err != nil {
		return TurnResult{}, err
	}
	var saved turnState
	if err := json.Unmarshal(ts.State, &saved); err != nil {
		return TurnResult{}, fmt.Errorf("turn %s: state: %w", ts.ID, err)
	}
	t, err := a.newTurn(ctx, doc, saved.Model, sink)
	if err != nil {
		return TurnResult{}, err
	}
	fresh := t.turnState
	t.turnState = saved
	t.stateless = saved.ThreadID == ""
	// What the server says now about tools wins over what it said then.
	t.TextMode = saved.TextMode || fresh.TextMode
	t.AutoApprovedTools = append(t.AutoApprovedTools, req.AutoApprovedTools...)
	if t.CallIDs == nil {
		t.CallIDs = fresh.CallIDs
	}
	if t.CallCounts == nil {
		t.CallCounts = fresh.CallCounts
	}
	if t.HistoryTurn == "" { // paused by a Docent without the journal
		t.HistoryTurn = fresh.HistoryTurn
	}
	if !t.stateless {
		stored, err := a.DB.ThreadMessages(ctx, saved.ThreadID)
		if err != nil {
			return TurnResult{}, err
		}
		if len(stored) != saved.MessageCount {
			return TurnResult{}, fault.Errorf(fault.Conflict, "turn %s cannot continue: its thread has changed since it paused; ask again", req.TurnID)
		}
		t.continueThread(stored)
	}
	if err := t.emit(TurnStarted(t.ThreadID, t.Model)); err != nil {
		return TurnResult{}, err
	}
	approvals := map[string]Approval{}
	for _, ap := range req.Approvals {
		approvals[ap.CallID] = ap
	}
	pending, calls, needs := t.Pending, t.Calls, t.NeedsApproval
	t.Pending, t.Calls, t.NeedsApproval, t.MessageCount = storage.ThreadMessage{}, nil, nil, 0
	decide := func(c ToolCall) (json.RawMessage, bool) {
		if !slices.Contains(needs, c.ID) {
			return c.Arguments, true
		}
		ap, ok := approvals[c.ID]
		if !ok || !ap.Approved {
			return nil, false
		}
		if len(ap.Arguments) > 0 {
			return ap.Arguments, true
		}
		return c.Arguments, true
	}
	// The approved calls' own model calls (run_extraction) are the
	// turn's: in its cost, and in the ledger with its thread.
	ctx = t.metered(storage.WithUsageScope(ctx, t.usageScope(ctx)))
	if err := t.execute(ctx, pending, calls, decide, true); err != nil {
		return t.fail(ctx, err)
	}
	t.Round++
	return t.loop(ctx)
}

// threadLease is how long a turn holds its thread between renewals; a
// process killed mid-turn frees the thread after it.
const threadLease = 2 * time.Minute

// holdThread holds a thread for a turn, so that no other turn interleaves
// its messages, renewing the hold in the background until release is
// called. A thread held by another turn is a conflict.
func (a *Agent) holdThread(ctx context.Context, threadID string) (release func(), err error) {
	h, err := a.DB.HoldThread(ctx, threadID, threadLease)
	if err != nil {
		return nil, err
	}
	stop := make(chan struct{})
	done := make(chan struct{})
	keep := context.WithoutCancel(ctx)
	go func() {
		defer close(done)
		tick := time.NewTicker(threadLease / 4)
		defer tick.Stop()
		for {
			select {
			case <-stop:
				return
			case <-tick.C:
				if err := a.DB.RenewThreadHold(keep, h, threadLease); err != nil {
					a.logger().WarnContext(keep, "turn: renew the thread's hold", "thread", threadID, "err", err)
				}
			}
		}
	}()
	return func() {
		close(stop)
		<-done
		if err := a.DB.ReleaseThread(keep, h); err != nil {
			a.logger().WarnContext(keep, "turn: release the thread", "thread", threadID, "err", err)
		}
	}, nil
}

func (a *Agent) newTurn(ctx context.Context, doc storage.Document, model string, sink Sink) (*turn, error) {
	if model == "" {
		return nil, fault.Errorf(fault.Invalid, "no model given and no default model is set; choose one, e.g. ollama/qwen3:8b")
	}
	prov, name, err := a.Providers.For(model)
	if err != nil {
		return nil, fault.Errorf(fault.Invalid, "%v", err) // ParseModelID's error quotes the model
	}
	var dc string
	if doc.ID != "" { // a library turn has no document
		if dc, err = documentContext(ctx, a.DB, doc, ExcerptCap); err != nil {
			return nil, err
		}
	}
	limits := a.Providers.Limits(ctx, model)
	t := &turn{
		turnState: turnState{Model: model, TextMode: !limits.Tools, CallIDs: callIDSet{}, CallCounts: map[string]int{},
			HistoryTurn: storage.NewHistoryTurnID()},
		a: a, sink: sink, doc: doc, prov: prov, name: name, docContext: dc, limits: limits,
	}
	// The tools see the turn's own working state and search count.
	t.env = &ToolEnv{DB: a.DB, Extractor: a.Extractor, Providers: a.Providers, Embedder: a.Embedder, DocumentID: doc.ID, State: &t.WorkingState, SearchCalls: &t.SearchCalls, Logger: a.logger()}
	return t, nil
}

func (t *turn) emit(e Event) error {
	if t.sink == nil {
		return nil
	}
	return t.sink.Emit(e)
}

// clientGone marks an error from the sink: the client left, no event is
// owed to it.
type clientGone struct{ err error }

func (c clientGone) Error() string { return "client gone: " + c.err.Error() }
func (c clientGone) Unwrap() error { return c.err }

// fail ends the turn with an error event (unless the client is gone). The
// turn's ctx goes to the log with the error, for a handler that reads its
// values; a ctx past its deadline still logs (logging does not depend on
// cancellation), so it needs no context.WithoutCancel.
func (t *turn) fail(ctx context.Context, err error) (TurnResult, error) {
	var gone clientGone
	if errors.As(err, &gone) || errors.Is(err, context.Canceled) {
		return TurnResult{}, err
	}
	err = fault.Report(ctx, t.a.logger(), "chat turn in thread "+t.ThreadID, err)
	code, msg, _ := fault.Describe(err)
	_ = t.emit(ErrorEvent(msg, string(code)))
	return TurnResult{}, err
}

// send emits e, turning a sink failure into clientGone.
func (t *turn) send(e Event) error {
	if err := t.emit(e); err != nil {
		return clientGone{err}
	}
	return nil
}

// persist appends messages to the thread with the current working state.
func (t *turn) persist(ctx context.Context, msgs ...storage.ThreadMessage) error {
	if t.stateless {
		return nil
	}
	ws, err := json.Marshal(t.env.State)
	if err != nil {
		return err
	}
	_, err = t.a.DB.AppendMessages(ctx, t.ThreadID, msgs, ws)
	return err
}

func (t *turn) result(text, thinking string) TurnResult {
	t.settleCost()
	r := TurnResult{
		Text: text, Thinking: thinking, ThreadID: t.ThreadID, WorkingState: *t.env.State,
		ExecutedRounds: t.ExecutedRounds, Usage: t.Usage,
	}
	if t.Changed {
		r.HistoryTurnID = t.HistoryTurn
	}
	return r
}

// loop runs rounds from t.Round until the model answers, the turn pauses,
// or the cap.
func (t *turn) loop(ctx context.Context) (TurnResult, error) {
	ctx = t.metered(storage.WithUsageScope(ctx, t.usageScope(ctx)))
	tools := t.providerTools()
	for ; t.Round < t.a.maxRounds(); t.Round++ {
		round := t.Round
		resp, err := t.modelRound(ctx, tools)
		if err != nil {
			return t.fail(ctx, err)
		}

		if len(resp.ToolCalls) == 0 {
			res := t.result(resp.Text, resp.Thinking)
			data := t.assistantData(round, resp.Usage)
			data.TurnUsage = &res.Usage
			if t.cites != nil {
				res.Citations, res.UnknownCitations = t.cites.resolve(citedNumbers(resp.Text, t.finalCites))
				data.Citations, data.UnknownCitations = res.Citations, res.UnknownCitations
			}
			if err := t.persist(ctx, storage.ThreadMessage{
				Role: storage.RoleAssistant, Content: resp.Text, Thinking: resp.Thinking,
				Data: mustJSON(data),
			}); err != nil {
				return t.fail(ctx, err)
			}
			if err := t.send(Done(res)); err != nil {
				return t.fail(ctx, err)
			}
			return res, nil
		}

		calls := t.callsOf(round, resp.ToolCalls)
		t.summarize(ctx, calls)
		var needs []string
		for _, c := range calls {
			if t.needsApproval(ctx, c) {
				needs = append(needs, c.ID)
			}
		}
		if err := t.send(ToolCalls(round, calls, needs)); err != nil {
			return t.fail(ctx, err)
		}
		assistant := storage.ThreadMessage{
			Role: storage.RoleAssistant, Content: resp.Text, Thinking: resp.Thinking,
			ToolCalls: mustJSON(calls),
			Data:      mustJSON(t.assistantData(round, resp.Usage)),
		}
		if len(needs) > 0 {
			return t.pause(ctx, assistant, calls, needs, resp)
		}
		if err := t.execute(ctx, assistant, calls, nil, false); err != nil {
			return t.fail(ctx, err)
		}
	}
	res := t.result(MaxRoundsText, "")
	if err := t.persist(ctx, storage.ThreadMessage{Role: storage.RoleAssistant, Content: MaxRoundsText}); err != nil {
		return t.fail(ctx, err)
	}
	if err := t.send(Done(res)); err != nil {
		return t.fail(ctx, err)
	}
	return res, nil
}

// callsOf gives the model's calls ids that are unique within the turn.
func (t *turn) callsOf(round int, in []provider.ToolCall) []ToolCall {
	out := make([]ToolCall, len(in))
	for i, c := range in {
		id := c.ID
		if id == "" || t.CallIDs[id] {
			id = fmt.Sprintf("call_r%d_%d", round, i)
			for n := 2; t.CallIDs[id]; n++ {
				id = fmt.Sprintf("call_r%d_%d_%d", round, i, n)
			}
		}
		t.CallIDs[id] = true
		out[i] = ToolCall{ID: id, Name: c.Name, Arguments: c.Arguments}
	}
	return out
}

// summarize gives each call its summary: what it will do, as things are
// before the batch runs.
func (t *turn) summarize(ctx context.Context, calls []ToolCall) {
	for i, c := range calls {
		calls[i].Summary = new(Summarize(ctx, t.env, c.Name, c.Arguments))
	}
}

// needsApproval reports whether a call needs the user's approval. Unknown
// tools run (and fail) without it. A tool the user approves always (or
// every tool, with auto-approve) still asks when the call changes another
// document than the turn's: that approval was given for this document. An
// unattended turn never asks: its scope decides instead.
func (t *turn) needsApproval(ctx context.Context, c ToolCall) bool {
	tool, ok := ToolByName(c.Name)
	if !ok || tool.Access != ReadWrite || !t.offers(c.Name) {
		return false // a tool the turn does not offer fails when called
	}
	if !t.AutoApprove && !slices.Contains(t.AutoApprovedTools, c.Name) {
		return true
	}
	if t.env.Scope != nil {
		return false
	}
	changes, err := tool.Changes(ctx, t.env, c.Arguments)
	// Arguments that do not resolve fail when the call runs; they change
	// nothing, so they need no approval.
	return err == nil && touchesOtherDocument(changes, t.doc.ID)
}

// pause saves the turn state and ends the turn with done carrying turn_id.
// The proposed calls go into the thread at once, as the user saw them; the
// approve appends their results. A thread left paused still reads as a
// valid history (pairToolResults).
func (t *turn) pause(ctx context.Context, assistant storage.ThreadMessage, calls []ToolCall, needs []string, resp provider.Response) (TurnResult, error) {
	t.History = append(t.History, assistantMessage(assistant))
	t.Pending, t.Calls, t.NeedsApproval = assistant, calls, needs
	t.settleCost()
	saved := t.turnState
	if !t.stateless {
		th, err := t.a.DB.GetThread(ctx, t.doc.ID, t.ThreadID)
		if err != nil {
			return t.fail(ctx, err)
		}
		saved.MessageCount = th.MessageCount + 1
		saved.History = nil // the thread holds it
	}
	raw, err := json.Marshal(saved)
	if err != nil {
		return t.fail(ctx, err)
	}
	// Saved as the turn's actor, so that the pause's id names the turn's
	// changes in the history too (undo --turn takes either id).
	ts, err := t.a.DB.SaveTurnState(storage.WithActor(ctx, t.actor()), t.ThreadID, t.doc.ID, raw, t.a.turnTTL())
	if err != nil {
		return t.fail(ctx, err)
	}
	data := t.assistantData(t.Round, resp.Usage)
	data.TurnID, data.NeedsApproval = ts.ID, needs
	assistant.Data = mustJSON(data)
	if err := t.persist(ctx, assistant); err != nil {
		return t.fail(ctx, err)
	}
	res := t.result(resp.Text, resp.Thinking)
	res.TurnID, res.ToolCalls = ts.ID, calls
	if err := t.send(Done(res)); err != nil {
		return t.fail(ctx, err)
	}
	return res, nil
}

// execute runs a round's calls in order. decide, when not nil, says for
// each call whether it runs and with which arguments; nil runs them all as
// proposed. It emits tool_result per call and round_executed, and appends
// the tool messages (and the assistant message, unless a pause stored it
// already) to history and thread.
func (t *turn) execute(ctx context.Context, assistant storage.ThreadMessage, calls []ToolCall, decide func(ToolCall) (json.RawMessage, bool), assistantStored bool) error {
	round := ExecutedRound{RoundIndex: t.Round, Thinking: assistant.Thinking, ToolCalls: []ExecutedCall{}}
	var msgs []storage.ThreadMessage
	if !assistantStored {
		msgs = append(msgs, assistant)
		t.History = append(t.History, assistantMessage(assistant))
	}
	for _, c := range calls {
		args, run := c.Arguments, true
		if decide != nil {
			args, run = decide(c)
		}
		var r ToolResult
		data := MessageData{RoundIndex: new(t.Round), ProposedArguments: wireArguments(c.Arguments), Summary: c.Summary}
		if run {
			if err := ctx.Err(); err != nil {
				return err
			}
			r = t.callTool(ctx, c.ID, c.Name, args)
			if t.cites != nil {
				data.Citations = t.cites.take()
			}
			data.Arguments = wireArguments(args)
			if decide != nil && !slices.Equal(args, c.Arguments) {
				data.Edited = true
			}
		} else {
			r = ToolResult{Error: RejectedText}
			data.Rejected = true
			args = c.Arguments
		}
		data.Success = new(r.Success)
		if err := t.send(ToolResultEvent(t.Round, c.ID, c.Name, r)); err != nil {
			return err
		}
		round.ToolCalls = append(round.ToolCalls, ExecutedCall{
			ID: c.ID, Name: c.Name, Arguments: args, Success: r.Success, Preview: r.Preview, Error: r.Error,
		})
		content := r.Content()
		msgs = append(msgs, storage.ThreadMessage{
			Role: storage.RoleTool, Content: content, ToolCallID: c.ID, ToolName: c.Name, Data: mustJSON(data),
		})
		t.History = append(t.History, provider.Message{Role: storage.RoleTool, Content: content, ToolCallID: c.ID, ToolName: c.Name})
	}
	t.ExecutedRounds = append(t.ExecutedRounds, round)
	if err := t.send(RoundExecuted(round)); err != nil {
		return err
	}
	return t.persist(ctx, msgs...)
}

// offers reports whether the turn offers the tool.
func (t *turn) offers(name string) bool { return t.tools == nil || slices.Contains(t.tools, name) }

// callTool runs one call, unless the tool has used up its CallLimits.
func (t *turn) callTool(ctx context.Context, callID, name string, args json.RawMessage) ToolResult {
	if !t.offers(name) {
		return ToolResult{Error: fmt.Sprintf("%s is not available here; the tools of this conversation are: %s", name, strings.Join(t.tools, ", "))}
	}
	if limit, ok := t.CallLimits[name]; ok {
		if t.CallCounts[name] >= limit {
			return ToolResult{Error: fmt.Sprintf("%s may run at most %d times in this turn; finish with what you have", name, limit)}
		}
		t.CallCounts[name]++
	}
	a := t.actor()
	a.CallID = callID
	res := CallTool(storage.WithActor(ctx, a), t.env, name, args)
	if tool, ok := ToolByName(name); ok && tool.Access == ReadWrite && res.Success {
		t.Changed = true
	}
	return res
}

// actor is who the turn's changes are journaled as: the agent in its
// thread and turn, or an auto-create run (a turn with a Scope is one),
// known by its thread.
func (t *turn) actor() storage.Actor {
	if t.env.Scope != nil {
		return storage.Actor{Edge: storage.EdgeAutoCreate, Name: "auto-create", RunID: t.ThreadID, TurnID: t.HistoryTurn}
	}
	return storage.Actor{Edge: storage.EdgeAgent, Name: cmp.Or(t.ThreadID, "stateless chat"), TurnID: t.HistoryTurn}
}

// usageScope is what the turn's model calls serve: its thread and
// document, and an auto-create run's edge and run; a chat turn keeps the
// edge it came through (ui, cli, mcp), else is the agent's.
func (t *turn) usageScope(ctx context.Context) storage.UsageScope {
	s := storage.UsageScope{ThreadID: t.ThreadID, DocumentID: t.doc.ID}
	switch {
	case t.env.Scope != nil:
		s.Edge, s.RunID = storage.EdgeAutoCreate, t.ThreadID
	case storage.UsageScopeFrom(ctx).Edge == storage.EdgeSystem:
		s.Edge = storage.EdgeAgent
	}
	return s
}

// threadTitle is a new thread's title: the first message on one line, cut
// to about 60 characters.
func threadTitle(msg string) string {
	s := strings.Join(strings.Fields(msg), " ")
	cut, long := textfmt.Cut(s, 60)
	if !long {
		return s
	}
	if i := strings.LastIndexByte(cut, ' '); i > 40 {
		cut = cut[:i]
	}
	return strings.TrimSpace(cut) + "…"
}

// PendingTurn is what a paused turn waits for.
type PendingTurn struct {
	DocumentID string
	// ToolCalls is the paused batch; NeedsApproval the ids among them that
	// wait for the user's decision.
	ToolCalls     []ToolCall
	NeedsApproval []string
}

// Pending reads a paused turn without claiming it, so that a client holding
// only its id (`docent approve TURN_ID --all`) can name its document and
// calls before approving.
func (a *Agent) Pending(ctx context.Context, turnID string) (PendingTurn, error) {
	ts, err := a.DB.PeekTurnState(ctx, turnID)
	if err != nil {
		return PendingTurn{}, err
	}
	var st turnState
	if err := json.Unmarshal(ts.State, &st); err != nil {
		return PendingTurn{}, fmt.Errorf("turn %s: read its saved state: %w", turnID, err)
	}
	return PendingTurn{DocumentID: ts.DocumentID, ToolCalls: st.Calls, NeedsApproval: st.NeedsApproval}, nil
}
