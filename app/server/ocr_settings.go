package server

import (
	"context"
	"net/http"
	"strings"

	"github.com/docent/docent/app/ingest/ocr"
	"github.com/docent/docent/storage"
	"github.com/docent/docent/storage/fault"
)

// The OCR languages are a setting: the Settings page saves them in the
// store (storage.SettingOCRLang), the background OCR worker reads them for
// each document, and the CLI uses them when --lang is not given
// (ocr.SettingLang).

// ocrSettings answers GET and PUT /api/settings/ocr.
type ocrSettings struct {
	// Lang is the languages in effect, "deu+eng".
	Lang string `json:"lang"`
	// Saved is the value the Settings page saved, "" for none.
	Saved string `json:"saved"`
	// Default is what applies without a saved value.
	Default string `json:"default"`
	// Engine is the OCR engine and its version, "" when none is installed;
	// Installed the languages whose data it has; Error why it cannot run.
	Engine    string   `json:"engine"`
	Installed []string `json:"installed"`
	Error     string   `json:"error,omitempty"`
}

func (s *Server) getOCRSettings(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, http.StatusOK, s.ocrSettings(r.Context()))
}

func (s *Server) ocrSettings(ctx context.Context) ocrSettings {
	out := ocrSettings{Default: ocr.DefaultLang(), Lang: ocr.SettingLang(ctx, s.cfg.DB), Installed: []string{}}
	_, _ = s.cfg.DB.GetSetting(ctx, storage.SettingOCRLang, &out.Saved)
	if e, err := ocr.FindEngine(ctx); err != nil {
		out.Error = fault.ErrorMessage(err)
	} else {
		out.Engine, out.Installed = e.Name(), e.Langs
	}
	return out
}

// ocrLangBody is the body of PUT /api/settings/ocr.
type ocrLangBody struct {
	// Lang is Tesseract's language list ("deu+eng"); "" goes back to the
	// default.
	Lang string `json:"lang"`
}

// putOCRSettings saves the OCR languages ({"lang": "deu+eng"}; "" goes
// back to the default). Languages whose data is not installed are refused,
// saying what to install.
func (s *Server) putOCRSettings(w http.ResponseWriter, r *http.Request) {
	var body ocrLangBody
	if err := s.decodeJSON(w, r, &body, false); err != nil {
		s.writeError(w, r, err)
		return
	}
	ctx := r.Context()
	var value any // nil deletes the setting
	if l := strings.TrimSpace(body.Lang); l != "" {
		lang, err := ocr.ParseLang(l)
		if err != nil {
			s.writeError(w, r, fault.Errorf(fault.Invalid, "%s", fault.ErrorMessage(err)))
			return
		}
		if e, err := ocr.FindEngine(ctx); err == nil {
			if err := e.CheckLangs(lang); err != nil {
				s.writeError(w, r, fault.Errorf(fault.Invalid, "%s", fault.ErrorMessage(err)))
				return
			}
		}
		value = lang
	}
	if err := s.cfg.DB.SetSetting(ctx, storage.SettingOCRLang, value); err != nil {
		s.writeError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, s.ocrSettings(ctx))
}
