package ocr

import (
	"context"
	"strings"

	"github.com/docent/docent/storage"
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
