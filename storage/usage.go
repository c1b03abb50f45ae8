package storage

import (
	"cmp"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/docent/docent/storage/fault"
)

// The usage ledger (migration 0018): one row per model call, written when
// the call ends, and the spending limits every call is held against. A
// call first reserves the most it can spend (ReserveUsage): the check of
// the limits and the reservation are one write transaction, so workers
// and processes sharing the database cannot overshoot a limit by more than
// the one call that found room; the call's end records what it spent and
// drops its reservation (RecordUsage).

// SpendingLimit is the code of the error a call gets when a spending limit
// is reached (fault.SpendingLimit).
const SpendingLimit = fault.SpendingLimit

// SettingUsageLimits is the settings key of the spending limits
// (UsageLimits).
const SettingUsageLimits = "usage_limits"

// Units of a spending limit.
const (
	UnitTokens = "tokens"
	UnitUSD    = "usd"
)

// ProviderLocal is the provider whose models run on this machine: they cost
// nothing, and count against the limits only with UsageLimits.AllModels.
const ProviderLocal = "ollama"

// UsageScope is what a model call served, carried by the context: the
// edges and use cases set what they know (WithUsageScope) and the meter
// writes it into the call's ledger row.
type UsageScope struct {
	Edge       Edge
	ThreadID   string
	RunID      string
	DocumentID string
}

type usageScopeKey struct{}

// WithUsageScope returns a context whose model calls are recorded as
// serving s; the fields of s that are empty keep what ctx already carried,
// so an edge sets the edge and a use case inside it adds the document.
func WithUsageScope(ctx context.Context, s UsageScope) context.Context {
	old, _ := ctx.Value(usageScopeKey{}).(UsageScope)
	s.Edge = cmp.Or(s.Edge, old.Edge)
	s.ThreadID = cmp.Or(s.ThreadID, old.ThreadID)
	s.RunID = cmp.Or(s.RunID, old.RunID)
	s.DocumentID = cmp.Or(s.DocumentID, old.DocumentID)
	return context.WithValue(ctx, usageScopeKey{}, s)
}

// UsageScopeFrom returns what ctx says a model call serves: its usage
// scope, filled in from its actor (WithActor) where the scope says
// nothing, and the system edge when neither names one.
func UsageScopeFrom(ctx context.Context) UsageScope {
	s, _ := ctx.Value(usageScopeKey{}).(UsageScope)
	if a, ok := ActorFrom(ctx); ok {
		s.Edge = cmp.Or(s.Edge, a.Edge)
		s.RunID = cmp.Or(s.RunID, a.RunID)
	}
	s.Edge = cmp.Or(s.Edge, EdgeSystem)
	return s
}

// UsageCall is one ledger row: a model call as it ended.
type UsageCall struct {
	ID         int64     `json:"id"`
	At         time.Time `json:"at"`
	Edge       string    `json:"edge" ts:"'agent' | 'auto_create' | 'ui' | 'cli' | 'mcp' | 'system'"`
	ThreadID   string    `json:"thread_id,omitempty"`
	RunID      string    `json:"run_id,omitempty"`
	DocumentID string    `json:"document_id,omitempty"`
	Provider   string    `json:"provider"`
	Model      string    `json:"model"`
	// Kind is "chat" or "embed".
	Kind         string `json:"kind"`
	InputTokens  int    `json:"input_tokens"`
	OutputTokens int    `json:"output_tokens"`
	// CachedTokens are the input tokens the server read from its cache
	// (part of InputTokens).
	CachedTokens int `json:"cached_tokens"`
	// Estimated: the server reported no counts; these are Docent's guess.
	Estimated bool `json:"estimated,omitempty"`
	// Clamped: the server reported impossible counts (negative, more than
	// the context window); these are the counts cut to what is possible.
	Clamped    bool  `json:"clamped,omitempty"`
	DurationMS int64 `json:"duration_ms"`
	// Outcome is "ok", or the code of the call's error.
	Outcome string `json:"outcome"`
	// CostUSD is nil when the model's price is unknown.
	CostUSD *float64 `json:"cost_usd"`
}

