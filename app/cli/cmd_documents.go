package cli

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/docent/docent/agent/evidence"
	"github.com/docent/docent/agent/textfmt"
	"github.com/docent/docent/storage"
	"github.com/docent/docent/storage/fault"
)

// documentList is the JSON shape of a list of documents, as in the HTTP API.
type documentList struct {
	Documents []storage.ListedDocument `json:"documents"`
	Total     int                      `json:"total"`
}

func runDocuments(ctx context.Context, env *Env, args []string) error {
	fs := flag.NewFlagSet("documents", flag.ContinueOnError)
	search := fs.String("search", "", "")
	var tags stringList
	fs.Var(&tags, "tag", "")
	limit := fs.Int("limit", 50, "")
	offset := fs.Int("offset", 0, "")
	asJSON := fs.Bool("json", false, "")
	sort := fs.String("sort", "", "")
	order := fs.String("order", "", "")
	rest, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(rest) > 0 {
		return usagef("documents takes no arguments (got %q)\n%s", rest[0], usageLine("documents"))
	}
	if *limit < 1 || *offset < 0 {
		return usagef("--limit must be at least 1 and --offset not negative")
	}
	db, err := env.Store(ctx)
	if err != nil {
		return err
	}
	filter := storage.DocumentFilter{Search: *search, Limit: *limit, Offset: *offset, Sort: storage.DocumentSort(*sort), Order: *order}
	for _, name := range tags {
		tag, err := db.FindTag(ctx, name)
		if err != nil {
			return err
		}
		filter.TagIDs = append(filter.TagIDs, tag.ID)
	}
	docs, total, err := db.ListDocumentsWithKinds(ctx, filter)
	if err != nil {
		return err
	}
	if *asJSON {
		return writeJSON(env.IO, documentList{Documents: docs, Total: total})
	}
	if total == 0 {
		fmt.Fprintln(env.IO.Err, "no documents; add some with: docent import PATH")
		return nil
	}
	t := newTable(env.IO.Out, "ID", "NAME", "PAGES", "STATUS", "SIZE", "IMPORTED")
	for _, d := range docs {
		t.row(d.ID, textfmt.Shorten(d.Name, 48), fmt.Sprint(d.Pages), d.Status, humanSize(d.Size), formatTime(d.CreatedAt))
	}
	if err := t.flush(); err != nil {
		return err
	}
	if len(docs) < total {
		fmt.Fprintf(env.IO.Err, "showing %d-%d of %d (use --limit and --offset for more)\n", *offset+1, *offset+len(docs), total)
	}
	return nil
}

func runShow(ctx context.Context, env *Env, args []string) error {
	fs := flag.NewFlagSet("show", flag.ContinueOnError)
	asJSON := fs.Bool("json", false, "")
	db, doc, err := documentArg(ctx, env, fs, args)
	if err != nil {
		return err
	}
	// The document's newest extraction, with where each value stands.
	var latest *storage.Extraction
	if x, err := db.LatestExtraction(ctx, doc.ID, ""); err == nil {
		latest = &x
	} else if !errors.Is(err, storage.ErrNotFound) {
		return err
	}
	if *asJSON {
		return writeJSON(env.IO, struct {
			storage.Document
			Extraction *storage.Extraction `json:"extraction,omitempty"`
		}{doc, latest})
	}
	tagNames := make([]string, 0, len(doc.TagIDs))
	for _, id := range doc.TagIDs {
		tag, err := db.GetTag(ctx, id)
		if err != nil {
			return err
		}
		tagNames = append(tagNames, tag.Name)
	}
	w := env.IO.Out
	fmt.Fprintf(w, "%s\n", textfmt.Visible(doc.Name))
	fmt.Fprintf(w, "  id        %s\n", doc.ID)
	fmt.Fprintf(w, "  type      %s, %s\n", doc.MediaType, humanSize(doc.Size))
	fmt.Fprintf(w, "  pages     %d\n", doc.Pages)
	fmt.Fprintf(w, "  status    %s\n", doc.Status)
	if doc.Error != "" {
		fmt.Fprintf(w, "  error     %s\n", textfmt.Visible(doc.Error))
	}
	if len(tagNames) > 0 {
		fmt.Fprintf(w, "  tags      %s\n", textfmt.Visible(strings.Join(tagNames, ", ")))
	}
	fmt.Fprintf(w, "  sha256    %s\n", doc.SHA256)
	fmt.Fprintf(w, "  imported  %s\n", formatTime(doc.CreatedAt))
	if m := string(doc.Metadata); m != "" && m != "{}" {
		fmt.Fprintf(w, "  metadata  %s\n", textfmt.Visible(m))
	}
	if latest != nil {
		printExtractionEvidence(w, *latest)
	}
	return nil
}

