package agent

import (
	"context"
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/docent/docent/agent/provider"
	"github.com/docent/docent/storage"
)

// roundStream turns one round's deltas into events: thinking chunks, then
// thinking_done as soon as text starts (or the round ends), then text.
type roundStream struct {
	t        *turn
	round    int
	thinking strings.Builder
	done     bool // thinking_done was sent
	// streamText is false in text mode, where the visible text is known
	// only once the answer is parsed.
	streamText bool
	streamed   bool // something reached the client

	// start is when the model call began (zero for a scripted round),
	// first when its first delta came; thinkStart and thinkEnd bound its
	// thinking.
	start, first, thinkStart, thinkEnd time.Time
}

// roundFacts are how a round's model call went, stored with its assistant
// message (MessageData) so that a reopened thread shows them.
type roundFacts struct {
	speed      Speed
	thinkingMS int64
	// outputCut is set when the server cut the answer at its output limit.
	outputCut *OutputTruncation
}

func (s *roundStream) onDelta(d provider.Delta) error {
	if s.first.IsZero() && (d.Thinking != "" || d.Text != "") {
		s.first = time.Now()
	}
	if d.Thinking != "" && !s.done {
		if s.thinkStart.IsZero() {
			s.thinkStart = time.Now()
		}
		s.thinking.WriteString(d.Thinking)
		s.streamed = true
		return s.t.send(ThinkingChunk(s.round, d.Thinking))
	}
	if d.Text != "" && s.streamText {
		if err := s.endThinking(""); err != nil {
			return err
		}
		s.streamed = true
		return s.t.send(TextChunk(s.round, d.Text))
	}
	return nil
}

// endThinking sends thinking_done once, when there was thinking; full is
// the provider's complete thinking when it has one.
func (s *roundStream) endThinking(full string) error {
	if s.done || (s.thinking.Len() == 0 && full == "") {
		return nil
	}
	s.done = true
	s.thinkEnd = time.Now()
	if full == "" {
		full = s.thinking.String()
	}
	return s.t.send(ThinkingDone(s.round, full))
}

// finish ends the round's stream: thinking_done if owed, the text (in one
// chunk when it was not streamed), assistant_text_done and usage.
func (s *roundStream) finish(resp provider.Response) error {
	if err := s.endThinking(resp.Thinking); err != nil {
		return err
	}
	if !s.streamText && resp.Text != "" {
		if err := s.t.send(TextChunk(s.round, resp.Text)); err != nil {
			return err
		}
	}
	if err := s.t.send(TextDone(s.round, resp.Text)); err != nil {
		return err
	}
	s.t.Usage.PromptTokens += resp.Usage.PromptTokens
	s.t.Usage.CompletionTokens += resp.Usage.CompletionTokens
	sp := s.speed(resp.Usage, time.Now())
	s.t.lastRound = roundFacts{speed: sp, outputCut: outputTruncation(s.t.Model, resp)}
	if !s.thinkStart.IsZero() && !s.thinkEnd.IsZero() {
		s.t.lastRound.thinkingMS = max(s.thinkEnd.Sub(s.thinkStart).Milliseconds(), 1)
	}
	if tr := resp.PromptTruncated; tr != nil {
		// The usage event tells the user; this is for debugging.
		s.t.a.logger().Debug("the model server cut the prompt to fit the context window", "model", s.t.Model, "round", s.round,
			"kept_tokens", tr.Kept, "window_tokens", tr.Window, "dropped", tr.Dropped)
	}
	if cut := s.t.lastRound.outputCut; cut != nil {
		s.t.a.logger().Debug("the model server cut the answer at its output limit", "model", s.t.Model, "round", s.round, "reason", cut.Reason)
	}
	return s.t.send(NewEvent(UsagePayload{RoundIndex: s.round, Usage: resp.Usage, Speed: sp,
		PromptTruncated: resp.PromptTruncated, OutputTruncated: s.t.lastRound.outputCut}))
}

