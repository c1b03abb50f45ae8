package app

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"strings"

	"github.com/docent/docent/agent"
	"github.com/docent/docent/agent/provider"
	"github.com/docent/docent/storage"
	"github.com/docent/docent/storage/fault"
)

// modelList is what `docent models --json` prints, as GET /api/models answers.
type modelList struct {
	Models  []provider.ModelInfo `json:"models"`
	Default string               `json:"default"`
	// Errors says which configured providers could not be asked, and why.
	Errors []string `json:"errors,omitempty"`
}

func runModels(ctx context.Context, env *Env, args []string) error {
	fs := flag.NewFlagSet("models", flag.ContinueOnError)
	asJSON := fs.Bool("json", false, "")
	if rest, err := parseFlags(fs, args); err != nil {
		return err
	} else if len(rest) > 0 {
		return usagef("models takes no arguments\n%s", usageLine("models"))
	}
	a, err := env.Agent(ctx) // with the providers saved in Settings

	if err != nil {
		return err
	}
	models, errs := a.Providers.Models(ctx)
	list := modelList{Models: models, Default: a.DefaultModel}
	if list.Models == nil {
		list.Models = []provider.ModelInfo{}
	}
	for _, err := range errs {
		msg := env.errorText(ctx, "docent models", err)
		list.Errors = append(list.Errors, msg)
		fmt.Fprintf(env.IO.Err, "warning: %s\n", msg)
	}
	if *asJSON {
		if err := writeJSON(env.IO, list); err != nil {
			return err
		}
	} else if len(models) > 0 {
		t := newTable(env.IO.Out, "MODEL", "PROVIDER", "CONTEXT", "CAPABILITIES")
		for _, m := range models {
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
	switch {
	case len(models) == 0 && len(errs) > 0:
		return errPartial // nothing to offer, and the warnings above say why
	case len(models) == 0:
		return noModels(a.Providers, a.DefaultModel)
	}
	return nil
}

// noModels says that no provider offers a model, and the command that
// gets one: `ollama pull` of the default model when it is an Ollama one,
// else of provider.SuggestedModel.
func noModels(reg *provider.Registry, defaultModel string) error {
	pull := provider.SuggestedModel
	if name, model, err := provider.ParseModelID(defaultModel); err == nil && name == "ollama" {
		pull = model
	}
	where := "Ollama"
	if p, err := reg.Provider("ollama"); err == nil {
		where = "Ollama at " + p.(*provider.Ollama).Host()
	}
	return fault.Errorf(fault.NotFound,
		"no models: %s has none pulled; get one with `ollama pull %s` (or set OPENAI_BASE_URL and OPENAI_API_KEY for an OpenAI-compatible server), then run docent models again",
		where, pull)
}

// extractReport is what `docent extract --json` prints.
type extractReport struct {
	Extractions []storage.Extraction `json:"extractions"`
	Errors      []extractError       `json:"errors"`
}

type extractError struct {
	DocumentID string `json:"document_id,omitempty"`
	Document   string `json:"document"`
	Error      string `json:"error"`
}

func runExtract(ctx context.Context, env *Env, args []string) error {
	fs := flag.NewFlagSet("extract", flag.ContinueOnError)
	promptRef := fs.String("prompt", "", "")
	asJSON := fs.Bool("json", false, "")
	docs, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if *promptRef == "" || len(docs) == 0 {
		return usagef("extract needs --prompt and at least one document\n%s", usageLine("extract"))
	}
	db, err := env.Store(ctx)
	if err != nil {
		return err
	}
	prompt, err := db.FindPrompt(ctx, *promptRef)
	if err != nil {
		return err
	}
	a, err := env.Agent(ctx)
	if err != nil {
		return err
	}
	x := a.Extractor
	report := extractReport{Extractions: []storage.Extraction{}, Errors: []extractError{}}
	bar := newProgress(env.IO, len(docs), "extracting")
	for i, ref := range docs {
		doc, err := db.FindDocument(ctx, ref)
		var ext storage.Extraction
		if err == nil {
			// An explicit --model wins over the prompt's stored model
			// (DOCENT_MODEL alone does not: it is the default).
			ext, err = x.Run(ctx, agent.ExtractRequest{DocumentID: doc.ID, PromptRevID: prompt.PromptRevID, Model: env.ModelFlag})
		}
		if errors.Is(err, context.Canceled) {
			break
		}
		if err != nil {
			msg := env.errorText(ctx, "docent extract "+ref, err)
			report.Errors = append(report.Errors, extractError{DocumentID: doc.ID, Document: ref, Error: msg})
			bar.step(i+1, fmt.Sprintf("%s: failed: %s", ref, msg))
			continue
		}
		report.Extractions = append(report.Extractions, ext)
		bar.step(i+1, fmt.Sprintf("%s: %s extraction %s", ref, ext.ValidationStatus, ext.ID))
		if !*asJSON {
			fmt.Fprintf(env.IO.Out, "%s: %s extraction %s by %s (%d prompt + %d completion tokens)\n",
				doc.Name, ext.ValidationStatus, ext.ID, ext.Model, ext.PromptTokens, ext.CompletionTokens)
			if err := writeIndented(env, ext.Value); err != nil {
				return err
			}
			if line := evidenceLine(ext); line != "" {
				fmt.Fprintln(env.IO.Out, line)
			}
		}
	}
	bar.finish()
	if *asJSON {
		if err := writeJSON(env.IO, report); err != nil {
			return err
		}
	}
	for _, e := range report.Errors {
		fmt.Fprintf(env.IO.Err, "docent: %s: %s\n", e.Document, e.Error)
	}
	if err := ctx.Err(); err != nil {
		return fault.Errorf(fault.Canceled, "extraction interrupted after %d of %d documents: %w", len(report.Extractions)+len(report.Errors), len(docs), err)
	}
	if len(report.Errors) > 0 {
		return errPartial
	}
	return nil
}
