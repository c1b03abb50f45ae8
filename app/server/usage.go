package server

import (
	"context"
	"net/http"
	"time"

	"github.com/docent/docent/agent"
	"github.com/docent/docent/storage"
	"github.com/docent/docent/storage/fault"
)

// The Usage page's routes: the usage ledger summed as `docent usage
// --json` prints it, and the spending limits `docent usage limit` sets.

// usageReport answers GET /api/usage: `docent usage --json`'s report, the
// same JSON, and the names of the runs, which the page shows instead of
// their ids.
type usageReport struct {
	storage.UsageSummary
	// Status is the limits and what was spent against them.
	Status storage.UsageStatus `json:"status"`
	// RunNames names each run of a by=run summary, by its id: what the
	// run worked on ("auto-create: invoice.pdf"). Left out otherwise.
	RunNames map[string]string `json:"run_names,omitempty"`
}

// getUsage is GET /api/usage?since=YYYY-MM-DD&by=day|model|edge|run|day_model.
func (s *Server) getUsage(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	q := r.URL.Query()
	by := q.Get("by")
	if by == "" {
		by = storage.UsageByDay
	}
	var since time.Time
	if v := q.Get("since"); v != "" {
		t, err := time.Parse(time.DateOnly, v)
		if err != nil {
			s.writeError(w, r, fault.Errorf(fault.Invalid, "since %q: want a date as YYYY-MM-DD, e.g. 2026-11-01", v).On("since"))
			return
		}
		since = t
	}
	sum, err := s.cfg.DB.UsageSummary(ctx, since, by)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	st, err := s.cfg.DB.UsageStatus(ctx)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	out := usageReport{UsageSummary: sum, Status: st}
	if by == storage.UsageByRun {
		out.RunNames = s.runNames(ctx, sum.Groups)
	}
	writeJSON(w, http.StatusOK, out)
}

// runNames names runs by what they worked on: a run's changes in the
// history name its document. A run that changed nothing (or whose history
// is pruned) gets a name without a document.
func (s *Server) runNames(ctx context.Context, groups []storage.UsageGroup) map[string]string {
	names := make(map[string]string, len(groups))
	for _, g := range groups {
		names[g.RunID] = "auto-create run"
		es, err := s.cfg.DB.ListJournal(ctx, storage.JournalFilter{RunID: g.RunID, Limit: 1})
		if err != nil || len(es) == 0 || es[0].DocumentID == "" {
			continue
		}
		if d, err := s.cfg.DB.GetDocument(ctx, es[0].DocumentID); err == nil {
			names[g.RunID] = "auto-create: " + d.Name
		}
	}
	return names
}

// getUsageLimits is GET /api/usage/limits: the limits and what was spent
// against them, as `docent usage limit` says them.
func (s *Server) getUsageLimits(w http.ResponseWriter, r *http.Request) {
	st, err := s.cfg.DB.UsageStatus(r.Context())
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, st)
}

// usageLimitsBody is the body of PUT /api/usage/limits: the limits, all of
// them (a limit left out is none).
type usageLimitsBody struct {
	// Daily and Monthly are the most that may be spent a day (UTC) and a
	// month, in Unit; null or left out for no limit; 0 lets nothing be
	// spent.
	Daily   *float64 `json:"daily,omitempty"`
	Monthly *float64 `json:"monthly,omitempty"`
	// Unit is "tokens" (input plus output) or "usd".
	Unit string `json:"unit"`
	// AllModels counts local models too; without it only hosted ones.
	AllModels bool `json:"all_models,omitempty"`
	// PerMinute is the most model-calling requests the server answers a
	// minute; left out or 0 for no limit.
	PerMinute int `json:"per_minute,omitempty"`
	// ConfirmOverUSD is the estimated cost of a batch above which the app
	// asks before it starts it; left out for the default, $1.00.
	ConfirmOverUSD *float64 `json:"confirm_over_usd,omitempty"`
}

