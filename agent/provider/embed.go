package provider

import (
	"context"
	"math"

	"github.com/ollama/ollama/api"
	"github.com/openai/openai-go/v3"

	"github.com/docent/docent/agent/textfmt"
)

// SuggestedEmbedModel is the Ollama embedding model Docent suggests
// pulling when none is set: multilingual enough for German and English
// documents, 274 MB, 768 dimensions.
const SuggestedEmbedModel = "nomic-embed-text"

// Embedder is a provider that turns texts into vectors: Ollama's
// /api/embed, the OpenAI-compatible /v1/embeddings.
type Embedder interface {
	// Embed returns one vector per text, in order, all of one dimension,
	// each finite and not zero: a server that answers otherwise gets a
	// KindBadResponse error, so that no wrong vector is ever stored.
	Embed(ctx context.Context, model string, texts []string) ([][]float32, error)
}

// Embed embeds texts with the model of a full model id
// ("ollama/nomic-embed-text").
func (r *Registry) Embed(ctx context.Context, modelID string, texts []string) ([][]float32, error) {
	name, model, err := ParseModelID(modelID)
	if err != nil {
		return nil, err
	}
	p, err := r.Provider(name)
	if err != nil {
		return nil, err
	}
	e, ok := p.(Embedder)
	if !ok {
		return nil, newError(KindRejected, nil, "%s cannot embed texts", p.Name())
	}
	if len(texts) == 0 {
		return nil, nil
	}
	return r.embedMetered(ctx, p, model, texts, func() ([][]float32, int, error) {
		if c, ok := e.(countingEmbedder); ok {
			return c.embedCounted(ctx, model, texts)
		}
		vecs, err := e.Embed(ctx, model, texts)
		return vecs, 0, err
	})
}

// countingEmbedder is an Embedder that also says how many tokens the
// server counted in the texts (0 when it said nothing), for the meter.
type countingEmbedder interface {
	embedCounted(ctx context.Context, model string, texts []string) ([][]float32, int, error)
}

// Embed asks Ollama's /api/embed for the texts' vectors.
func (p *Ollama) Embed(ctx context.Context, model string, texts []string) ([][]float32, error) {
	vecs, _, err := p.embedCounted(ctx, model, texts)
	return vecs, err
}

// embedCounted is Embed with the tokens Ollama counted (prompt_eval_count).
func (p *Ollama) embedCounted(ctx context.Context, model string, texts []string) ([][]float32, int, error) {
	vecs, tokens, err := p.embed(ctx, model, texts)
	return vecs, tokens, p.red.error(err)
}

func (p *Ollama) embed(ctx context.Context, model string, texts []string) ([][]float32, int, error) {
	if err := checkModelName(model); err != nil {
		return nil, 0, err
	}
	if len(texts) == 0 {
		return nil, 0, nil
	}
	truncate := true // a chunk longer than the model's window is cut, not refused
	req := &api.EmbedRequest{Model: model, Input: texts, Truncate: &truncate, KeepAlive: &api.Duration{Duration: p.cfg.KeepAlive}}
	var vecs [][]float32
	tokens := 0
	err := embedCall(ctx, p.retry, p.cfg, model, len(texts), func(ctx context.Context) error {
		resp, err := p.client.Embed(ctx, req)
		if err == nil {
			vecs, tokens = resp.Embeddings, resp.PromptEvalCount
		}
		return err
	}, func(err error, x *exchange) error { return p.classify(err, x, model) })
	if err != nil {
		return nil, 0, err
	}
	if err := checkVectors(model, len(texts), vecs); err != nil {
		return nil, 0, err
	}
	return vecs, tokens, nil
}

// Embed asks the OpenAI-compatible /embeddings for the texts' vectors.
func (p *OpenAI) Embed(ctx context.Context, model string, texts []string) ([][]float32, error) {
	vecs, _, err := p.embedCounted(ctx, model, texts)
	return vecs, err
}

// embedCounted is Embed with the tokens the server counted
// (usage.prompt_tokens).
func (p *OpenAI) embedCounted(ctx context.Context, model string, texts []string) ([][]float32, int, error) {
	vecs, tokens, err := p.embed(ctx, model, texts)
	return vecs, tokens, p.red.error(err)
}

