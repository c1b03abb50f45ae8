package server

import (
	"context"
	"net/http"
	"strings"

	"github.com/docent/docent/agent/provider"
	"github.com/docent/docent/app/ingest/ocr"
	"github.com/docent/docent/storage"
	"github.com/docent/docent/storage/fault"
)

// The OCR languages are a setting: the Settings page saves them in the
// store (storage.SettingOCRLang), the background OCR worker reads them for
// each document, and the CLI uses them when --lang is not given
// (ocr.SettingLang). So is the vision tier (storage.SettingOCRVision): a
// vision model that reads photos and the pages Tesseract reads badly, or
// every page, in the background worker as `docent ocr --vision` does; the
// CLI uses it when --vision is not given.

// ocrSettings answers GET and PUT /api/settings/ocr.
type ocrSettings struct {
	// Lang is the languages in effect, "deu+eng".
	Lang string `json:"lang"`
	// Saved is the value the Settings page saved, "" for none.
	Saved string `json:"saved"`
	// Default is what applies without a saved value.
	Default string `json:"default"`
	// Engine is Tesseract and its version, "" when it is not installed;
	// Installed the languages whose data it has; Error why no engine
	// reads pages in Lang (Tesseract without the data, or not installed
	// and PP-OCR off), "" when one does.
	Engine    string   `json:"engine"`
	Installed []string `json:"installed"`
	Error     string   `json:"error,omitempty"`
	// PhotoEngine reads the pages of image files and PDFEngine the PDF
	// pages that need OCR, in Lang ("ppocr PP-OCRv4 onnxruntime 1.30.0",
	// "tesseract 5.3.0 best_int", "tesseract 5.3.0"); "" with no engine.
	// PPOCR is PP-OCR as installed, "" when its runtime or models are
	// missing or do not load; PPOCRNote says why it reads no pages or
	// which it leaves to Tesseract.
	PhotoEngine string `json:"photo_engine"`
	PDFEngine   string `json:"pdf_engine"`
	PPOCR       string `json:"ppocr"`
	PPOCRNote   string `json:"ppocr_note,omitempty"`
	// PPOCRFrom says where PP-OCR's runtime and models are read from (a
	// release's bundle, or the cache); "" when PP-OCR is off.
	PPOCRFrom string `json:"ppocr_from,omitempty"`
	// VisionModel is the saved vision model ("ollama/qwen2.5vl:7b"), ""
	// for none; VisionAll sends it every page, not only photos and pages
	// Tesseract reads badly; VisionError says why the model cannot be
	// used now (OCR waits until it can, or the setting changes).
	VisionModel string `json:"vision_model"`
	VisionAll   bool   `json:"vision_all"`
	VisionError string `json:"vision_error,omitempty"`
}

func (s *Server) getOCRSettings(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, http.StatusOK, s.ocrSettings(r.Context()))
}

func (s *Server) ocrSettings(ctx context.Context) ocrSettings {
	out := ocrSettings{Default: ocr.DefaultLang(), Lang: ocr.SettingLang(ctx, s.cfg.DB), Installed: []string{}}
	_, _ = s.cfg.DB.GetSetting(ctx, storage.SettingOCRLang, &out.Saved)
	if e, err := ocr.FindEngine(ctx); err == nil {
		out.Engine, out.Installed = e.Name(), e.Langs
	}
	if _, err := ocr.Ready(ctx, out.Lang, false, s.cfg.Logger); err != nil {
		out.Error = fault.ErrorMessage(err)
	}
	r := ocr.EngineReaders(ctx, out.Lang, s.cfg.Logger)
	out.PhotoEngine, out.PDFEngine, out.PPOCR, out.PPOCRNote, out.PPOCRFrom = r.Photos, r.PDFPages, r.PPOCR, r.PPOCRNote, r.PPOCRFrom
	v, err := ocr.SettingVision(ctx, s.cfg.DB)
	if err != nil {
		out.VisionError = fault.ErrorMessage(err)
		return out
	}
	out.VisionModel, out.VisionAll = v.Model, v.All
	if _, err := s.visionOn(ctx, v); err != nil {
		out.VisionError = fault.ErrorMessage(err)
	}
	return out
}

// ocrVision is the vision tier the background worker reads with: the
// saved model on the providers in effect, checked; nil for none.
func (s *Server) ocrVision(ctx context.Context) (*ocr.Vision, error) {
	v, err := ocr.SettingVision(ctx, s.cfg.DB)
	if err != nil {
		return nil, err
	}
	return s.visionOn(ctx, v)
}