// putUsageLimits is PUT /api/usage/limits: it replaces the limits, and
// refuses, changing nothing, what `docent usage limit` refuses.
func (s *Server) putUsageLimits(w http.ResponseWriter, r *http.Request) {
	var body usageLimitsBody
	if err := s.decodeJSON(w, r, &body, false); err != nil {
		s.writeError(w, r, err)
		return
	}
	l := storage.UsageLimits{Daily: body.Daily, Monthly: body.Monthly, Unit: body.Unit, AllModels: body.AllModels,
		PerMinute: body.PerMinute, ConfirmOverUSD: body.ConfirmOverUSD}
	// The store's checks, before "give daily or monthly": a bad unit is
	// named even when no amount is given.
	if err := l.Check(); err != nil {
		s.writeError(w, r, err)
		return
	}
	if !l.Any() && l.PerMinute == 0 && l.ConfirmOverUSD == nil {
		s.writeError(w, r, fault.Errorf(fault.Invalid, "give daily or monthly, per_minute or confirm_over_usd (or DELETE /api/usage/limits to remove the limits)").On("daily"))
		return
	}
	s.saveUsageLimits(w, r, l)
}

// deleteUsageLimits is DELETE /api/usage/limits: no limits, as `docent
// usage limit --off`. The confirmation threshold, which is no limit, is
// kept.
func (s *Server) deleteUsageLimits(w http.ResponseWriter, r *http.Request) {
	l, err := s.cfg.DB.UsageLimits(r.Context())
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	s.saveUsageLimits(w, r, storage.UsageLimits{Unit: l.Unit, ConfirmOverUSD: l.ConfirmOverUSD})
}

func (s *Server) saveUsageLimits(w http.ResponseWriter, r *http.Request, l storage.UsageLimits) {
	if err := s.cfg.DB.SetUsageLimits(r.Context(), l); err != nil {
		s.writeError(w, r, err)
		return
	}
	s.getUsageLimits(w, r)
}

// getUsagePrices is GET /api/usage/prices: the prices of the models that
// matter (agent.Prices.Report) and the list they come from.
func (s *Server) getUsagePrices(w http.ResponseWriter, r *http.Request) {
	defaultModel := ""
	if a := s.agent(); a != nil {
		defaultModel = a.DefaultModel
	}
	rep, err := (&agent.Prices{DB: s.cfg.DB, Logger: s.cfg.Logger}).Report(r.Context(), defaultModel)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, rep)
}

// usagePricesBody is the body of PUT /api/usage/prices.
type usagePricesBody struct {
	// Overrides are every price set by hand, by model id
	// ("openai/gpt-4o-mini"): {input, output, cached?} in US dollars per
	// million tokens. They replace those saved; {} removes them.
	Overrides map[string]storage.PriceOverride `json:"overrides"`
}

// putUsagePrices is PUT /api/usage/prices: it replaces the prices set by
// hand, and answers as GET. A bad price is refused, naming the model and
// the field, and nothing changes.
func (s *Server) putUsagePrices(w http.ResponseWriter, r *http.Request) {
	var body usagePricesBody
	if err := s.decodeJSON(w, r, &body, false); err != nil {
		s.writeError(w, r, err)
		return
	}
	if body.Overrides == nil {
		s.writeError(w, r, fault.Errorf(fault.Invalid, "give overrides: the prices by model id ({} for none)").On("overrides"))
		return
	}
	if err := s.cfg.DB.SetPriceOverrides(r.Context(), body.Overrides); err != nil {
		s.writeError(w, r, err)
		return
	}
	s.getUsagePrices(w, r)
}

// autoCreateEstimate answers POST /api/auto-create/estimate: the batch's
// estimate, and the cost above which the app asks before it starts it.
type autoCreateEstimate struct {
	agent.AutoCreateEstimate
	ConfirmOverUSD float64 `json:"confirm_over_usd"`
}

// autoCreateEstimateBody is the body of POST /api/auto-create/estimate.
type autoCreateEstimateBody struct {
	// DocumentIDs are the documents the batch would run on.
	DocumentIDs []string `json:"document_ids"`
	// Model is the provider-prefixed model; left out for the default.
	Model string `json:"model,omitempty"`
}

// estimateAutoCreate is POST /api/auto-create/estimate.
func (s *Server) estimateAutoCreate(w http.ResponseWriter, r *http.Request) {
	if !s.needAgent(w, r) {
		return
	}
	var body autoCreateEstimateBody
	if err := s.decodeJSON(w, r, &body, false); err != nil {
		s.writeError(w, r, err)
		return
	}
	est, err := s.agent().EstimateAutoCreate(r.Context(), body.DocumentIDs, body.Model)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	l, err := s.cfg.DB.UsageLimits(r.Context())
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, autoCreateEstimate{AutoCreateEstimate: est, ConfirmOverUSD: l.Confirm()})
}