func (p *OpenAI) embed(ctx context.Context, model string, texts []string) ([][]float32, int, error) {
	if len(texts) == 0 {
		return nil, 0, nil
	}
	params := openai.EmbeddingNewParams{
		Model:          model,
		Input:          openai.EmbeddingNewParamsInputUnion{OfArrayOfStrings: texts},
		EncodingFormat: openai.EmbeddingNewParamsEncodingFormatFloat,
	}
	var resp *openai.CreateEmbeddingResponse
	err := embedCall(ctx, p.retry, p.cfg, model, len(texts), func(ctx context.Context) error {
		var err error
		resp, err = p.client.Embeddings.New(ctx, params)
		return err
	}, func(err error, x *exchange) error { return p.classify(err, x, model, false, 0, false) })
	if err != nil {
		return nil, 0, err
	}
	vecs := make([][]float32, len(texts))
	for _, d := range resp.Data {
		if d.Index < 0 || int(d.Index) >= len(texts) || vecs[d.Index] != nil {
			return nil, 0, newError(KindBadResponse, nil, "the embedding model %s answered with an embedding for input %d of %d", model, d.Index, len(texts))
		}
		v := make([]float32, len(d.Embedding))
		for i, x := range d.Embedding {
			v[i] = float32(x)
		}
		vecs[d.Index] = v
	}
	if err := checkVectors(model, len(texts), vecs); err != nil {
		return nil, 0, err
	}
	return vecs, int(resp.Usage.PromptTokens), nil
}

// Bounds of an embedding answer: what the vectors of n texts can need as
// JSON, generously. The embedding models in common use have at most 4,096
// dimensions (OpenAI's largest 3,072, nomic-embed-text 768); a number is
// at most about 25 characters with its comma ("-1.2345678901234567e-05,").
// An answer past maxEmbedAnswer(n) is a bad answer, read no further: a
// server that streams without end cannot fill the memory.
const (
	maxEmbedDimensions = 8192
	maxEmbedNumberJSON = 32       // bytes of one number and its comma
	embedAnswerSlack   = 64 << 10 // the answer's other fields
	embedVectorBytes   = maxEmbedDimensions * maxEmbedNumberJSON
)

// maxEmbedAnswer is how many bytes the answer for n texts may have:
// 320 KiB for one query, 8.1 MiB for a batch of 32 chunks.
func maxEmbedAnswer(n int) int64 { return embedAnswerSlack + int64(n)*embedVectorBytes }

// embedCall makes one embedding request of n texts, call, under the retry
// policy. The answer is not streamed, so the idle timeout bounds each
// attempt whole, and its size is bounded by maxEmbedAnswer(n); classify
// names a failure that is neither of those nor the caller's cancellation.
func embedCall(ctx context.Context, retry retryPolicy, cfg Config, model string, n int, call func(context.Context) error, classify func(error, *exchange) error) error {
	return retry.run(ctx, func() (bool, error) {
		actx, cancel := context.WithTimeoutCause(ctx, cfg.IdleTimeout, errIdle)
		defer cancel()
		xctx, x := withExchange(actx)
		x.limit = maxEmbedAnswer(n)
		err := call(xctx)
		switch {
		case err == nil:
			return false, nil
		case x.tooLarge():
			return false, newError(KindBadResponse, errAnswerTooLarge, "the embedding model %s answered more than %d KiB for %s, more than its vectors can need: not read further",
				model, x.limit>>10, textfmt.Count(n, "text"))
		case fired(actx):
			return false, embedTimeout(model, cfg)
		case ctx.Err() != nil:
			return false, ctx.Err()
		}
		return false, classify(err, x)
	})
}

func embedTimeout(model string, cfg Config) *Error {
	return newError(KindTimeout, context.DeadlineExceeded,
		"the embedding model %s did not answer within %v (raise DOCENT_IDLE_TIMEOUT for a slow machine)", model, cfg.IdleTimeout)
}

// checkVectors refuses an answer that would store wrong vectors: one
// missing, of differing dimensions, with a NaN or infinite value, or all
// zero (no direction, so no similarity to anything).
func checkVectors(model string, n int, vecs [][]float32) error {
	if len(vecs) != n {
		return newError(KindBadResponse, nil, "the embedding model %s answered %d vectors for %d texts", model, len(vecs), n)
	}
	for i, v := range vecs {
		if len(v) == 0 {
			return newError(KindBadResponse, nil, "the embedding model %s answered no vector for text %d", model, i+1)
		}
		if len(v) != len(vecs[0]) {
			return newError(KindBadResponse, nil, "the embedding model %s answered vectors of %d and %d dimensions in one batch", model, len(vecs[0]), len(v))
		}
		var norm float64
		for _, x := range v {
			f := float64(x)
			if math.IsNaN(f) || math.IsInf(f, 0) {
				return newError(KindBadResponse, nil, "the embedding model %s answered a vector with %v in it for text %d", model, f, i+1)
			}
			norm += f * f
		}
		if norm == 0 {
			return newError(KindBadResponse, nil, "the embedding model %s answered a zero vector for text %d", model, i+1)
		}
	}
	return nil
}
