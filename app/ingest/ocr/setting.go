package ocr

import (
	"context"
	"strings"

	"github.com/docent/docent/agent/provider"
	"github.com/docent/docent/storage"
	"github.com/docent/docent/storage/fault"
)

// SettingLang is the OCR languages in effect for a store when none is
// asked for: the ones the Settings page saved (storage.SettingOCRLang),
// else DefaultLang (DOCENT_OCR_LANG, else the locale's language plus
// English). The background worker, `docent import` and `docent ocr`
// without --lang use it.
func SettingLang(ctx context.Context, db *storage.DB) string {
	var saved string
	if ok, err := db.GetSetting(ctx, storage.SettingOCRLang, &saved); err == nil && ok && strings.TrimSpace(saved) != "" {
		return saved
	}
	return DefaultLang()
}

// VisionSetting is the vision tier the Settings page saved
// (storage.SettingOCRVision): the background worker of `docent --serve`
// and of the desktop app reads with it, and `docent ocr` without --vision.
type VisionSetting struct {
	// Model is the vision model's id, "ollama/qwen2.5vl:7b"; "" for none.
	Model string `json:"model"`
	// All sends every page that is not blank to the model (--vision-all).
	All bool `json:"all"`
}

// SettingVision is the saved vision tier; the zero value when none is
// saved.
func SettingVision(ctx context.Context, db *storage.DB) (VisionSetting, error) {
	var v VisionSetting
	if _, err := db.GetSetting(ctx, storage.SettingOCRVision, &v); err != nil {
		return VisionSetting{}, err
	}
	v.Model = strings.TrimSpace(v.Model)
	return v, nil
}

// Vision is the tier on the providers reg, checked (Vision.Check): nil
// when no model is set, an unavailable error that says why when the model
// cannot be used.
func (s VisionSetting) Vision(ctx context.Context, reg *provider.Registry) (*Vision, error) {
	if s.Model == "" {
		return nil, nil
	}
	v, err := NewVision(reg, s.Model)
	if err != nil {
		return nil, fault.Errorf(fault.Unavailable, "the vision model %s: %w", s.Model, err)
	}
	if err := v.Check(ctx); err != nil {
		return nil, err
	}
	v.All = s.All
	return v, nil
}