// UsageLimits are the spending limits, and the limits beside them that
// are saved with them. A nil limit is none; a limit of 0 means nothing may
// be spent.
type UsageLimits struct {
	Daily   *float64 `json:"daily,omitempty"`
	Monthly *float64 `json:"monthly,omitempty"`
	// Unit is UnitTokens (input plus output tokens) or UnitUSD.
	Unit string `json:"unit"`
	// AllModels counts local models too; without it only hosted ones.
	AllModels bool `json:"all_models,omitempty"`
	// PerMinute is the most model-calling HTTP requests `docent --serve`
	// answers a minute, for the whole server; 0 is no limit.
	PerMinute int `json:"per_minute,omitempty"`
	// ConfirmOverUSD is the estimated cost of a batch above which the app
	// asks before it starts it; DefaultConfirmOverUSD when none is saved.
	ConfirmOverUSD *float64 `json:"confirm_over_usd,omitempty"`
}

// DefaultConfirmOverUSD is UsageLimits.ConfirmOverUSD when none is saved.
const DefaultConfirmOverUSD = 1.00

// Any reports whether a spending limit (daily or monthly) is set.
func (l UsageLimits) Any() bool { return l.Daily != nil || l.Monthly != nil }

// saved reports whether l differs from having nothing saved.
func (l UsageLimits) saved() bool {
	return l.Any() || l.PerMinute != 0 || l.ConfirmOverUSD != nil && *l.ConfirmOverUSD != DefaultConfirmOverUSD
}

// Confirm is ConfirmOverUSD, or its default.
func (l UsageLimits) Confirm() float64 {
	if l.ConfirmOverUSD == nil {
		return DefaultConfirmOverUSD
	}
	return *l.ConfirmOverUSD
}

// counts reports whether calls of provider count against the limits.
func (l UsageLimits) counts(provider string) bool {
	return l.Any() && (l.AllModels || provider != ProviderLocal)
}

// Check is invalid for a negative, infinite or missing-unit limit.
func (l UsageLimits) Check() error {
	if l.Unit != UnitTokens && l.Unit != UnitUSD {
		return Errorf(ErrInvalid, "limit unit %q: want %s or %s", l.Unit, UnitTokens, UnitUSD).On("unit")
	}
	for _, x := range []struct {
		name string
		v    *float64
	}{{"daily", l.Daily}, {"monthly", l.Monthly}} {
		if x.v != nil && (*x.v < 0 || math.IsNaN(*x.v) || math.IsInf(*x.v, 0)) {
			return Errorf(ErrInvalid, "%s limit %v: want a number of at least 0 (0 means nothing may be spent)", x.name, *x.v).On(x.name)
		}
		if x.v != nil && l.Unit == UnitTokens && *x.v != math.Trunc(*x.v) {
			return Errorf(ErrInvalid, "%s limit %v: tokens are whole numbers", x.name, *x.v).On(x.name)
		}
	}
	if l.PerMinute < 0 {
		return Errorf(ErrInvalid, "per-minute limit %d: want a number of requests, at least 1 (or none)", l.PerMinute).On("per_minute")
	}
	if c := l.ConfirmOverUSD; c != nil && (*c < 0 || math.IsNaN(*c) || math.IsInf(*c, 0)) {
		return Errorf(ErrInvalid, "confirm_over_usd %v: want a number of dollars of at least 0 (0 asks before every batch)", *c).On("confirm_over_usd")
	}
	return nil
}

// UsageLimits returns the saved limits; none are saved by default.
func (db *DB) UsageLimits(ctx context.Context) (UsageLimits, error) {
	return usageLimits(ctx, db.sql)
}

func usageLimits(ctx context.Context, q queryer) (UsageLimits, error) {
	l := UsageLimits{Unit: UnitTokens, ConfirmOverUSD: new(DefaultConfirmOverUSD)}
	var raw string
	err := q.QueryRowContext(ctx, "SELECT value FROM settings WHERE key = ?", SettingUsageLimits).Scan(&raw)
	if errors.Is(err, sql.ErrNoRows) {
		return l, nil
	}
	if err != nil {
		return l, translate("read the spending limits", err)
	}
	if err := json.Unmarshal([]byte(raw), &l); err != nil {
		return l, fmt.Errorf("setting %s: %w", SettingUsageLimits, err)
	}
	return l, nil
}

