package cli

import (
	"cmp"
	"context"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/docent/docent/agent"
	"github.com/docent/docent/agent/textfmt"
	"github.com/docent/docent/storage"
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
func closingLine(threadID, title string, rounds, tokens int, took time.Duration, usage agent.TurnUsage) string {
	head := "— thread " + threadID
	if title != "" {
		head += " " + qname(title)
	}
	parts := []string{head, textfmt.Count(rounds, "round"), textfmt.Thousands(tokens) + " tokens"}
	if cost := turnCostText(usage); cost != "" {
		parts = append(parts, cost)
	}
	return strings.Join(append(parts, turnDuration(took)), " · ")
}

// turnCostText is what a turn's model calls cost, as the app's chat footer
// says it: nothing on a local model (it costs 0), "price unknown" when no
// call had a known price, and the calls of unknown price beside the sum
// of the others.
func turnCostText(u agent.TurnUsage) string {
	cost := storage.UsageTotals{UnpricedCalls: int64(u.UnpricedCalls)}
	switch {
	case u.CostUSD == nil && u.UnpricedCalls == 0:
		return ""
	case u.CostUSD != nil:
		if *u.CostUSD == 0 && u.UnpricedCalls == 0 {
			return "" // a local model
		}
		cost.CostUSD = *u.CostUSD
		cost.Calls = cost.UnpricedCalls + 1 // some call had a price
	default:
		cost.Calls = cost.UnpricedCalls
	}
	return costText(cost)
}

// askClosingLine ends the output of a `docent ask` turn: its thread and how
// to ask in it again.
func askClosingLine(threadID string) string {
	return fmt.Sprintf("thread: %s  (continue with: docent ask --thread %s \"…\")", threadID, threadID)
}

// footnotes are what an answer cites, a line each in the order of the
// numbers: a passage as `[1] taxi-2024-03.pdf p.1 "Gesamtbetrag 23,40 €"`,
// a query as `[2] query: SELECT … → 1 row; from 3 rows: a.pdf, b.pdf,
// c.pdf` (the documents of the rows it read, and why they are not all of
// them when they are not), and a number the thread
// never produced as `[7] cites nothing the thread produced`, so that a
// wrong marker is seen rather than dropped.
func footnotes(res agent.TurnResult) []string {
	lines := make(map[int]string, len(res.Citations)+len(res.UnknownCitations))
	for _, c := range res.Citations {
		lines[c.N] = citationWords(c)
	}
	for _, n := range res.UnknownCitations {
		lines[n] = "cites nothing the thread produced"
	}
	out := make([]string, 0, len(lines))
	for _, n := range slices.Sorted(maps.Keys(lines)) {
		out = append(out, textfmt.Visible(fmt.Sprintf("[%d] %s", n, lines[n])))
	}
	return out
}

// maxFootnoteDocuments is how many documents a query's footnote names.
const maxFootnoteDocuments = 10

func citationWords(c agent.Citation) string {
	if c.Kind == agent.CiteQuery {
		s := fmt.Sprintf("query: %s → %s", oneLine(c.SQL), textfmt.Count(c.RowCount, "row"))
		if len(c.Sources) > 0 {
			var names []string
			for _, src := range c.Sources {
				if name := cmp.Or(src.Document, src.DocumentID); !slices.Contains(names, name) {
					names = append(names, name)
				}
			}
			if len(names) > maxFootnoteDocuments {
				names = append(names[:maxFootnoteDocuments], fmt.Sprintf("and %d more", len(names)-maxFootnoteDocuments))
			}
			s = fmt.Sprintf("%s; from %s: %s", s, textfmt.Count(len(c.Sources), "row"), strings.Join(names, ", "))
		}
		if c.SourcesNote != "" {
			// Why the rows listed are not those the query read.
			s += " (" + c.SourcesNote + ")"
		}
		return s
	}
	words := []string{cmp.Or(c.Document, c.DocumentID)}
	if c.Page > 0 {
		words = append(words, fmt.Sprintf("p.%d", c.Page))
	}
	if q := strings.Join(strings.Fields(c.Quote), " "); q != "" {
		words = append(words, `"`+textfmt.Shorten(q, 200)+`"`)
	}
	return strings.Join(words, " ")
}
