package cli

import (
	"cmp"
	"context"
	"errors"
	"flag"
	"fmt"
	"strings"

	"github.com/docent/docent/agent"
	"github.com/docent/docent/agent/provider"
	"github.com/docent/docent/agent/textfmt"
	"github.com/docent/docent/app/ingest/ocr"
	"github.com/docent/docent/app/settings"
	"github.com/docent/docent/storage"
	"github.com/docent/docent/storage/fault"
)

// modelList is what `docent models --json` prints: the shape GET
// /api/models answers (models, default, errors), each model with what
// Docent recommends it for, and the first-run state of GET /api/setup
// (usable, reason, recommended, next_steps, ollama).
type modelList struct {
	Models  []modelEntry `json:"models"`
	Default string       `json:"default"`
	// Errors says which configured providers could not be asked, and why.
	Errors []string `json:"errors,omitempty"`
	// Usable is true when the default model is set, offered and can chat.
	Usable bool `json:"usable"`
	// Reason says why not, in one line ("" when usable).
	Reason      string                `json:"reason"`
	Recommended settings.Recommended  `json:"recommended"`
	NextSteps   []settings.NextStep   `json:"next_steps"`
	PullCommand string                `json:"pull_command"`
	Ollama      settings.OllamaStatus `json:"ollama"`
	// EmbedModel is the embedding model for search by meaning, "" for
	// none; EmbedSuggestion then says which to use.
	EmbedModel      string                    `json:"embed_model"`
	EmbedSuggestion *settings.EmbedSuggestion `json:"embed_suggestion,omitempty"`
	// OCR says which engines read scans and photos, and where PP-OCR's
	// runtime and models come from: a release's bundle or the cache.
	OCR ocrEngines `json:"ocr"`
}

// ocrEngines is the OCR part of `docent models --json`, as GET
// /api/settings/ocr names it.
type ocrEngines struct {
	Lang        string `json:"lang"`
	PhotoEngine string `json:"photo_engine"`
	PDFEngine   string `json:"pdf_engine"`
	PPOCR       string `json:"ppocr"`
	PPOCRFrom   string `json:"ppocr_from,omitempty"`
	PPOCRNote   string `json:"ppocr_note,omitempty"`
}

// text is the line `docent models` prints on stderr.
func (o ocrEngines) text() string {
	var b strings.Builder
	switch {
	case o.PhotoEngine == "" && o.PDFEngine == "":
		b.WriteString("OCR: no engine reads scans and photos.")
	case o.PhotoEngine == o.PDFEngine:
		fmt.Fprintf(&b, "OCR (%s): photos and PDF pages are read by %s.", o.Lang, o.PhotoEngine)
	default:
		fmt.Fprintf(&b, "OCR (%s): photos are read by %s, PDF pages by %s.", o.Lang, o.PhotoEngine, o.PDFEngine)
	}
	if o.PPOCR != "" {
		fmt.Fprintf(&b, " PP-OCR is ready: %s (%s).", o.PPOCR, o.PPOCRFrom)
	} else {
		b.WriteString(" PP-OCR is off.")
	}
	if o.PPOCRNote != "" {
		b.WriteString(" " + o.PPOCRNote)
	}
	return b.String()
}

// modelEntry is one model: its id, provider, context length and
// capabilities, and "agent" and/or "extraction" when recommended for them.
type modelEntry struct {
	provider.ModelInfo
	RecommendedFor []string `json:"recommended_for"`
}