// printExtractionEvidence prints an extraction's values one per line, each
// with the page and text it was found as, or why it was not.
func printExtractionEvidence(w io.Writer, x storage.Extraction) {
	fmt.Fprintf(w, "\nextraction %s (%s, by %s)\n", x.ID, x.ValidationStatus, textfmt.Visible(x.Model))
	leaves, err := evidence.Leaves(x.Value)
	if err != nil || len(leaves) == 0 {
		fmt.Fprintf(w, "  no value\n")
		return
	}
	var m evidence.Map
	_ = json.Unmarshal(x.Evidence, &m)
	tw := tabwriter.NewWriter(w, 2, 4, 2, ' ', 0)
	for _, l := range leaves {
		b, _ := json.Marshal(l.Value)
		where := ""
		switch e, ok := m[l.Path]; {
		case !ok:
		case e.Status == evidence.Grounded:
			where = fmt.Sprintf("page %d: %q", e.Page, textfmt.Shorten(e.Quote, 40))
		case e.Status == evidence.Ambiguous:
			where = fmt.Sprintf("page %d: %q (and %d other places)", e.Page, textfmt.Shorten(e.Quote, 40), max(len(e.Candidates)-1, 1))
		case e.Status == evidence.Ungrounded:
			where = "NOT FOUND in the document"
		case e.Status == evidence.Edited:
			where = "edited by hand"
		}
		fmt.Fprintf(tw, "  %s\t%s\t%s\n", textfmt.Visible(l.Path), textfmt.Visible(textfmt.Shorten(string(b), 50)), where)
	}
	tw.Flush()
}

func runText(ctx context.Context, env *Env, args []string) error {
	fs := flag.NewFlagSet("text", flag.ContinueOnError)
	page := fs.Int("page", 0, "")
	db, doc, err := documentArg(ctx, env, fs, args)
	if err != nil {
		return err
	}
	if isFlagSet(fs, "page") {
		text, err := db.PageText(ctx, doc.ID, *page)
		if err != nil {
			return err
		}
		fmt.Fprintln(env.IO.Out, strings.TrimRight(text, "\n"))
		return nil
	}
	return writeText(ctx, env.IO.Out, db, doc)
}

// textBatchBytes is about how much page text `docent text` reads from the
// store at a time, as the server's GET .../text does: a document's text is
// written as it is read, so a 256 MiB text file's 4,096 pages never sit in
// memory at once.
const textBatchBytes = 1 << 20

// writeText writes every page of doc's text to w, each after a header
// when there are several, reading a batch of pages at a time.
func writeText(ctx context.Context, w io.Writer, db *storage.DB, doc storage.Document) error {
	batch, pages, err := db.PageTexts(ctx, doc.ID, 1, textBatchBytes)
	if err != nil {
		return err
	}
	if len(batch) == 0 && doc.Error != "" {
		return fault.Errorf(fault.Invalid, "%s has no text: %s", doc.Name, doc.Error)
	}
	out := bufio.NewWriterSize(w, 64<<10)
	for len(batch) > 0 {
		for _, p := range batch {
			if pages > 1 {
				fmt.Fprintf(out, "=== page %d of %d ===\n", p.Page, pages)
			}
			out.WriteString(strings.TrimRight(p.Text, "\n"))
			if err := out.WriteByte('\n'); err != nil {
				return fmt.Errorf("write the text of %s: %w", doc.ID, err)
			}
		}
		next, err := db.MorePageTexts(ctx, doc.ID, batch, pages, textBatchBytes)
		if err != nil {
			out.Flush()
			return err
		}
		batch = next
	}
	if err := out.Flush(); err != nil {
		return fmt.Errorf("write the text of %s: %w", doc.ID, err)
	}
	return nil
}

// documentArg parses the flags of a command that takes exactly one document
// and finds that document by id or exact name.
func documentArg(ctx context.Context, env *Env, fs *flag.FlagSet, args []string) (*storage.DB, storage.Document, error) {
	rest, err := parseFlags(fs, args)
	if err != nil {
		return nil, storage.Document{}, err
	}
	if len(rest) != 1 {
		return nil, storage.Document{}, usagef("%s takes one document\n%s", fs.Name(), usageLine(fs.Name()))
	}
	db, err := env.Store(ctx)
	if err != nil {
		return nil, storage.Document{}, err
	}
	doc, err := db.FindDocument(ctx, rest[0])
	return db, doc, err
}

func runRemove(ctx context.Context, env *Env, args []string) error {
	fs := flag.NewFlagSet("rm", flag.ContinueOnError)
	refs, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(refs) == 0 {
		return usagef("rm needs at least one document\n%s", usageLine("rm"))
	}
	db, err := env.Store(ctx)
	if err != nil {
		return err
	}
	failed := 0
	for _, ref := range refs {
		doc, err := db.FindDocument(ctx, ref)
		if err == nil {
			err = db.DeleteDocument(ctx, doc.ID)
		}
		if err != nil {
			failed++
			fmt.Fprintf(env.IO.Err, "docent: %s: %s\n", ref, env.errorText(ctx, "docent rm "+ref, err))
			continue
		}
		fmt.Fprintf(env.IO.Out, "removed %s (%s)\n", doc.ID, textfmt.Visible(doc.Name))
	}
	if failed > 0 {
		return errPartial
	}
	return nil
}
