package cli

import (
	"cmp"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"strings"

	"github.com/docent/docent/agent"
	"github.com/docent/docent/agent/textfmt"
	"github.com/docent/docent/storage"
	"github.com/docent/docent/storage/fault"
)

// subcommand dispatches `docent NOUN VERB ...`; without a verb the noun lists.
func subcommand(ctx context.Context, env *Env, args []string, list func(context.Context, *Env, []string) error, verbs map[string]func(context.Context, *Env, []string) error) error {
	if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		if run, ok := verbs[args[0]]; ok {
			return run(ctx, env, args[1:])
		}
	}
	return list(ctx, env, args)
}

// listing is a noun's list command, `docent NOUN [--json]`: schemas,
// prompts and tags are its instances.
type listing[T any] struct {
	// noun is the command, and the key of the list --json writes.
	noun string
	load func(*storage.DB, context.Context) ([]T, error)
	// none is what stderr says when there are none, with how to make one.
	none   string
	header []string
	row    func(T) []string
}

func (l listing[T]) run(ctx context.Context, env *Env, args []string) error {
	fs := flag.NewFlagSet(l.noun, flag.ContinueOnError)
	asJSON := fs.Bool("json", false, "")
	if rest, err := parseFlags(fs, args); err != nil {
		return err
	} else if len(rest) > 0 {
		return usagef("unknown %s command %q\n%s", l.noun, rest[0], usageLine(l.noun))
	}
	db, err := env.Store(ctx)
	if err != nil {
		return err
	}
	items, err := l.load(db, ctx)
	if err != nil {
		return err
	}
	if *asJSON {
		return writeJSON(env.IO, map[string]any{l.noun: items})
	}
	if len(items) == 0 {
		fmt.Fprintln(env.IO.Err, l.none)
		return nil
	}
	t := newTable(env.IO.Out, l.header...)
	for _, item := range items {
		t.row(l.row(item)...)
	}
	return t.flush()
}

// printCreated says what a create command made of a versioned artifact.
func printCreated(env *Env, noun, name, id string, version int, revID string) {
	fmt.Fprintf(env.IO.Out, "created %s %s (%s), version %d, revision %s\n", noun, textfmt.Visible(name), id, version, revID)
}

var schemaListing = listing[storage.SchemaRevision]{
	noun: "schemas",
	load: func(db *storage.DB, ctx context.Context) ([]storage.SchemaRevision, error) {
		schemas, _, err := db.ListSchemas(ctx, storage.ListFilter{Limit: 1000})
		return schemas, err
	},
	none:   "no schemas; create one with: docent schemas create --name NAME --file FILE.json",
	header: []string{"SCHEMA", "NAME", "VERSION", "REVISION", "CREATED"},
	row: func(s storage.SchemaRevision) []string {
		return []string{s.SchemaID, s.Name, fmt.Sprint(s.Version), s.SchemaRevID, formatTime(s.CreatedAt)}
	},
}

func runSchemas(ctx context.Context, env *Env, args []string) error {
	return subcommand(ctx, env, args, schemaListing.run, map[string]func(context.Context, *Env, []string) error{
		"create": createSchema,
		"show":   showSchema,
	})
}

func createSchema(ctx context.Context, env *Env, args []string) error {
	fs := flag.NewFlagSet("schemas create", flag.ContinueOnError)
	name := fs.String("name", "", "")
	file := fs.String("file", "", "")
	asJSON := fs.Bool("json", false, "")
	if rest, err := parseFlags(fs, args); err != nil {
		return err
	} else if len(rest) > 0 || *name == "" || *file == "" {
		return usagef("schemas create needs --name and --file\n%s", usageLine("schemas"))
	}
	raw, err := os.ReadFile(*file)
	if err != nil {
		return fault.Errorf(fault.Invalid, "read schema: %w", err)
	}
	db, err := env.Store(ctx)
	if err != nil {
		return err
	}
	res, err := agent.CreateSchema(ctx, db, *name, raw)
	if err != nil {
		return err
	}
	for _, w := range res.Warnings {
		fmt.Fprintf(env.IO.Err, "warning: %s: %s\n", textfmt.Visible(w.Path), textfmt.Visible(w.Message))
	}
	if *asJSON {
		return writeJSON(env.IO, res)
	}
	printCreated(env, "schema", res.Name, res.SchemaID, res.Version, res.SchemaRevID)
	return nil
}

func showSchema(ctx context.Context, env *Env, args []string) error {
	fs := flag.NewFlagSet("schemas show", flag.ContinueOnError)
	asJSON := fs.Bool("json", false, "")
	rest, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(rest) != 1 {
		return usagef("schemas show takes one schema\n%s", usageLine("schemas"))
	}
	db, err := env.Store(ctx)
	if err != nil {
		return err
	}
	rev, err := db.FindSchema(ctx, rest[0])
	if err != nil {
		return err
	}
	if *asJSON {
		return writeJSON(env.IO, rev)
	}
	fmt.Fprintf(env.IO.Out, "%s (%s), version %d, revision %s, created %s\n", textfmt.Visible(rev.Name), rev.SchemaID, rev.Version, rev.SchemaRevID, formatTime(rev.CreatedAt))
	return writeIndented(env, rev.ResponseFormat)
}