// runModels lists the models of the configured providers. When no usable
// model is set it says why and what to do on stderr (settings.Inspect);
// it fails when no provider offers any model, and succeeds when some are
// offered but none is the default yet, since --model can name one.
func runModels(ctx context.Context, env *Env, args []string) error {
	fs := flag.NewFlagSet("models", flag.ContinueOnError)
	asJSON := fs.Bool("json", false, "")
	if rest, err := parseFlags(fs, args); err != nil {
		return err
	} else if len(rest) > 0 {
		return usagef("models takes no arguments\n%s", usageLine("models"))
	}
	live, err := env.Settings(ctx) // with the providers saved in Settings
	if err != nil {
		return err
	}
	st, err := live.Status(ctx)
	if err != nil {
		return err
	}
	list := modelList{
		Models: []modelEntry{}, Default: st.DefaultModel,
		Usable: st.Usable, Reason: st.Reason, Recommended: st.Recommended, NextSteps: st.NextSteps,
		PullCommand: st.PullCommand, Ollama: st.Ollama,
		EmbedModel: st.EmbedModel, EmbedSuggestion: st.EmbedSuggestion,
	}
	db, err := env.Store(ctx)
	if err != nil {
		return err
	}
	list.OCR.Lang = ocr.SettingLang(ctx, db)
	r := ocr.EngineReaders(ctx, list.OCR.Lang, env.Logger)
	list.OCR.PhotoEngine, list.OCR.PDFEngine, list.OCR.PPOCR, list.OCR.PPOCRFrom, list.OCR.PPOCRNote = r.Photos, r.PDFPages, r.PPOCR, r.PPOCRFrom, r.PPOCRNote
	for _, m := range st.Models {
		list.Models = append(list.Models, modelEntry{
			ModelInfo:      provider.ModelInfo{ID: m.ID, Provider: m.Provider, ContextLength: m.ContextLength, Capabilities: m.Capabilities},
			RecommendedFor: m.RecommendedFor,
		})
	}
	for _, msg := range []string{st.Ollama.Error, st.OpenAI.Error} {
		if msg != "" {
			list.Errors = append(list.Errors, msg)
			fmt.Fprintf(env.IO.Err, "warning: %s\n", msg)
		}
	}
	if *asJSON {
		if err := writeJSON(env.IO, list); err != nil {
			return err
		}
	} else if len(list.Models) > 0 {
		t := newTable(env.IO.Out, "MODEL", "PROVIDER", "CONTEXT", "CAPABILITIES")
		for _, m := range list.Models {
			ctxLen, caps := "-", "-"
			if m.ContextLength > 0 {
				ctxLen = fmt.Sprint(m.ContextLength)
			}
			if len(m.Capabilities) > 0 {
				caps = strings.Join(m.Capabilities, ",")
			}
			t.row(m.ID, m.Provider, ctxLen, caps)
		}
		if err := t.flush(); err != nil {
			return err
		}
	}
	fmt.Fprintln(env.IO.Err, textfmt.Visible(list.OCR.text()))
	printGuidance(env.IO.Err, st)
	if st.EmbedSuggestion != nil {
		fmt.Fprintf(env.IO.Err, "note: %s\n", st.EmbedSuggestion.Text)
	}
	if len(list.Models) == 0 {
		return errPartial // nothing to offer, and the lines above say why and what to do
	}
	return nil
}

// extractReport is what `docent extract --json` prints.
type extractReport struct {
	Extractions []storage.Extraction `json:"extractions"`
	Errors      []extractError       `json:"errors"`
	// Usage sums the model calls the command made.
	Usage batchUsage `json:"usage"`
}

type extractError struct {
	DocumentID string `json:"document_id,omitempty"`
	Document   string `json:"document"`
	Error      string `json:"error"`
	// Code is the error's code (docs/protocol.md#errors): spending_limit,
	// say, for a document a spending limit kept from the model.
	Code string `json:"code,omitempty"`
}

// extractOptions are the flags of `docent extract`.
type extractOptions struct {
	// Prompt runs on each of Docs; the global --model, if given, wins
	// over the prompt's model.
	Prompt string
	Docs   []string
	JSON   bool
}