// SetUsageLimits saves the limits; limits with none set (and the default
// confirmation threshold) remove them.
func (db *DB) SetUsageLimits(ctx context.Context, l UsageLimits) error {
	if !l.saved() {
		return db.update(ctx, "remove the spending limits", func(t *writeTx) error {
			_, err := t.ExecContext(ctx, "DELETE FROM settings WHERE key = ?", SettingUsageLimits)
			return err
		})
	}
	if err := l.Check(); err != nil {
		return err
	}
	raw, err := json.Marshal(l)
	if err != nil {
		return err
	}
	return db.update(ctx, "save the spending limits", func(t *writeTx) error {
		_, err := t.ExecContext(ctx, `INSERT INTO settings (key, value, updated_at) VALUES (?, ?, ?)
			ON CONFLICT (key) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at`, SettingUsageLimits, string(raw), t.nowText())
		return err
	})
}

// UsageRequest is what a call about to go out may spend at most.
type UsageRequest struct {
	Provider, Model string
	// Tokens is the most the call can use: its prompt's estimate plus its
	// output limit.
	Tokens int
	// CostUSD is the cost of Tokens; nil when the model's price is unknown.
	CostUSD *float64
}

// ErrUsageHeld is returned by ReserveUsage when what was spent leaves room
// under the limits but the calls under way may take it: the caller waits
// for them to end and asks again.
var ErrUsageHeld = errors.New("the calls under way may reach the spending limit")

// usageHoldTTL is how long a reservation holds: a call ends long before,
// so an older one is of a process that died mid-call.
const usageHoldTTL = 30 * time.Minute

// ReserveUsage checks the limits for a call about to go out and holds what
// it may spend, in one write transaction. It returns the hold to pass to
// RecordUsage when the call ends (0 when no limit applies); a
// SpendingLimit error when a limit is reached (or a limit in USD cannot be
// kept because the price is unknown); ErrUsageHeld when the calls under
// way hold the rest of the room.
func (db *DB) ReserveUsage(ctx context.Context, r UsageRequest) (int64, error) {
	// Without a limit that counts the call, it takes no write lock: a
	// limit set meanwhile holds the calls that start after it.
	if l, err := db.UsageLimits(ctx); err != nil || !l.counts(r.Provider) {
		return 0, err
	}
	var hold int64
	err := db.update(ctx, "reserve usage", func(t *writeTx) error {
		l, err := usageLimits(ctx, t)
		if err != nil || !l.counts(r.Provider) {
			return err
		}
		now, err := usageNow(ctx, t)
		if err != nil {
			return err
		}
		s, err := spending(ctx, t, l, now)
		if err != nil {
			return err
		}
		if l.Unit == UnitUSD && r.CostUSD == nil {
			return Errorf(SpendingLimit, "the price of %s/%s is unknown, so it cannot be held to a spending limit in USD: set its price in Settings, or set the limit in tokens (docent usage limit --unit tokens)", r.Provider, r.Model)
		}
		if err := s.check(l); err != nil {
			return err
		}
		if s.held(l) {
			return ErrUsageHeld
		}
		cost := 0.0
		if r.CostUSD != nil {
			cost = *r.CostUSD
		}
		res, err := t.ExecContext(ctx, `INSERT INTO usage_reservations (day, counted, tokens, cost_usd, expires_at) VALUES (?, 1, ?, ?, ?)`,
			s.day, max(r.Tokens, 0), cost, formatTime(now.Add(usageHoldTTL)))
		if err != nil {
			return err
		}
		hold, err = res.LastInsertId()
		return err
	})
	return hold, err
}

// usageNow is the time usage is recorded at: the clock, or the latest time
// recorded when the clock is behind it, so that a clock moved backwards
// cannot reopen a period. It moves the latest time on.
func usageNow(ctx context.Context, t *writeTx) (time.Time, error) {
	now, err := usageClock(ctx, t, t.now)
	if err != nil || now.After(t.now) {
		return now, err
	}
	_, err = t.ExecContext(ctx, `INSERT INTO usage_clock (id, latest) VALUES (1, ?)
		ON CONFLICT (id) DO UPDATE SET latest = excluded.latest`, formatTime(now))
	return now, err
}

