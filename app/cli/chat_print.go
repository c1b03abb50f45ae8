package cli

import (
	"cmp"
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/docent/docent/agent"
	"github.com/docent/docent/agent/textfmt"
	"github.com/docent/docent/storage/envvar"
)

// What `docent chat` prints for people: each tool call and each result as
// one readable line, and a closing line per turn. The approval questions
// (approve_prompt.go) show a call's summary. The words are the agent's
// (agent.Summarize, agent.ResultWords): every edge shows the same.

// styler colours text on a terminal; off, it leaves the text alone.
type styler struct{ on bool }

// newStyler colours when the stream is a terminal, NO_COLOR is not set
// (no-color.org) and the terminal is not dumb.
func newStyler(tty bool) styler {
	return styler{on: tty && envvar.Get(envvar.NoColor) == "" && envvar.Get(envvar.Term) != "dumb"}
}

func (s styler) wrap(code, text string) string {
	if !s.on || text == "" {
		return text
	}
	return "\033[" + code + "m" + text + "\033[0m"
}

func (s styler) bold(t string) string    { return s.wrap("1", t) }
func (s styler) dim(t string) string     { return s.wrap("2", t) }
func (s styler) red(t string) string     { return s.wrap("31", t) }
func (s styler) green(t string) string   { return s.wrap("32", t) }
func (s styler) yellow(t string) string  { return s.wrap("33", t) }
func (s styler) boldRed(t string) string { return s.wrap("1;31", t) }
func (s styler) key(t string) string     { return s.wrap("1;36", t) }

// qname quotes a name for a closing line: "Invoice".
func qname(s string) string { return textfmt.Visible(strconv.Quote(textfmt.Shorten(s, 60))) }

// callLine is a tool call on one line for people, without the arrow:
// `create_schema "Invoice" (7 fields)`, `get_ocr_text page 2`: the tool's
// name and the words of its summary s. Names the model gave are in it, so
// it goes through textfmt.Visible, as resultLine's and every line of
// names does.
func callLine(c agent.ToolCall, s agent.Summary) string {
	if s.Call != "" {
		return textfmt.Visible(c.Name + " " + s.Call)
	}
	return textfmt.Visible(c.Name)
}

// summaryOf is the summary a call came with; a call stored before calls
// carried one is summarised now, through env (nil: naming things by the
// references the model gave).
func summaryOf(ctx context.Context, c agent.ToolCall, env *agent.ToolEnv) agent.Summary {
	if c.Summary != nil {
		return *c.Summary
	}
	return agent.Summarize(ctx, env, c.Name, c.Arguments)
}

// resultLine is a tool's outcome on one line for people, without the
// mark: `get_ocr_text: page 2 of 3, 1,234 characters`, `create_tag:
// created tag aws (tag_…)`, or the tool's name alone when there is
// nothing to say; a failure is `tool: why`.
func resultLine(ev agent.ToolResultPayload) string { return textfmt.Visible(resultWords(ev)) }

func resultWords(ev agent.ToolResultPayload) string {
	if !ev.Success {
		return ev.Name + ": " + cmp.Or(oneLine(ev.Error), "failed")
	}
	if d := agent.ResultWords(ev.Name, ev.Result); d != "" {
		return ev.Name + ": " + d
	}
	if p := oneLine(ev.Preview); p != "" {
		return ev.Name + ": " + p
	}
	return ev.Name
}

// oneLine joins text's lines and spaces and cuts it for one line.
func oneLine(s string) string { return textfmt.Shorten(strings.Join(strings.Fields(s), " "), 300) }

// turnDuration writes how long a turn took: 12.4 s, 2 min 5 s.
func turnDuration(d time.Duration) string {
	if d < time.Minute {
		return fmt.Sprintf("%.1f s", d.Seconds())
	}
	d = d.Round(time.Second)
	return fmt.Sprintf("%d min %d s", int(d/time.Minute), int(d%time.Minute/time.Second))
}

// closingLine ends a turn's output: `— thread thr_… "Invoice setup" ·
// 3 rounds · 4,812 tokens · 12.4 s`.
func closingLine(threadID, title string, rounds, tokens int, took time.Duration) string {
	head := "— thread " + threadID
	if title != "" {
		head += " " + qname(title)
	}
	return strings.Join([]string{head, textfmt.Count(rounds, "round"), textfmt.Thousands(tokens) + " tokens", turnDuration(took)}, " · ")
}
