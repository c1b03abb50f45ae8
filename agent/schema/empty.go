package schema

import "strings"

// Empty reports whether a decoded JSON value carries nothing: null, a
// blank string, [] or {}. An object without keys is empty like an empty
// list: a model that found nothing for a field answers either, and neither
// fills the field. Merging page windows (the first non-empty answer wins)
// and counting filled fields (auto-create's summary, export) both use it.
func Empty(v any) bool {
	switch x := v.(type) {
	case nil:
		return true
	case string:
		return strings.TrimSpace(x) == ""
	case []any:
		return len(x) == 0
	case map[string]any:
		return len(x) == 0
	}
	return false
}