// usageClock is clock, or the latest time usage was recorded at when
// clock is behind it.
func usageClock(ctx context.Context, q queryer, clock time.Time) (time.Time, error) {
	var latest string
	err := q.QueryRowContext(ctx, "SELECT latest FROM usage_clock WHERE id = 1").Scan(&latest)
	if errors.Is(err, sql.ErrNoRows) {
		return clock, nil
	}
	if err != nil {
		return time.Time{}, err
	}
	lt, err := parseTime(latest)
	if err != nil {
		return time.Time{}, err
	}
	if lt.After(clock) {
		return lt, nil
	}
	return clock, nil
}

// spent is what the period's calls spent and what those under way hold,
// in the limits' unit and scope.
type spent struct {
	day, month         string // the periods: 2026-11-28, 2026-11
	today, thisMonth   float64
	heldDay, heldMonth float64
	unit               string
}

// spending reads what was spent and is held in the day and month of now.
func spending(ctx context.Context, q queryer, l UsageLimits, now time.Time) (spent, error) {
	day := now.Format(time.DateOnly)
	s := spent{day: day, month: day[:7], unit: l.Unit}
	monthStart := day[:8] + "01"
	amount := "tokens" // a column of usage_periods and of usage_reservations
	if l.Unit == UnitUSD {
		amount = "cost_usd"
	}
	err := q.QueryRowContext(ctx, `SELECT coalesce(sum(CASE WHEN period = ?1 THEN `+amount+` END), 0), coalesce(sum(CASE WHEN period = ?2 THEN `+amount+` END), 0)
		FROM usage_periods WHERE period IN (?1, ?2) AND (?3 OR NOT local)`, day, s.month, l.AllModels).Scan(&s.today, &s.thisMonth)
	if err != nil {
		return s, err
	}
	err = q.QueryRowContext(ctx, `SELECT coalesce(sum(CASE WHEN day = ?1 THEN `+amount+` END), 0), coalesce(sum(`+amount+`), 0)
		FROM usage_reservations WHERE day >= ?2 AND counted AND expires_at > ?3`, day, monthStart, formatTime(now)).Scan(&s.heldDay, &s.heldMonth)
	return s, err
}

// check is a SpendingLimit error when a limit is reached.
func (s spent) check(l UsageLimits) error {
	scope := "hosted models"
	if l.AllModels {
		scope = "all models"
	}
	for _, p := range []struct {
		limit       *float64
		spent       float64
		per, period string
		flag        string
	}{{l.Daily, s.today, "a day", "today (" + s.day + " UTC)", "--daily"}, {l.Monthly, s.thisMonth, "a month", "this month (" + s.month + ")", "--monthly"}} {
		if p.limit == nil || p.spent < *p.limit {
			continue
		}
		if *p.limit == 0 {
			return Errorf(SpendingLimit, "the spending limit on %s is 0 %s: nothing may be spent; raise it with docent usage limit %s N (or --off), or in Settings", scope, p.per, p.flag)
		}
		return Errorf(SpendingLimit, "spending limit reached: %s spent %s on %s, and the limit is %s %s; raise it with docent usage limit %s N (or --off), or in Settings",
			FormatUsageAmount(p.spent, s.unit), p.period, scope, FormatUsageAmount(*p.limit, s.unit), p.per, p.flag)
	}
	return nil
}

// held reports whether the calls under way hold all the room left.
func (s spent) held(l UsageLimits) bool {
	return (l.Daily != nil && s.today+s.heldDay >= *l.Daily) || (l.Monthly != nil && s.thisMonth+s.heldMonth >= *l.Monthly)
}

