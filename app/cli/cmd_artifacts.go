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

func runSchemas(ctx context.Context, env *Env, args []string) error {
	return subcommand(ctx, env, args, listSchemas, map[string]func(context.Context, *Env, []string) error{
		"create": createSchema,
		"show":   showSchema,
	})
}

func listSchemas(ctx context.Context, env *Env, args []string) error {
	fs := flag.NewFlagSet("schemas", flag.ContinueOnError)
	asJSON := fs.Bool("json", false, "")
	if rest, err := parseFlags(fs, args); err != nil {
		return err
	} else if len(rest) > 0 {
		return usagef("unknown schemas command %q\n%s", rest[0], usageLine("schemas"))
	}
	db, err := env.Store(ctx)
	if err != nil {
		return err
	}
	schemas, _, err := db.ListSchemas(ctx, storage.ListFilter{Limit: 1000})
	if err != nil {
		return err
	}
	if *asJSON {
		return writeJSON(env.IO, map[string]any{"schemas": schemas})
	}
	if len(schemas) == 0 {
		fmt.Fprintln(env.IO.Err, "no schemas; create one with: docent schemas create --name NAME --file FILE.json")
		return nil
	}
	t := newTable(env.IO.Out, "SCHEMA", "NAME", "VERSION", "REVISION", "CREATED")
	for _, s := range schemas {
		t.row(s.SchemaID, s.Name, fmt.Sprint(s.Version), s.SchemaRevID, formatTime(s.CreatedAt))
	}
	return t.flush()
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
	fmt.Fprintf(env.IO.Out, "created schema %s (%s), version %d, revision %s\n", textfmt.Visible(res.Name), res.SchemaID, res.Version, res.SchemaRevID)
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

func runPrompts(ctx context.Context, env *Env, args []string) error {
	return subcommand(ctx, env, args, listPrompts, map[string]func(context.Context, *Env, []string) error{
		"create": createPrompt,
	})
}

func listPrompts(ctx context.Context, env *Env, args []string) error {
	fs := flag.NewFlagSet("prompts", flag.ContinueOnError)
	asJSON := fs.Bool("json", false, "")
	if rest, err := parseFlags(fs, args); err != nil {
		return err
	} else if len(rest) > 0 {
		return usagef("unknown prompts command %q\n%s", rest[0], usageLine("prompts"))
	}
	db, err := env.Store(ctx)
	if err != nil {
		return err
	}
	prompts, _, err := db.ListPrompts(ctx, storage.PromptFilter{Limit: 1000})
	if err != nil {
		return err
	}
	if *asJSON {
		return writeJSON(env.IO, map[string]any{"prompts": prompts})
	}
	if len(prompts) == 0 {
		fmt.Fprintln(env.IO.Err, "no prompts; create one with: docent prompts create --name NAME --content TEXT --schema SCHEMA")
		return nil
	}
	t := newTable(env.IO.Out, "PROMPT", "NAME", "VERSION", "REVISION", "SCHEMA", "MODEL")
	for _, p := range prompts {
		schemaRef := "-"
		if p.SchemaID != "" {
			schemaRef = fmt.Sprintf("%s v%d", p.SchemaID, p.SchemaVersion)
		}
		t.row(p.PromptID, p.Name, fmt.Sprint(p.Version), p.PromptRevID, schemaRef, cmp.Or(p.Model, "-"))
	}
	return t.flush()
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
	fmt.Fprintf(env.IO.Out, "created prompt %s (%s), version %d, revision %s\n", textfmt.Visible(rev.Name), rev.PromptID, rev.Version, rev.PromptRevID)
	return nil
}

func runTags(ctx context.Context, env *Env, args []string) error {
	return subcommand(ctx, env, args, listTags, map[string]func(context.Context, *Env, []string) error{
		"create": createTag,
	})
}

func listTags(ctx context.Context, env *Env, args []string) error {
	fs := flag.NewFlagSet("tags", flag.ContinueOnError)
	asJSON := fs.Bool("json", false, "")
	if rest, err := parseFlags(fs, args); err != nil {
		return err
	} else if len(rest) > 0 {
		return usagef("unknown tags command %q\n%s", rest[0], usageLine("tags"))
	}
	db, err := env.Store(ctx)
	if err != nil {
		return err
	}
	tags, err := db.ListTags(ctx)
	if err != nil {
		return err
	}
	if *asJSON {
		return writeJSON(env.IO, map[string]any{"tags": tags})
	}
	if len(tags) == 0 {
		fmt.Fprintln(env.IO.Err, "no tags; create one with: docent tags create --name NAME")
		return nil
	}
	t := newTable(env.IO.Out, "TAG", "NAME", "COLOR", "DESCRIPTION")
	for _, tag := range tags {
		t.row(tag.ID, tag.Name, cmp.Or(tag.Color, "-"), tag.Description)
	}
	return t.flush()
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
