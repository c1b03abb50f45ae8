package cli

import (
	"context"
	"flag"
	"fmt"
	"strings"

	"github.com/docent/docent/agent"
	"github.com/docent/docent/agent/textfmt"
	"github.com/docent/docent/app/pipeline"
	"github.com/docent/docent/storage"
	"github.com/docent/docent/storage/fault"
)

// runSearch is `docent search`: the search of the agent's search_docs and
// GET /api/search, over every document, after embedding the chunks still
// missing (when an embedding model is set).
func runSearch(ctx context.Context, env *Env, args []string) error {
	fs := flag.NewFlagSet("search", flag.ContinueOnError)
	limit := fs.Int("limit", storage.DefaultSearchLimit, "")
	var tags stringList
	fs.Var(&tags, "tag", "")
	kind := fs.String("kind", "", "")
	by := fs.String("by", "", "")
	asJSON := fs.Bool("json", false, "")
	words, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(words) == 0 {
		return usagef("search needs a query\n%s", usageLine("search"))
	}
	query := strings.Join(words, " ")
	switch *by {
	case "", storage.ByWords, storage.ByMeaning, storage.ByBoth:
	default:
		return usagef("--by %q: want words, meaning or both\n%s", *by, usageLine("search"))
	}
	if *limit < 1 || *limit > storage.MaxSearchLimit {
		return usagef("--limit %d: want 1 to %d", *limit, storage.MaxSearchLimit)
	}
	if err := storage.CheckSearchQuery(query); err != nil {
		return err
	}
	db, err := env.Store(ctx)
	if err != nil {
		return err
	}
	req := agent.SearchRequest{Query: query, Limit: *limit, By: *by}
	for _, name := range tags {
		tag, err := db.FindTag(ctx, name)
		if err != nil {
			return err
		}
		req.TagIDs = append(req.TagIDs, tag.ID)
	}
	if *kind != "" {
		s, err := db.FindSchema(ctx, *kind)
		if err != nil {
			return err
		}
		req.KindID = s.SchemaID
	}
	live, err := env.Settings(ctx)
	if err != nil {
		return err
	}
	emb := live.Agent().Embedder
	if *by != storage.ByWords && emb.On() {
		if err := embedMissing(ctx, env, db, emb, query); err != nil {
			return err
		}
	}
	res, err := emb.Search(ctx, db, req)
	if err != nil {
		return err
	}
	if *asJSON {
		return writeJSON(env.IO, res)
	}
	printSearch(env, query, res)
	return nil
}

func printSearch(env *Env, query string, res agent.SearchResult) {
	if res.Note != "" {
		fmt.Fprintf(env.IO.Err, "note: %s\n", textfmt.Visible(res.Note))
	}
	if len(res.Hits) == 0 {
		fmt.Fprintf(env.IO.Err, "nothing found for %q (by %s)\n", query, res.By)
		return
	}
	for i, h := range res.Hits {
		fmt.Fprintf(env.IO.Out, "%d. %s  page %d  by %s  (%s, chunk %d)\n   %s\n", i+1, textfmt.Visible(h.DocumentName), h.Page, h.Matched, h.DocumentID, h.ChunkID, textfmt.Visible(strings.Join(strings.Fields(h.Snippet), " ")))
	}
	if res.Model != "" {
		fmt.Fprintf(env.IO.Err, "by %s with %s\n", res.By, res.Model)
	}
}

// embedMissing embeds the chunks still without a vector, with a progress
// display on stderr. A model that fails leaves them waiting and says so:
// it is a note, not an error (search by words still works, and the next
// run embeds them). Only an interruption is returned.
//
// For a search (query set), the model is first asked for the query's
// vector, under the query's short deadline (agent.QueryEmbedTimeout): one
// that does not answer that in time would keep the person waiting for a
// batch's idle timeout (5 minutes) before the search went on by words.
// Import (query "") waits as background embedding does.
func embedMissing(ctx context.Context, env *Env, db *storage.DB, emb *agent.Embedder, query string) error {
	p, err := emb.Progress(ctx, "")
	if err != nil {
		return err
	}
	left := p.Chunks - p.Embedded
	if left <= 0 {
		return nil
	}
	if query != "" {
		if _, err := emb.EmbedQuery(ctx, query); err != nil {
			if ctx.Err() != nil {
				return fault.Errorf(fault.Canceled, "embedding interrupted: %w", ctx.Err())
			}
			fmt.Fprintf(env.IO.Err, "note: %s wait to be embedded with %s: %s\n", textfmt.Count(left, "chunk"), emb.Model, env.errorText(ctx, "embed chunks", err))
			return nil
		}
	}
	var bar *progress
	rep, err := env.pipeline(ctx, db).Embed(ctx, func(done, total int, model string) {
		if bar == nil {
			bar = newProgress(env.IO, total, "embedding")
		}
		bar.step(done, fmt.Sprintf("%s embedded with %s", textfmt.Count(done, "chunk"), model))
	})
	if bar != nil {
		bar.finish()
	}
	if err != nil {
		return err
	}
	printEmbedded(ctx, env, rep)
	return nil
}

// printEmbedded says on stderr what the embedding stage did: a model that
// failed is a note, not an error (search by words still works, and the
// next run embeds the chunks left).
func printEmbedded(ctx context.Context, env *Env, rep pipeline.EmbedReport) {
	switch {
	case rep.Err != nil:
		fmt.Fprintf(env.IO.Err, "note: %s wait to be embedded with %s: %s\n", textfmt.Count(rep.Waiting, "chunk"), rep.Model, env.errorText(ctx, "embed chunks", rep.Err))
	case rep.Embedded > 0:
		fmt.Fprintf(env.IO.Err, "embedded %s with %s\n", textfmt.Count(rep.Embedded, "chunk"), rep.Model)
	}
}