func writeIndented(env *Env, raw json.RawMessage) error {
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		return fmt.Errorf("stored JSON: %w", err)
	}
	out, _ := json.MarshalIndent(v, "", "  ")
	_, err := fmt.Fprintln(env.IO.Out, textfmt.VisibleLines(string(out))) // JSON escapes controls, not bidi overrides
	return err
}

var promptListing = listing[storage.PromptRevision]{
	noun: "prompts",
	load: func(db *storage.DB, ctx context.Context) ([]storage.PromptRevision, error) {
		prompts, _, err := db.ListPrompts(ctx, storage.PromptFilter{Limit: 1000})
		return prompts, err
	},
	none:   "no prompts; create one with: docent prompts create --name NAME --content TEXT --schema SCHEMA",
	header: []string{"PROMPT", "NAME", "VERSION", "REVISION", "SCHEMA", "MODEL"},
	row: func(p storage.PromptRevision) []string {
		schemaRef := "-"
		if p.SchemaID != "" {
			schemaRef = fmt.Sprintf("%s v%d", p.SchemaID, p.SchemaVersion)
		}
		return []string{p.PromptID, p.Name, fmt.Sprint(p.Version), p.PromptRevID, schemaRef, cmp.Or(p.Model, "-")}
	},
}

func runPrompts(ctx context.Context, env *Env, args []string) error {
	return subcommand(ctx, env, args, promptListing.run, map[string]func(context.Context, *Env, []string) error{
		"create": createPrompt,
	})
}

func createPrompt(ctx context.Context, env *Env, args []string) error {
	fs := flag.NewFlagSet("prompts create", flag.ContinueOnError)
	name := fs.String("name", "", "")
	content := fs.String("content", "", "")
	file := fs.String("file", "", "")
	schemaRef := fs.String("schema", "", "")
	var tags stringList
	fs.Var(&tags, "tag", "")
	asJSON := fs.Bool("json", false, "")
	if rest, err := parseFlags(fs, args); err != nil {
		return err
	} else if len(rest) > 0 || *name == "" || (*content == "") == (*file == "") {
		return usagef("prompts create needs --name and one of --content or --file\n%s", usageLine("prompts"))
	}
	if *file != "" {
		b, err := os.ReadFile(*file)
		if err != nil {
			return fault.Errorf(fault.Invalid, "read prompt: %w", err)
		}
		*content = string(b)
	}
	db, err := env.Store(ctx)
	if err != nil {
		return err
	}
	// --model is a global flag, so it arrives in env rather than in fs.
	// A person's prompt is the one its kind extracts with.
	np := storage.NewPrompt{Name: *name, Content: *content, Model: env.ModelFlag, ForKind: true}
	if *schemaRef != "" {
		rev, err := db.FindSchema(ctx, *schemaRef)
		if err != nil {
			return err
		}
		np.SchemaID = rev.SchemaID
		if *schemaRef == rev.SchemaRevID {
			np.SchemaVersion = rev.Version // a revision id pins that version
		}
	}
	for _, ref := range tags {
		tag, err := db.FindTag(ctx, ref)
		if err != nil {
			return err
		}
		np.TagIDs = append(np.TagIDs, tag.ID)
	}
	rev, err := agent.CreatePrompt(ctx, db, np)
	if err != nil {
		return err
	}
	if *asJSON {
		return writeJSON(env.IO, rev)
	}
	printCreated(env, "prompt", rev.Name, rev.PromptID, rev.Version, rev.PromptRevID)
	return nil
}

var tagListing = listing[storage.Tag]{
	noun:   "tags",
	load:   (*storage.DB).ListTags,
	none:   "no tags; create one with: docent tags create --name NAME",
	header: []string{"TAG", "NAME", "COLOR", "DESCRIPTION"},
	row: func(tag storage.Tag) []string {
		return []string{tag.ID, tag.Name, cmp.Or(tag.Color, "-"), tag.Description}
	},
}

func runTags(ctx context.Context, env *Env, args []string) error {
	return subcommand(ctx, env, args, tagListing.run, map[string]func(context.Context, *Env, []string) error{
		"create": createTag,
	})
}

func createTag(ctx context.Context, env *Env, args []string) error {
	fs := flag.NewFlagSet("tags create", flag.ContinueOnError)
	name := fs.String("name", "", "")
	color := fs.String("color", "", "")
	description := fs.String("description", "", "")
	asJSON := fs.Bool("json", false, "")
	if rest, err := parseFlags(fs, args); err != nil {
		return err
	} else if len(rest) > 0 || *name == "" {
		return usagef("tags create needs --name\n%s", usageLine("tags"))
	}
	db, err := env.Store(ctx)
	if err != nil {
		return err
	}
	tag, err := db.CreateTag(ctx, storage.NewTag{Name: *name, Color: *color, Description: *description})
	if err != nil {
		return err
	}
	if *asJSON {
		return writeJSON(env.IO, tag)
	}
	fmt.Fprintf(env.IO.Out, "created tag %s (%s)\n", textfmt.Visible(tag.Name), tag.ID)
	return nil
}
