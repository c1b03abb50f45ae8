package ocr

import (
	"regexp"
	"strings"
	"sync"

	"github.com/docent/docent/storage/envvar"
	"github.com/docent/docent/storage/fault"
)

// LangEnv is the environment variable that sets the OCR languages.
const LangEnv = string(envvar.OCRLang)

// tesseractLang maps ISO 639-1 codes, as locales name languages, to
// Tesseract's language data names.
var tesseractLang = map[string]string{
	"ar": "ara", "bg": "bul", "ca": "cat", "cs": "ces", "da": "dan", "de": "deu", "el": "ell",
	"en": "eng", "es": "spa", "et": "est", "fi": "fin", "fr": "fra", "he": "heb", "hi": "hin",
	"hr": "hrv", "hu": "hun", "id": "ind", "it": "ita", "ja": "jpn", "ko": "kor", "lt": "lit",
	"lv": "lav", "nb": "nor", "nl": "nld", "nn": "nor", "no": "nor", "pl": "pol", "pt": "por",
	"ro": "ron", "ru": "rus", "sk": "slk", "sl": "slv", "sr": "srp", "sv": "swe", "th": "tha",
	"tr": "tur", "uk": "ukr", "vi": "vie", "zh": "chi_sim",
}

// DefaultLang is the OCR languages when none is given: DOCENT_OCR_LANG if
// set, else the language of the user's locale (LC_ALL, LC_MESSAGES, LANG)
// plus English, "deu+eng" for de_DE.UTF-8; English alone for an English,
// C or unknown locale.
func DefaultLang() string {
	if l := strings.TrimSpace(envvar.Get(envvar.OCRLang)); l != "" {
		return l
	}
	return localeLang(firstSet(envvar.LCAll, envvar.LCMessages, envvar.Lang))
}

func firstSet(names ...envvar.Name) string {
	for _, n := range names {
		if v := envvar.Get(n); v != "" {
			return v
		}
	}
	return ""
}

func localeLang(locale string) string {
	code, _, _ := strings.Cut(locale, "_")
	code, _, _ = strings.Cut(code, ".")
	code = strings.ToLower(code)
	if t, ok := tesseractLang[code]; ok && t != "eng" {
		return t + "+eng"
	}
	return "eng"
}

var langPattern = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[a-z][a-z0-9_]*(\+[a-z][a-z0-9_]*)*$`) })

// ParseLang checks a language setting ("deu+eng", "fra") and accepts the
// two-letter codes too ("de+en").
func ParseLang(s string) (string, error) {
	s = strings.ToLower(strings.TrimSpace(s))
	parts := strings.Split(s, "+")
	for i, p := range parts {
		if t, ok := tesseractLang[p]; ok {
			parts[i] = t
		}
	}
	s = strings.Join(parts, "+")
	if !langPattern().MatchString(s) {
		return "", fault.Errorf(fault.Invalid, "OCR languages %q: give Tesseract's language names joined by +, such as deu+eng", s)
	}
	return s, nil
}
