package cli

import (
	"context"
	"flag"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/docent/docent/agent"
	"github.com/docent/docent/agent/textfmt"
	"github.com/docent/docent/storage"
)

// usageReport is `docent usage --json`: the ledger summed (storage.
// UsageSummary) and the limits with what was spent against them.
type usageReport struct {
	storage.UsageSummary
	Status storage.UsageStatus `json:"status"`
}

// runUsage is `docent usage`: the usage ledger summed by day, model, edge
// or run; `docent usage limit` sets the spending limits.
func runUsage(ctx context.Context, env *Env, args []string) error {
	if len(args) > 0 && args[0] == "limit" {
		return runUsageLimit(ctx, env, args[1:])
	}
	if len(args) > 0 && args[0] == "price" {
		return runUsagePrice(ctx, env, args[1:])
	}
	fs := flag.NewFlagSet("usage", flag.ContinueOnError)
	since := fs.String("since", "", "")
	by := fs.String("by", storage.UsageByDay, "")
	asJSON := fs.Bool("json", false, "")
	rest, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(rest) > 0 {
		return usagef("usage takes no arguments but flags (or: usage limit …)\n%s", usageLine("usage"))
	}
	switch *by {
	case storage.UsageByDay, storage.UsageByModel, storage.UsageByEdge, storage.UsageByRun:
	default:
		return usagef("--by %q: want day, model, edge or run\n%s", *by, usageLine("usage"))
	}
	var from time.Time
	if *since != "" {
		if from, err = time.Parse(time.DateOnly, *since); err != nil {
			return usagef("--since %q: want a date as YYYY-MM-DD, e.g. 2026-11-01", *since)
		}
	}
	db, err := env.Store(ctx)
	if err != nil {
		return err
	}
	sum, err := db.UsageSummary(ctx, from, *by)
	if err != nil {
		return err
	}
	st, err := db.UsageStatus(ctx)
	if err != nil {
		return err
	}
	if *asJSON {
		return writeJSON(env.IO, usageReport{UsageSummary: sum, Status: st})
	}
	t := newTable(env.IO.Out, strings.ToUpper(*by), "CALLS", "INPUT", "OUTPUT", "CACHED", "COST")
	for _, g := range sum.Groups {
		key := map[string]string{storage.UsageByDay: g.Day, storage.UsageByModel: g.Model, storage.UsageByEdge: g.Edge, storage.UsageByRun: g.RunID}[*by]
		t.row(key, strconv.FormatInt(g.Calls, 10), strconv.FormatInt(g.InputTokens, 10), strconv.FormatInt(g.OutputTokens, 10),
			strconv.FormatInt(g.CachedTokens, 10), costText(g.UsageTotals))
	}
	tot := sum.Total
	t.row("TOTAL", strconv.FormatInt(tot.Calls, 10), strconv.FormatInt(tot.InputTokens, 10), strconv.FormatInt(tot.OutputTokens, 10),
		strconv.FormatInt(tot.CachedTokens, 10), costText(tot))
	if err := t.flush(); err != nil {
		return err
	}
	fmt.Fprintln(env.IO.Err, limitsText(st))
	return nil
}

// costText is a group's cost, with the calls whose price is unknown: a
// figure is never made up for them.
func costText(t storage.UsageTotals) string {
	switch {
	case t.UnpricedCalls == 0:
		return storage.FormatUsageAmount(t.CostUSD, storage.UnitUSD)
	case t.UnpricedCalls == t.Calls:
		return "price unknown"
	}
	return fmt.Sprintf("%s + %s of unknown price", storage.FormatUsageAmount(t.CostUSD, storage.UnitUSD), textfmt.Count(int(t.UnpricedCalls), "call"))
}

// limitsText says the limits and what was spent against them.
func limitsText(st storage.UsageStatus) string {
	l := st.Limits
	perMinute := ""
	if l.PerMinute > 0 {
		perMinute = fmt.Sprintf("\nat most %d model-calling requests a minute to docent --serve", l.PerMinute)
	}
	if !l.Any() {
		return "no spending limits (set them with docent usage limit)" + perMinute
	}
	scope := "hosted models"
	if l.AllModels {
		scope = "all models"
	}
	var parts []string
	if l.Daily != nil {
		parts = append(parts, fmt.Sprintf("%s a day (%s spent today)", storage.FormatUsageAmount(*l.Daily, l.Unit), storage.FormatUsageAmount(st.Today, l.Unit)))
	}
	if l.Monthly != nil {
		parts = append(parts, fmt.Sprintf("%s a month (%s spent this month)", storage.FormatUsageAmount(*l.Monthly, l.Unit), storage.FormatUsageAmount(st.ThisMonth, l.Unit)))
	}
	s := "limits on " + scope + ": " + strings.Join(parts, ", ")
	if (l.Daily != nil && *l.Daily == 0) || (l.Monthly != nil && *l.Monthly == 0) {
		s += "; a limit of 0 lets nothing be spent"
	}
	if st.Reached != "" {
		s += "\n" + st.Reached
	}
	return s + perMinute
}