// visionOn is the vision setting v on the providers in effect, checked;
// nil for no model.
func (s *Server) visionOn(ctx context.Context, v ocr.VisionSetting) (*ocr.Vision, error) {
	if v.Model == "" {
		return nil, nil
	}
	a := s.agent()
	if a == nil || a.Providers == nil {
		return nil, fault.Errorf(fault.Unavailable, "the vision model %s: no model providers are configured", v.Model)
	}
	return v.Vision(ctx, a.Providers)
}

// ocrSettingsBody is the body of PUT /api/settings/ocr; a field left out
// keeps its saved value.
type ocrSettingsBody struct {
	// Lang is Tesseract's language list ("deu+eng"); "" goes back to the
	// default.
	Lang *string `json:"lang,omitempty"`
	// VisionModel is the vision model ("ollama/qwen2.5vl:7b"); "" turns the
	// vision tier off.
	VisionModel *string `json:"vision_model,omitempty"`
	// VisionAll sends every page to the vision model.
	VisionAll *bool `json:"vision_all,omitempty"`
}

// putOCRSettings saves the OCR settings: the languages ({"lang":
// "deu+eng"}; "" goes back to the default) and the vision tier
// ({"vision_model": "ollama/qwen2.5vl:7b", "vision_all": false};
// "" turns it off). Languages whose data is not installed are refused,
// saying what to install, and so is a model that cannot be used (not
// there, cannot see); nothing is saved then.
func (s *Server) putOCRSettings(w http.ResponseWriter, r *http.Request) {
	var body ocrSettingsBody
	if err := s.decodeJSON(w, r, &body, false); err != nil {
		s.writeError(w, r, err)
		return
	}
	ctx := r.Context()
	values := map[string]any{}
	if body.Lang != nil {
		lang, err := s.ocrLangValue(ctx, *body.Lang)
		if err != nil {
			s.writeError(w, r, err)
			return
		}
		values[storage.SettingOCRLang] = lang
	}
	if body.VisionModel != nil || body.VisionAll != nil {
		v, err := s.ocrVisionValue(ctx, body)
		if err != nil {
			s.writeError(w, r, err)
			return
		}
		values[storage.SettingOCRVision] = v
	}
	if len(values) > 0 {
		if err := s.cfg.DB.SetSettings(ctx, values); err != nil {
			s.writeError(w, r, err)
			return
		}
		s.pipeline.WakeOCR() // documents that waited for the model
	}
	writeJSON(w, http.StatusOK, s.ocrSettings(ctx))
}

// ocrVisionValue is the vision setting body asks for, checked, as it is
// stored: nil (deleted) for no model.
func (s *Server) ocrVisionValue(ctx context.Context, body ocrSettingsBody) (any, error) {
	v, err := ocr.SettingVision(ctx, s.cfg.DB)
	if err != nil {
		return nil, err
	}
	if body.VisionModel != nil {
		v.Model = strings.TrimSpace(*body.VisionModel)
	}
	if body.VisionAll != nil {
		v.All = *body.VisionAll
	}
	if v.Model == "" {
		return nil, nil
	}
	if _, _, err := provider.ParseModelID(v.Model); err != nil {
		return nil, fault.Errorf(fault.Invalid, "vision_model: %s", fault.ErrorMessage(err))
	}
	a := s.agent()
	if a == nil || a.Providers == nil {
		return nil, fault.Errorf(fault.Unavailable, "no model providers are configured to check %s", v.Model)
	}
	if _, err := v.Vision(ctx, a.Providers); err != nil {
		return nil, fault.Errorf(fault.Invalid, "%s", fault.ErrorMessage(err))
	}
	return v, nil
}

// ocrLangValue is the languages l as stored: nil (deleted) for "".
func (s *Server) ocrLangValue(ctx context.Context, l string) (any, error) {
	var value any // nil deletes the setting
	if l := strings.TrimSpace(l); l != "" {
		lang, err := ocr.ParseLang(l)
		if err != nil {
			return nil, fault.Errorf(fault.Invalid, "%s", fault.ErrorMessage(err))
		}
		if e, err := ocr.FindEngine(ctx); err == nil {
			if err := e.CheckLangs(lang); err != nil {
				return nil, fault.Errorf(fault.Invalid, "%s", fault.ErrorMessage(err))
			}
		}
		value = lang
	}
	return value, nil
}