// FormatUsageAmount writes an amount of unit as people read it: "6,600
// tokens", "$0.84".
func FormatUsageAmount(v float64, unit string) string {
	if unit == UnitUSD {
		if v > 0 && v < 0.01 {
			// A cent would round a turn's cost to $0.00: up to four
			// places, as the app writes it ($0.0014).
			s := strings.TrimRight(strconv.FormatFloat(v, 'f', 4, 64), "0")
			if len(s) < len("0.00") {
				s = "0.00"
			}
			return "$" + s
		}
		return "$" + strconv.FormatFloat(v, 'f', 2, 64)
	}
	s := strconv.FormatInt(int64(math.Round(v)), 10)
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 && s[i-1] != '-' {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	return b.String() + " tokens"
}

// UsageStatus is the limits and what was spent against them.
type UsageStatus struct {
	Limits UsageLimits `json:"limits"`
	// Day and Month are the current periods (UTC): 2026-11-28, 2026-11.
	Day   string `json:"day"`
	Month string `json:"month"`
	// Today and ThisMonth are what the calls the limits count spent, in
	// the limits' unit (tokens when none is set: hosted models').
	Today     float64 `json:"today"`
	ThisMonth float64 `json:"this_month"`
	// Reached is the limit error a call would get now; "" when none.
	Reached string `json:"reached,omitempty"`
}

// UsageStatus returns the limits and what was spent in their periods.
func (db *DB) UsageStatus(ctx context.Context) (UsageStatus, error) {
	var st UsageStatus
	err := db.view(ctx, "read the spending limits", func(tx *sql.Tx) error {
		l, err := usageLimits(ctx, tx)
		if err != nil {
			return err
		}
		s, err := db.spentNow(ctx, tx, l)
		if err != nil {
			return err
		}
		st = UsageStatus{Limits: l, Day: s.day, Month: s.month, Today: s.today, ThisMonth: s.thisMonth}
		if err := s.check(l); err != nil && l.Any() {
			st.Reached = err.Error()
		}
		return nil
	})
	return st, err
}

// spentNow is what was spent in the periods of limits l as a reader
// sees them now: usageNow's time, without moving the latest time on.
func (db *DB) spentNow(ctx context.Context, q queryer, l UsageLimits) (spent, error) {
	now, err := usageClock(ctx, q, db.now())
	if err != nil {
		return spent{}, err
	}
	return spending(ctx, q, l, now)
}

// UsageAllowed reports nil when calls of provider may go out now, or the
// SpendingLimit error a call would get: a paused batch asks it to know
// when to go on.
func (db *DB) UsageAllowed(ctx context.Context, provider string) error {
	l, err := db.UsageLimits(ctx)
	if err != nil || !l.counts(provider) {
		return err
	}
	return db.view(ctx, "check the spending limits", func(tx *sql.Tx) error {
		s, err := db.spentNow(ctx, tx, l)
		if err != nil {
			return err
		}
		return s.check(l)
	})
}

// RecordUsage writes a call's ledger row as it ended, and drops its hold
// (from ReserveUsage; 0 for none), in one transaction. Its At, and the day
// it counts in, are the store's time (see usageNow); negative counts are
// stored as 0 and marked Clamped.
func (db *DB) RecordUsage(ctx context.Context, hold int64, c UsageCall) error {
	for _, n := range []*int{&c.InputTokens, &c.OutputTokens, &c.CachedTokens} {
		if *n < 0 {
			*n, c.Clamped = 0, true
		}
	}
	if c.CachedTokens > c.InputTokens {
		c.CachedTokens, c.Clamped = c.InputTokens, true
	}
	if c.CostUSD != nil && (*c.CostUSD < 0 || math.IsNaN(*c.CostUSD) || math.IsInf(*c.CostUSD, 0)) {
		c.CostUSD = nil
	}
	c.Outcome = cmp.Or(c.Outcome, "ok")
	c.Edge = cmp.Or(c.Edge, string(EdgeSystem))
	return db.update(ctx, "record usage", func(t *writeTx) error {
		if hold != 0 {
			if _, err := t.ExecContext(ctx, "DELETE FROM usage_reservations WHERE id = ?", hold); err != nil {
				return err
			}
		}
		now, err := usageNow(ctx, t)
		if err != nil {
			return err
		}
		day := now.Format(time.DateOnly)
		var cost any
		unpriced, priced := 1, 0.0
		if c.CostUSD != nil {
			cost, unpriced, priced = *c.CostUSD, 0, *c.CostUSD
		}
		_, err = t.ExecContext(ctx, `INSERT INTO usage_calls (at, day, edge, thread_id, run_id, document_id, provider, model, kind,
			input_tokens, output_tokens, cached_tokens, estimated, clamped, duration_ms, outcome, cost_usd)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
			formatTime(now), day, c.Edge, c.ThreadID, c.RunID, c.DocumentID, c.Provider, c.Model, c.Kind,
			c.InputTokens, c.OutputTokens, c.CachedTokens, c.Estimated, c.Clamped, max(c.DurationMS, 0), c.Outcome, cost)
		if err != nil {
			return err
		}
		for _, period := range []string{day, day[:7]} {
			if _, err := t.ExecContext(ctx, `INSERT INTO usage_periods (period, local, tokens, cost_usd) VALUES (?, ?, ?, ?)
				ON CONFLICT (period, local) DO UPDATE SET tokens = tokens + excluded.tokens, cost_usd = cost_usd + excluded.cost_usd`,
				period, c.Provider == ProviderLocal, c.InputTokens+c.OutputTokens, priced); err != nil {
				return err
			}
		}
		sums := []any{c.InputTokens, c.OutputTokens, c.CachedTokens, priced, unpriced, max(c.DurationMS, 0)}
		_, err = t.ExecContext(ctx, `INSERT INTO usage_days (day, provider, model, edge, calls, input_tokens, output_tokens, cached_tokens, cost_usd, unpriced_calls, duration_ms)
			VALUES (?, ?, ?, ?, 1, ?, ?, ?, ?, ?, ?)
			ON CONFLICT (day, provider, model, edge) DO UPDATE SET `+rollupSums, append([]any{day, c.Provider, c.Model, c.Edge}, sums...)...)
		if err != nil || c.RunID == "" {
			return err
		}
		_, err = t.ExecContext(ctx, `INSERT INTO usage_runs (run_id, day, calls, input_tokens, output_tokens, cached_tokens, cost_usd, unpriced_calls, duration_ms)
			VALUES (?, ?, 1, ?, ?, ?, ?, ?, ?)
			ON CONFLICT (run_id, day) DO UPDATE SET `+rollupSums, append([]any{c.RunID, day}, sums...)...)
		return err
	})
}

// rollupSums adds a call (the excluded row) to a rollup row.
const rollupSums = `calls = calls + 1, input_tokens = input_tokens + excluded.input_tokens, output_tokens = output_tokens + excluded.output_tokens,
	cached_tokens = cached_tokens + excluded.cached_tokens, cost_usd = cost_usd + excluded.cost_usd,
	unpriced_calls = unpriced_calls + excluded.unpriced_calls, duration_ms = duration_ms + excluded.duration_ms`

// Groupings of a usage summary.
const (
	UsageByDay      = "day"
	UsageByModel    = "model"
	UsageByEdge     = "edge"
	UsageByRun      = "run"
	UsageByDayModel = "day_model" // the Usage page's chart: each day's models
)

// UsageGroupings lists the groupings UsageSummary takes.
var UsageGroupings = []string{UsageByDay, UsageByModel, UsageByEdge, UsageByRun, UsageByDayModel}

// UsageTotals are the sums of a group of calls.
type UsageTotals struct {
	Calls        int64 `json:"calls"`
	InputTokens  int64 `json:"input_tokens"`
	OutputTokens int64 `json:"output_tokens"`
	CachedTokens int64 `json:"cached_tokens"`
	// CostUSD sums the calls whose price is known; UnpricedCalls counts
	// the others ("price unknown").
	CostUSD       float64 `json:"cost_usd"`
	UnpricedCalls int64   `json:"unpriced_calls"`
	DurationMS    int64   `json:"duration_ms"`
}

// UsageGroup is one line of a summary; the fields of its grouping are set.
type UsageGroup struct {
	Day   string `json:"day,omitempty"`
	Model string `json:"model,omitempty"` // provider/model
	Edge  string `json:"edge,omitempty"`
	RunID string `json:"run_id,omitempty"`
	UsageTotals
}

// UsageSummary is the ledger summed since a day, by one grouping.
type UsageSummary struct {
	Since  string       `json:"since,omitempty"` // YYYY-MM-DD, "" for all
	By     string       `json:"by"`
	Groups []UsageGroup `json:"groups"`
	Total  UsageTotals  `json:"total"`
}

// UsageSummary sums the ledger from the day since (a zero time: all of
// it), grouped by by (UsageGroupings). Run groups are of auto-create runs
// and chat threads: the calls that served no run are left out of them,
// though not out of the total.
func (db *DB) UsageSummary(ctx context.Context, since time.Time, by string) (UsageSummary, error) {
	keys := map[string]string{
		UsageByDay: "day", UsageByModel: "provider || '/' || model", UsageByEdge: "edge",
		UsageByRun: "run_id", UsageByDayModel: "day, provider || '/' || model",
	}
	key, ok := keys[by]
	if !ok {
		return UsageSummary{}, Errorf(ErrInvalid, "usage by %q: want one of %s", by, strings.Join(UsageGroupings, ", ")).On("by")
	}
	out := UsageSummary{By: by, Groups: []UsageGroup{}}
	sinceDay := ""
	if !since.IsZero() {
		sinceDay = since.UTC().Format(time.DateOnly)
		out.Since = sinceDay
	}
	sums := `sum(calls), sum(input_tokens), sum(output_tokens), sum(cached_tokens), sum(cost_usd), sum(unpriced_calls), sum(duration_ms)`
	table := "usage_days"
	if by == UsageByRun {
		// The runs since a day are a range of this index; SQLite would
		// rather read every run in order to skip the sort.
		table = "usage_runs INDEXED BY usage_runs_day"
	}
	err := db.view(ctx, "summarise usage", func(tx *sql.Tx) error {
		err := queryEach(ctx, tx, func(s scanner) error {
			var g UsageGroup
			dest := []any{}
			switch by {
			case UsageByDay:
				dest = append(dest, &g.Day)
			case UsageByModel:
				dest = append(dest, &g.Model)
			case UsageByEdge:
				dest = append(dest, &g.Edge)
			case UsageByRun:
				dest = append(dest, &g.RunID)
			case UsageByDayModel:
				dest = append(dest, &g.Day, &g.Model)
			}
			dest = append(dest, &g.Calls, &g.InputTokens, &g.OutputTokens, &g.CachedTokens, &g.CostUSD, &g.UnpricedCalls, &g.DurationMS)
			if err := s.Scan(dest...); err != nil {
				return err
			}
			out.Groups = append(out.Groups, g)
			return nil
		}, `SELECT `+key+`, `+sums+` FROM `+table+` WHERE day >= ? GROUP BY `+key+` ORDER BY `+key, sinceDay)
		if err != nil {
			return err
		}
		t := &out.Total
		return tx.QueryRowContext(ctx, `SELECT coalesce(sum(calls), 0), coalesce(sum(input_tokens), 0), coalesce(sum(output_tokens), 0),
			coalesce(sum(cached_tokens), 0), coalesce(sum(cost_usd), 0), coalesce(sum(unpriced_calls), 0), coalesce(sum(duration_ms), 0)
			FROM usage_days WHERE day >= ?`, sinceDay).
			Scan(&t.Calls, &t.InputTokens, &t.OutputTokens, &t.CachedTokens, &t.CostUSD, &t.UnpricedCalls, &t.DurationMS)
	})
	return out, err
}

// UsageCalls lists the ledger's rows from since, newest first, at most
// limit of them.
func (db *DB) UsageCalls(ctx context.Context, since time.Time, limit int) ([]UsageCall, error) {
	out := []UsageCall{}
	err := queryEach(ctx, db.sql, func(s scanner) error {
		var c UsageCall
		var at string
		var cost sql.NullFloat64
		if err := s.Scan(&c.ID, &at, &c.Edge, &c.ThreadID, &c.RunID, &c.DocumentID, &c.Provider, &c.Model, &c.Kind,
			&c.InputTokens, &c.OutputTokens, &c.CachedTokens, &c.Estimated, &c.Clamped, &c.DurationMS, &c.Outcome, &cost); err != nil {
			return err
		}
		t, err := parseTime(at)
		if err != nil {
			return err
		}
		c.At = t
		if cost.Valid {
			c.CostUSD = &cost.Float64
		}
		out = append(out, c)
		return nil
	}, `SELECT id, at, edge, thread_id, run_id, document_id, provider, model, kind, input_tokens, output_tokens, cached_tokens,
		estimated, clamped, duration_ms, outcome, cost_usd FROM usage_calls WHERE at >= ? ORDER BY at DESC, id DESC LIMIT ?`,
		formatTime(since), max(limit, 0))
	if err != nil {
		return nil, translate("list usage", err)
	}
	return out, nil
}