func parseExtract(args []string) (extractOptions, error) {
	var o extractOptions
	fs := flag.NewFlagSet("extract", flag.ContinueOnError)
	fs.StringVar(&o.Prompt, "prompt", "", "")
	fs.BoolVar(&o.JSON, "json", false, "")
	docs, err := parseFlags(fs, args)
	if err != nil {
		return o, err
	}
	o.Docs = docs
	if o.Prompt == "" || len(docs) == 0 {
		return o, usagef("extract needs --prompt and at least one document\n%s", usageLine("extract"))
	}
	return o, nil
}

func runExtract(ctx context.Context, env *Env, o extractOptions) error {
	db, err := env.Store(ctx)
	if err != nil {
		return err
	}
	prompt, err := db.FindPrompt(ctx, o.Prompt)
	if err != nil {
		return err
	}
	mark, err := markUsage(ctx, db)
	if err != nil {
		return err
	}
	a, err := env.Agent(ctx)
	if err != nil {
		return err
	}
	x := a.Extractor
	report := extractReport{Extractions: []storage.Extraction{}, Errors: []extractError{}}
	// warnings are the notes of extractions the model made from part of
	// their document (the server cut the prompt to fit the window), printed
	// on stderr once the progress is done.
	var warnings []string
	ids := map[string]bool{}
	bar := newProgress(env.IO, len(o.Docs), "extracting")
	for i, ref := range o.Docs {
		doc, err := db.FindDocument(ctx, ref)
		var ext storage.Extraction
		if err == nil {
			ids[doc.ID] = true
			// An explicit --model wins over the prompt's stored model
			// (DOCENT_MODEL alone does not: it is the default).
			ext, err = x.Run(ctx, agent.ExtractRequest{DocumentID: doc.ID, PromptRevID: prompt.PromptRevID, Model: env.ModelFlag})
		}
		if errors.Is(err, context.Canceled) {
			break
		}
		if err != nil {
			msg := env.errorText(ctx, "docent extract "+ref, err)
			report.Errors = append(report.Errors, extractError{DocumentID: doc.ID, Document: ref, Error: msg, Code: string(fault.ErrorCode(err))})
			bar.step(i+1, fmt.Sprintf("%s: failed: %s", ref, msg))
			continue
		}
		report.Extractions = append(report.Extractions, ext)
		step := fmt.Sprintf("%s: %s extraction %s", ref, ext.ValidationStatus, ext.ID)
		if ext.PromptTruncated {
			step += " from part of the document"
			warnings = append(warnings, fmt.Sprintf("warning: %s: %s", ref, cmp.Or(ext.Note, "the model saw only part of the document")))
		}
		bar.step(i+1, step)
		if !o.JSON {
			fmt.Fprintf(env.IO.Out, "%s: %s extraction %s by %s (%d prompt + %d completion tokens)\n",
				textfmt.Visible(doc.Name), ext.ValidationStatus, ext.ID, textfmt.Visible(ext.Model), ext.PromptTokens, ext.CompletionTokens)
			if err := writeIndented(env, ext.Value); err != nil {
				return err
			}
			if line := evidenceLine(ext); line != "" {
				fmt.Fprintln(env.IO.Out, line)
			}
		}
	}
	bar.finish()
	// Summed even when interrupted: what the calls spent is spent.
	if report.Usage, err = mark.sum(context.WithoutCancel(ctx), db, ids); err != nil {
		return err
	}
	if o.JSON {
		if err := writeJSON(env.IO, report); err != nil {
			return err
		}
	}
	for _, w := range warnings {
		fmt.Fprintln(env.IO.Err, textfmt.Visible(w))
	}
	for _, e := range report.Errors {
		fmt.Fprintf(env.IO.Err, "docent: %s: %s\n", textfmt.Visible(e.Document), textfmt.Visible(e.Error))
	}
	fmt.Fprintln(env.IO.Err, report.Usage)
	if err := ctx.Err(); err != nil {
		return fault.Errorf(fault.Canceled, "extraction interrupted after %d of %d documents: %w", len(report.Extractions)+len(report.Errors), len(o.Docs), err)
	}
	if len(report.Errors) > 0 {
		return errPartial
	}
	return nil
}