// speed is how fast the round's model call answered, once it is done; zero
// for a call that streamed nothing.
func (s *roundStream) speed(u provider.Usage, end time.Time) Speed {
	if s.start.IsZero() || s.first.IsZero() {
		return Speed{}
	}
	sp := Speed{FirstTokenMS: max(s.first.Sub(s.start).Milliseconds(), 1)}
	if d := end.Sub(s.first).Seconds(); d > 0 && u.CompletionTokens > 0 {
		sp.TokensPerSecond = math.Round(float64(u.CompletionTokens)/d*10) / 10
	}
	return sp
}

// modelRound makes the round's model call and streams it. A model found
// unable to take tools before anything streamed switches the turn to the
// text protocol for the rest of it.
func (t *turn) modelRound(ctx context.Context, tools []provider.Tool) (provider.Response, error) {
	if t.script != nil {
		if resp, ok := t.script(t.Round, t.WorkingState); ok {
			// A scripted round streams like a text-mode one: its text in one
			// chunk.
			s := &roundStream{t: t, round: t.Round}
			return resp, s.finish(resp)
		}
	}
	if !t.TextMode {
		s := &roundStream{t: t, round: t.Round, streamText: true, start: time.Now()}
		system := provider.Message{Role: storage.RoleSystem, Content: t.system(false)}
		msgs := append([]provider.Message{system}, modelHistory(system, tools, t.History, t.limits.ContextWindow)...)
		resp, err := t.prov.Chat(ctx, provider.Request{Model: t.name, Messages: msgs, Tools: tools}, s.onDelta)
		if err == nil {
			return resp, s.finish(resp)
		}
		if provider.ErrorKind(err) != provider.KindNoToolSupport || s.streamed {
			return resp, err
		}
		t.a.logger().InfoContext(ctx, "model takes no tools; using the text protocol", "model", t.Model)
		t.TextMode = true
	}
	return t.textRound(ctx)
}

// textRound is a round in the text protocol. An answer that follows neither
// TOOL_CALL nor FINAL is asked for again once; a second miss asks for a
// final answer, and whatever comes then ends the turn.
func (t *turn) textRound(ctx context.Context) (provider.Response, error) {
	s := &roundStream{t: t, round: t.Round, start: time.Now()}
	system := provider.Message{Role: storage.RoleSystem, Content: t.system(true)}
	msgs := append([]provider.Message{system}, textHistory(modelHistory(system, nil, t.History, t.limits.ContextWindow))...)
	var out provider.Response
	var thinking []string
	for attempt := 0; ; attempt++ {
		resp, err := t.prov.Chat(ctx, provider.Request{Model: t.name, Messages: msgs}, s.onDelta)
		if err != nil {
			return out, err
		}
		out.Usage.PromptTokens += resp.Usage.PromptTokens
		out.Usage.CompletionTokens += resp.Usage.CompletionTokens
		if resp.PromptTruncated != nil {
			out.PromptTruncated = resp.PromptTruncated
		}
		if resp.Thinking != "" {
			thinking = append(thinking, resp.Thinking)
		}
		// The answer that ends the round says whether it was cut.
		out.Truncated, out.DoneReason = resp.Truncated, resp.DoneReason
		reply, perr := parseTextReply(resp.Text)
		if perr == nil && attempt < 2 {
			out.Text, out.ToolCalls = reply.Text, reply.Calls
			t.finalCites = reply.Citations
			break
		}
		if attempt == 2 {
			// The forced answer: no more tools, whatever it says.
			out.Text = strings.TrimSpace(resp.Text)
			if perr == nil && reply.Text != "" {
				out.Text, t.finalCites = reply.Text, reply.Citations
			}
			break
		}
		follow := textForceFinal
		if attempt == 0 {
			follow = fmt.Sprintf(textRepromptFormat, perr)
		}
		t.a.logger().DebugContext(ctx, "text protocol answer unreadable", "model", t.Model, "attempt", attempt+1, "err", perr)
		msgs = append(msgs,
			provider.Message{Role: storage.RoleAssistant, Content: resp.Text},
			provider.Message{Role: storage.RoleUser, Content: follow})
	}
	out.Thinking = strings.Join(thinking, "\n\n")
	return out, s.finish(out)
}