// runUsageLimit is `docent usage limit`: it sets the limits given, keeps
// the others (unless --unit changes: amounts of the old unit are
// dropped), removes them all with --off, and says what is in effect.
func runUsageLimit(ctx context.Context, env *Env, args []string) error {
	fs := flag.NewFlagSet("usage limit", flag.ContinueOnError)
	daily := fs.String("daily", "", "")
	monthly := fs.String("monthly", "", "")
	unit := fs.String("unit", "", "")
	allModels := fs.Bool("all-models", false, "")
	perMinute := fs.String("per-minute", "", "")
	off := fs.Bool("off", false, "")
	rest, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(rest) > 0 {
		return usagef("usage limit takes flags only\n%s", usageLine("usage"))
	}
	changes := *daily != "" || *monthly != "" || *unit != "" || *perMinute != "" || isFlagSet(fs, "all-models")
	if *off && changes {
		return usagef("--off removes every limit: it goes with no other flag")
	}
	db, err := env.Store(ctx)
	if err != nil {
		return err
	}
	l, err := db.UsageLimits(ctx)
	if err != nil {
		return err
	}
	switch {
	case *off:
		// The confirmation threshold is no limit: it stays.
		l = storage.UsageLimits{Unit: l.Unit, ConfirmOverUSD: l.ConfirmOverUSD}
	case changes:
		if *unit != "" && *unit != l.Unit {
			if *unit != storage.UnitTokens && *unit != storage.UnitUSD {
				return usagef("--unit %q: want tokens or usd", *unit)
			}
			l.Unit, l.Daily, l.Monthly = *unit, nil, nil
		}
		for _, f := range []struct {
			flag, value string
			to          **float64
		}{{"--daily", *daily, &l.Daily}, {"--monthly", *monthly, &l.Monthly}} {
			if f.value == "" {
				continue
			}
			v, err := strconv.ParseFloat(f.value, 64)
			if err != nil || v < 0 || math.IsInf(v, 0) || math.IsNaN(v) {
				return usagef("%s %q: want a number of at least 0 (0: nothing may be spent)", f.flag, f.value)
			}
			*f.to = &v
		}
		if isFlagSet(fs, "all-models") {
			l.AllModels = *allModels
		}
		if *perMinute != "" {
			n, err := strconv.Atoi(*perMinute)
			if err != nil || n < 0 {
				return usagef("--per-minute %q: want a number of requests (0: no limit)", *perMinute)
			}
			l.PerMinute = n
		}
		if !l.Any() && l.PerMinute == 0 {
			return usagef("give --daily, --monthly or --per-minute (or --off to remove the limits)\n%s", usageLine("usage"))
		}
	}
	if *off || changes {
		if err := db.SetUsageLimits(ctx, l); err != nil {
			return err
		}
	}
	st, err := db.UsageStatus(ctx)
	if err != nil {
		return err
	}
	fmt.Fprintln(env.IO.Out, limitsText(st))
	return nil
}

