package storage

import (
	"context"
	"math"
	"strings"
)

// SettingPriceOverrides is the settings key of the prices set in Settings
// per model (PriceOverrides), which win over the price list's.
const SettingPriceOverrides = "usage_price_overrides"

// PriceOverride is a price set by hand for a model, in US dollars per million
// tokens.
type PriceOverride struct {
	// Input and Output are required; Cached, for input tokens read from
	// the provider's cache, is Input when left out.
	Input  *float64 `json:"input"`
	Output *float64 `json:"output"`
	Cached *float64 `json:"cached,omitempty"`
}

// PriceOverrides returns the prices set by hand, by model id
// ("openai/gpt-4o-mini"); none by default.
func (db *DB) PriceOverrides(ctx context.Context) (map[string]PriceOverride, error) {
	out := map[string]PriceOverride{}
	if _, err := db.GetSetting(ctx, SettingPriceOverrides, &out); err != nil {
		return nil, err
	}
	return out, nil
}

// SetPriceOverrides replaces the prices set by hand. A model id that is not
// provider/model, or a price that is missing, negative or not a number, is
// invalid, naming the model and the field, and nothing is saved.
func (db *DB) SetPriceOverrides(ctx context.Context, overrides map[string]PriceOverride) error {
	for model, p := range overrides {
		provider, name, ok := strings.Cut(model, "/")
		if !ok || strings.TrimSpace(provider) == "" || strings.TrimSpace(name) == "" {
			return Errorf(ErrInvalid, "price of %q: a model is named provider/model, e.g. openai/gpt-4o-mini", model).On("overrides")
		}
		if provider == ProviderLocal {
			return Errorf(ErrInvalid, "price of %s: a local model runs on this machine and costs 0; it takes no price", model).On("overrides")
		}
		for _, f := range []struct {
			name     string
			v        *float64
			required bool
		}{{"input", p.Input, true}, {"output", p.Output, true}, {"cached", p.Cached, false}} {
			switch {
			case f.v == nil && f.required:
				return Errorf(ErrInvalid, "price of %s: %s is required (US dollars per million tokens)", model, f.name).On("overrides")
			case f.v != nil && (*f.v < 0 || math.IsNaN(*f.v) || math.IsInf(*f.v, 0)):
				return Errorf(ErrInvalid, "price of %s: %s %v: want US dollars per million tokens, 0 or more", model, f.name, *f.v).On("overrides")
			}
		}
	}
	if len(overrides) == 0 {
		return db.SetSetting(ctx, SettingPriceOverrides, nil)
	}
	return db.SetSetting(ctx, SettingPriceOverrides, overrides)
}

// UsageModels lists the models the ledger has calls of, as provider and
// model, in order.
func (db *DB) UsageModels(ctx context.Context) ([][2]string, error) {
	var out [][2]string
	err := queryEach(ctx, db.sql, func(s scanner) error {
		var m [2]string
		if err := s.Scan(&m[0], &m[1]); err != nil {
			return err
		}
		out = append(out, m)
		return nil
	}, "SELECT DISTINCT provider, model FROM usage_days ORDER BY provider, model")
	if err != nil {
		return nil, translate("list the models of the usage ledger", err)
	}
	return out, nil
}
