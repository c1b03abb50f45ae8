package agent

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"time"

	"github.com/docent/docent/agent/provider"
	"github.com/docent/docent/agent/textfmt"
	"github.com/docent/docent/storage"
	"github.com/docent/docent/storage/fault"
)

// EmbedProvider turns texts into vectors with a model named with its
// provider ("ollama/nomic-embed-text"): provider.Registry.
type EmbedProvider interface {
	Embed(ctx context.Context, modelID string, texts []string) ([][]float32, error)
}

// Embedder embeds the chunks of every document with one embedding model,
// so that search can find them by meaning, and embeds queries with it.
// Its zero Model means search by meaning is off.
type Embedder struct {
	DB        *storage.DB
	Providers EmbedProvider
	// Model is the embedding model's id, provider-prefixed; "" for none.
	Model string
	// BatchSize is how many chunks go in one request (DefaultEmbedBatch
	// when 0).
	BatchSize int
	Logger    *slog.Logger

	mu sync.Mutex // one run at a time
}

// DefaultEmbedBatch is how many chunks one embedding request carries: big
// enough that a request's overhead is small, small enough that a run
// stopped part way loses little.
const DefaultEmbedBatch = 32

// maxEmbedChars caps the text of one chunk or query sent to the model.
// Chunks are about 1,000 characters; a query is capped at
// storage.MaxSearchQueryChars before it gets here.
const maxEmbedChars = 4000

// On reports whether an embedding model is set.
func (e *Embedder) On() bool { return e != nil && e.Model != "" }

// EmbedMissing embeds every chunk that has no vector by the model, in
// batches, each stored as it comes (so a run that is stopped, or whose
// model goes away, keeps what it did, and the next starts where it
// stopped). progress, when set, is called after each batch. A model that
// cannot be reached, times out or is not pulled ends the run with its
// error: the chunks left wait for the next. A chunk the model refuses
// (bad input, a bad answer) is skipped for this run and logged, so one
// chunk cannot hold up the rest. It returns how many chunks it embedded.
func (e *Embedder) EmbedMissing(ctx context.Context, progress func(done int)) (int, error) {
	if !e.On() {
		return 0, fault.Errorf(fault.Invalid, "no embedding model is set")
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	batch := e.BatchSize
	if batch <= 0 {
		batch = DefaultEmbedBatch
	}
	var after int64
	done := 0
	for {
		chunks, err := e.DB.ChunksToEmbed(ctx, e.Model, after, batch)
		if err != nil {
			return done, err
		}
		if len(chunks) == 0 {
			return done, nil
		}
		after = chunks[len(chunks)-1].ID
		n, err := e.embedBatch(ctx, chunks)
		done += n
		if err != nil {
			return done, err
		}
		if progress != nil {
			progress(done)
		}
	}
}

// embedBatch embeds and stores chunks. When the model refuses the batch
// or answers it wrongly, each chunk is tried alone and the ones it
// refuses are skipped.
func (e *Embedder) embedBatch(ctx context.Context, chunks []storage.ChunkToEmbed) (int, error) {
	err := e.embedChunks(ctx, chunks)
	if err == nil {
		return len(chunks), nil
	}
	if !refusedInput(err) || len(chunks) == 1 {
		if refusedInput(err) {
			e.logger().WarnContext(ctx, "a chunk could not be embedded; it is skipped until the next run", "model", e.Model, "chunk", chunks[0].ID, "error", err)
			return 0, nil
		}
		return 0, err
	}
	done := 0
	for _, c := range chunks {
		n, err := e.embedBatch(ctx, []storage.ChunkToEmbed{c})
		if err != nil {
			return done, err
		}
		done += n
	}
	return done, nil
}

func (e *Embedder) embedChunks(ctx context.Context, chunks []storage.ChunkToEmbed) error {
	_, prefix := embedPrefix(e.Model)
	texts := make([]string, len(chunks))
	for i, c := range chunks {
		text, _ := textfmt.Cut(c.Text, maxEmbedChars)
		texts[i] = prefix + text
	}
	vecs, err := e.Providers.Embed(ctx, e.Model, texts)
	if err != nil {
		return fmt.Errorf("embed with %s: %w", e.Model, err)
	}
	out := make([]storage.ChunkVector, len(chunks))
	for i, c := range chunks {
		out[i] = storage.ChunkVector{ChunkID: c.ID, Vector: vecs[i]}
	}
	return e.DB.StoreVectors(ctx, e.Model, out)
}

// refusedInput reports an error about what was sent or answered for it,
// rather than the model being unreachable: worth trying chunk by chunk.
func refusedInput(err error) bool {
	k := provider.ErrorKind(err)
	return k == provider.KindRejected || k == provider.KindBadResponse || k == provider.KindContextOverflow
}

// QueryEmbedTimeout is how long a search waits for its query's vector:
// someone waits for the answer, and a search by words is better than
// none, so a model that is slower than this (hung, or loading for
// longer) leaves the search to words, with a note that says why.
// Embedding chunks in the background keeps the provider's idle timeout
// (DOCENT_IDLE_TIMEOUT, 5 minutes).
const QueryEmbedTimeout = 5 * time.Second

// EmbedQuery is the vector of a search query, with the query prefix of
// the model's family (embedPrefix), or a timeout error once the model
// has taken QueryEmbedTimeout.
func (e *Embedder) EmbedQuery(ctx context.Context, query string) ([]float32, error) {
	prefix, _ := embedPrefix(e.Model)
	text, _ := textfmt.Cut(strings.TrimSpace(query), maxEmbedChars)
	qctx, cancel := context.WithTimeout(ctx, QueryEmbedTimeout)
	defer cancel()
	vecs, err := e.Providers.Embed(qctx, e.Model, []string{prefix + text})
	if err != nil {
		if ctx.Err() == nil && errors.Is(qctx.Err(), context.DeadlineExceeded) {
			return nil, fault.Errorf(fault.Timeout, "the embedding model %s did not answer the query within %v", e.Model, QueryEmbedTimeout)
		}
		return nil, err
	}
	return vecs[0], nil
}

// Progress is how far the chunks are embedded with the model.
func (e *Embedder) Progress(ctx context.Context, documentID string) (storage.EmbedProgress, error) {
	if !e.On() {
		return storage.EmbedProgress{}, nil
	}
	return e.DB.EmbedProgress(ctx, e.Model, documentID)
}

func (e *Embedder) logger() *slog.Logger {
	if e.Logger != nil {
		return e.Logger
	}
	return slog.Default()
}

// errMeaningOff is the note of a search without an embedding model.
var errMeaningOff = errors.New("search by meaning is off: no embedding model is set (choose one in Settings, or --embed-model / DOCENT_EMBED_MODEL, e.g. ollama/" + provider.SuggestedEmbedModel + " after `ollama pull " + provider.SuggestedEmbedModel + "`)")