// runUsagePrice is `docent usage price`: the prices of the models that
// matter, or, with a model, the price set for it by hand (--input,
// --output, --cached) or removed (--off). A price set by hand wins over
// the price list's from the next model call on.
func runUsagePrice(ctx context.Context, env *Env, args []string) error {
	fs := flag.NewFlagSet("usage price", flag.ContinueOnError)
	input := fs.String("input", "", "")
	output := fs.String("output", "", "")
	cached := fs.String("cached", "", "")
	off := fs.Bool("off", false, "")
	rest, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	setting := *input != "" || *output != "" || *cached != ""
	switch {
	case len(rest) > 1:
		return usagef("usage price takes one model at most\n%s", usageLine("usage"))
	case len(rest) == 0 && (setting || *off):
		return usagef("name the model to price, e.g. docent usage price openai/gpt-4o-mini --input 0.15 --output 0.6\n%s", usageLine("usage"))
	case *off && setting:
		return usagef("--off removes the model's price: it goes with no other flag")
	case len(rest) == 1 && !*off && (*input == "" || *output == ""):
		return usagef("give --input and --output (US dollars per million tokens), or --off\n%s", usageLine("usage"))
	}
	db, err := env.Store(ctx)
	if err != nil {
		return err
	}
	if len(rest) == 1 {
		overrides, err := db.PriceOverrides(ctx)
		if err != nil {
			return err
		}
		model := rest[0]
		if *off {
			if _, ok := overrides[model]; !ok {
				return usagef("%s has no price set by hand (docent usage price lists them)", model)
			}
			delete(overrides, model)
		} else {
			var p storage.PriceOverride
			for _, f := range []struct {
				flag, value string
				to          **float64
			}{{"--input", *input, &p.Input}, {"--output", *output, &p.Output}, {"--cached", *cached, &p.Cached}} {
				if f.value == "" {
					continue
				}
				v, err := strconv.ParseFloat(f.value, 64)
				if err != nil {
					return usagef("%s %q: want US dollars per million tokens, e.g. 0.15", f.flag, f.value)
				}
				*f.to = &v
			}
			overrides[model] = p
		}
		if err := db.SetPriceOverrides(ctx, overrides); err != nil {
			return err
		}
	}
	a, err := env.Agent(ctx)
	if err != nil {
		return err
	}
	rep, err := (&agent.Prices{DB: db, Logger: env.Logger}).Report(ctx, a.DefaultModel)
	if err != nil {
		return err
	}
	t := newTable(env.IO.Out, "MODEL", "SOURCE", "INPUT", "OUTPUT", "CACHED")
	for _, m := range rep.Models {
		if m.Source == agent.PriceUnknown {
			t.row(m.Model, "price unknown", "", "", "")
			continue
		}
		t.row(m.Model, string(m.Source), usdPerMillion(*m.Input), usdPerMillion(*m.Output), usdPerMillion(*m.Cached))
	}
	if err := t.flush(); err != nil {
		return err
	}
	fmt.Fprintf(env.IO.Err, "prices in US dollars per million tokens; the list is %s of %s\n", rep.ListSource, rep.ListDate)
	return nil
}

// usdPerMillion writes a price per million tokens without trailing zeros:
// $0.15, $2.5, $0.
func usdPerMillion(v float64) string { return "$" + strconv.FormatFloat(v, 'f', -1, 64) }

// batchUsage is the sum of the model calls one command made.
type batchUsage struct {
	Calls         int64   `json:"calls"`
	InputTokens   int64   `json:"input_tokens"`
	OutputTokens  int64   `json:"output_tokens"`
	CostUSD       float64 `json:"cost_usd"`
	UnpricedCalls int64   `json:"unpriced_calls"`
}

// usageMark is where the ledger stood when a command began: the calls it
// makes are the rows written after it (another process may write some
// too, so the command keeps only those that served its documents).
type usageMark struct {
	since time.Time
	after int64
}

// markUsage notes the ledger's latest row.
func markUsage(ctx context.Context, db *storage.DB) (usageMark, error) {
	last, err := db.UsageCalls(ctx, time.Time{}, 1)
	if err != nil || len(last) == 0 {
		return usageMark{}, err
	}
	return usageMark{since: last[0].At, after: last[0].ID}, nil
}

// sum adds up the rows written since the mark for the documents given.
func (m usageMark) sum(ctx context.Context, db *storage.DB, documentIDs map[string]bool) (batchUsage, error) {
	rows, err := db.UsageCalls(ctx, m.since, math.MaxInt32)
	if err != nil {
		return batchUsage{}, fmt.Errorf("sum the command's model calls: %w", err)
	}
	var u batchUsage
	for _, r := range rows {
		if r.ID <= m.after || !documentIDs[r.DocumentID] {
			continue
		}
		u.Calls++
		u.InputTokens += int64(r.InputTokens)
		u.OutputTokens += int64(r.OutputTokens)
		if r.CostUSD == nil {
			u.UnpricedCalls++
		} else {
			u.CostUSD += *r.CostUSD
		}
	}
	return u, nil
}

// String is the line a batch ends with: "model calls: 412 calls, 1.9 M
// tokens (1,700,000 in, 200,000 out), $0.84".
func (u batchUsage) String() string {
	tokens := u.InputTokens + u.OutputTokens
	cost := costText(storage.UsageTotals{Calls: u.Calls, CostUSD: u.CostUSD, UnpricedCalls: u.UnpricedCalls})
	return fmt.Sprintf("model calls: %s, %s tokens (%s in, %s out), %s", textfmt.Count(int(u.Calls), "call"), compactCount(tokens),
		textfmt.Thousands(int(u.InputTokens)), textfmt.Thousands(int(u.OutputTokens)), cost)
}

// compactCount writes a count as people skim it: 950, 12.3 k, 1.9 M.
func compactCount(n int64) string {
	switch {
	case n < 1000:
		return strconv.FormatInt(n, 10)
	case n < 999_950: // what would round to "1000.0 k" is "1.0 M"
		return strconv.FormatFloat(float64(n)/1e3, 'f', 1, 64) + " k"
	}
	return strconv.FormatFloat(float64(n)/1e6, 'f', 1, 64) + " M"
}
