// Package cli is docent's command line: its commands (cmd_*.go), among
// them `docent --serve` and the desktop window that a bare `docent` opens,
// and what they print on a terminal. main calls Run. The commands run on
// the composition root (package app), which puts the store, the provider
// settings, the agent and the server together; the root does not know this
// package, so the dependency goes one way: cli -> app.
package cli

import (
	"cmp"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"slices"
	"strings"

	"github.com/docent/docent/agent/textfmt"
	"github.com/docent/docent/app"
	"github.com/docent/docent/app/inbox"
	"github.com/docent/docent/storage"
	"github.com/docent/docent/storage/envvar"
	"github.com/docent/docent/storage/fault"
)

// Exit statuses of the docent command, chosen in one place.
const (
	ExitOK      = 0
	ExitFailure = 1
	ExitUsage   = 2
)

// codeUsage is the command line's own error code: a mistake in how the
// command was called.
const codeUsage fault.Code = "usage"

// exitOf maps error codes to exit statuses, in one table; every other code
// exits ExitFailure.
var exitOf = map[fault.Code]int{
	codeUsage: ExitUsage,
}

func usagef(format string, args ...any) error {
	return fault.Errorf(codeUsage, format, args...)
}

// errPartial marks a batch that finished every item it could but not all of
// them; the command has already said which failed, so nothing more is printed.
var errPartial = errors.New("some items failed")

// Env is what every command gets: its streams, the global settings, and
// the composition root (app.Root: the data directory, the store, opened on
// first use so that `docent --help` never touches the disk, and the
// provider settings); the agent on the settings in effect is Agent
// (setup.go).
type Env struct {
	app.Root
	IO *IOStreams
	// ModelFlag is --model alone, for commands where the flag names a
	// model to record (prompts create) rather than a default to use.
	ModelFlag string
}

type command struct {
	name    string
	usage   string
	summary string
	run     func(ctx context.Context, env *Env, args []string) error
}

// parseThenRun makes a command of two steps, as the GitHub CLI's commands
// are made: parse reads the arguments into the command's options and
// refuses bad ones before anything is opened, and run does the work with
// them. Tests call parse alone.
func parseThenRun[O any](parse func(args []string) (O, error), run func(context.Context, *Env, O) error) func(context.Context, *Env, []string) error {
	return func(ctx context.Context, env *Env, args []string) error {
		opts, err := parse(args)
		if err != nil {
			return err
		}
		return run(ctx, env, opts)
	}
}

// commands lists every subcommand; `docent help` prints them in this order.
// It is a function, not a variable, because the commands themselves look up
// their usage line here.
func commands() []command {
	return []command{
		{"import", "import [--tag NAME]... [--password PW] [--no-ocr] [--no-embed] [--lang LANGS] [--auto-create [--model MODEL]] PATH...", "import files or folders (PDF, images, .txt, .md), read scans with OCR (--no-ocr: leave them waiting) and, with an embedding model set, embed their text for search by meaning (--no-embed: leave it for later); --auto-create queues them for auto-create (with --model, to run on that model)", parseThenRun(parseImport, runImport)},
		{"inbox", "inbox DIR [--once] [--json]", "watch a folder and import each file put in it once it stops changing, tagged with its subfolders' names and queued for auto-create; files are remembered, so nothing is imported twice (--once: import what is there and exit, for cron; --json: a line per change, or with --once the folder's files at the end)", parseThenRun(parseInbox, runInbox)},
		{"ocr", "ocr (DOC... | --all) [--lang LANGS] [--vision MODEL [--vision-all] [--vision-timeout D]] [--json]", "read documents' scanned pages and images with OCR (again: another language, say); --all: every document with such pages; --vision MODEL: a vision model reads the photos and the pages OCR read poorly (--vision-all: every page)", parseThenRun(parseOCR, runOCR)},
		{"documents", "documents [--search Q] [--tag NAME] [--limit N] [--sort name|created_at|kind|auto_create_status|extraction_status] [--order asc|desc] [--json]", "list documents", runDocuments},
		{"show", "show DOC [--json]", "show one document", runShow},
		{"text", "text DOC [--page N]", "print a document's text", runText},
		{"search", "search QUERY [--limit N] [--tag T]... [--kind KIND] [--by words|meaning|both] [--json]", "search every document's text by words and, with an embedding model set, by meaning (the default, both; words: exact words only); chunks not yet embedded are embedded first", runSearch},
		{"rm", "rm DOC...", "remove documents and everything made from them", runRemove},
		{"schemas", "schemas [--json] | schemas create --name NAME --file FILE.json | schemas show SCHEMA [--json]", "list, create and show schemas", runSchemas},
		{"prompts", "prompts [--json] | prompts create --name NAME (--content TEXT | --file FILE) [--schema SCHEMA] [--model MODEL] [--tag NAME]...", "list and create extraction prompts", runPrompts},
		{"tags", "tags [--json] | tags create --name NAME [--color HEX]", "list and create tags", runTags},
		{"extract", "extract --prompt PROMPT [--model MODEL] [--json] DOC...", "run an extraction prompt on documents", parseThenRun(parseExtract, runExtract)},
		{"models", "models [--json]", "list the models of the configured providers", runModels},
		{"chat", "chat DOC [MESSAGE] [--thread ID] [--auto-approve] [--approve-tools a,b] [--mention TYPE:ID]... [--verbose] [--json]", "talk with the agent about a document (MESSAGE from stdin when missing; on a terminal it asks before each write)", runChat},
		{"approve", "approve TURN_ID (--all | --approve CALL_ID... --reject CALL_ID...) [--verbose] [--json]", "approve or reject the tool calls a paused turn waits for", runApprove},
		{"ask", "ask QUESTION [--thread ID] [--model M] [--json]", "ask about all your documents and their extracted data: the agent searches, reads and queries (read-only) and answers with numbered citations, printed as footnotes; --json: the result object", runAsk},
		{"threads", "threads (DOC | --ask) [THREAD] [--json]", "list a document's conversations or Ask Docent's, or show one", runThreads},
		{"auto-create", "auto-create [--model MODEL] [--concurrency N] [--timeout DURATION] [--stale-after DURATION] [--schema SCHEMA | --shared] [--tag NAME]... [--json] (PATH... | --all)", "let the agent propose a schema, prompt and extraction for each document (PATHs are imported first; --all: every document not yet proposed or accepted)", parseThenRun(parseAutoCreate, runAutoCreate)},
		{"eval", "eval --prompt PROMPT (--truth DIR | --corrections) [--model MODEL] [--baseline EVALUATION] [--json]", "measure a prompt against known values: JSON files named after the documents (NAME.json, NAME.expected.json), or the values corrected by hand; reports per field exact, wrong, missing, extra and how many were found in the document (nothing is stored but the report)", runEval},
		{"history", "history [--document DOC] [--limit N] [--json]", "list the changes made to documents, schemas, prompts, tags, kinds and extractions, newest first: when, through which edge (agent, auto_create, ui, cli, mcp), by whom, and what", runHistory},
		{"undo", "undo (ENTRY | --turn TURN | --run RUN) [--cascade] [--json]", "take back a change of the history, or every change of a chat turn or an auto-create run (newest first, all or nothing); --cascade also takes back the later changes that depend on it", runUndo},
		{"export", "export (--schema SCHEMA [--prompt PROMPT] | --prompt PROMPT) [--tag NAME]... [--format csv|json|jsonl|xlsx] [--out FILE] [--explode PATH] [--raw] [--evidence]", "export a table of extracted data: with --schema, a row per document whose latest extraction used the schema; with --prompt alone, the prompt's latest extraction of each document (CSV cells that begin like a formula get a leading ' unless --raw; --evidence adds each value's page and the values not found in the document)", parseThenRun(parseExport, runExport)},
		{"sql", "sql QUERY [--format table|csv|json]", "run one read-only SELECT over the extracted data, as the agent's query_data does: a view per schema (a row per document, a column per field) and documents; at most 10,000 rows are printed (a note says how many there were)", runSQL},
		{"usage", "usage [--since DATE] [--by day|model|edge|run] [--json] | usage limit [--daily N] [--monthly N] [--unit tokens|usd] [--all-models] [--per-minute N] | usage limit --off | usage price [MODEL --input X --output Y [--cached Z] | MODEL --off]", "what the model calls spent, from the usage ledger (every call: tokens, time and cost; \"price unknown\" where no price is known), summed by day, model, edge or run since DATE; usage limit sets spending limits per day and per month, in tokens or USD, on hosted models or with --all-models on local ones too (0: nothing may be spent; --off removes them; without flags it shows them), and --per-minute the most model-calling requests docent --serve answers a minute; usage price lists the models' prices, or sets a model's by hand (USD per million tokens) over the price list's", runUsage},
		{"mcp", "mcp [--read-only]", "serve Docent's tools, documents and prompts to an MCP client (Claude Desktop, Claude Code, Cursor) on stdin and stdout; --read-only: only the tools that change nothing", runMCP},
	}
}

// usageLine is the usage of the named subcommand, for its error messages.
func usageLine(name string) string {
	for _, c := range commands() {
		if c.name == name {
			return "usage: docent " + c.usage
		}
	}
	return "see docent help"
}

// Run runs docent with the arguments that follow the program name and returns
// the exit status. Global flags (--data-dir, --model) may stand before or
// after the subcommand.
func Run(ctx context.Context, args []string, ios *IOStreams) int {
	logger := slog.New(slog.NewTextHandler(ios.Err, &slog.HandlerOptions{Level: slog.LevelWarn}))
	env := &Env{Root: app.Root{Logger: logger}, IO: ios}
	err := run(ctx, env, args)
	if cerr := env.Close(); cerr != nil && err == nil {
		err = fmt.Errorf("close the database: %w", cerr)
	}
	return reportError(ctx, ios.Err, env.Logger, commandName(args), err)
}

// commandName is what a run of docent does, for the log: "docent import".
func commandName(args []string) string {
	if _, rest, err := splitGlobalFlags(args); err == nil && len(rest) > 0 && !strings.HasPrefix(rest[0], "-") {
		return "docent " + rest[0]
	}
	return "docent"
}

func run(ctx context.Context, env *Env, args []string) error {
	globals, rest, err := splitGlobalFlags(args)
	if err != nil {
		return err
	}
	env.DataDir = cmp.Or(globals["data-dir"], envvar.Get(envvar.DataDir))
	if env.DataDir == "" {
		if env.DataDir, err = app.DefaultDataDir(); err != nil {
			return err
		}
	}
	env.ModelFlag = globals["model"]
	env.Model = cmp.Or(env.ModelFlag, envvar.Get(envvar.Model))
	env.EmbedModel = cmp.Or(globals["embed-model"], envvar.Get(envvar.EmbedModel))

	root, err := parseRoot(rest)
	if err != nil {
		return err
	}
	switch {
	case root.Help:
		printHelp(env.IO.Out)
		return nil
	case root.Version:
		fmt.Fprint(env.IO.Out, app.VersionText())
		return nil
	case len(root.Command) > 0:
		name, args := root.Command[0], root.Command[1:]
		if name == "help" {
			topic := ""
			if len(args) > 0 {
				topic = args[0]
			}
			switch topic {
			case "":
				printHelp(env.IO.Out)
			case "env":
				printEnvHelp(env.IO.Out)
			default:
				return usagef("no help on %q (docent help, docent help env)", topic)
			}
			return nil
		}
		for _, c := range commands() {
			if c.name == name {
				// The command's changes are journaled as its own.
				ctx := storage.WithActor(ctx, storage.Actor{Edge: storage.EdgeCLI, Name: "docent " + name})
				return c.run(ctx, env, args)
			}
		}
		return usagef("unknown command %q (see docent help)", name)
	case root.Serving:
		return runServe(ctx, env, root.Serve)
	default:
		return runDesktop(ctx, env)
	}
}

// rootOptions are the flags of docent itself, before any command.
type rootOptions struct {
	Help, Version bool
	// Serving is --serve; Serve holds its flags, which go with it alone.
	Serving bool
	Serve   serveOptions
	// Command is the command named and its arguments, left to it to parse.
	Command []string
}

func parseRoot(args []string) (rootOptions, error) {
	var o rootOptions
	top := flag.NewFlagSet("docent", flag.ContinueOnError)
	top.SetOutput(io.Discard)
	top.BoolVar(&o.Serving, "serve", false, "")
	top.StringVar(&o.Serve.Listen, "listen", defaultListen, "")
	top.Int64Var(&o.Serve.MaxUploadMiB, "max-upload", defaultMaxUploadMiB, "")
	top.StringVar(&o.Serve.TLSCert, "tls-cert", "", "")
	top.StringVar(&o.Serve.TLSKey, "tls-key", "", "")
	top.BoolVar(&o.Serve.InsecureHTTP, "insecure-http", false, "")
	top.StringVar(&o.Serve.Inbox, "inbox", "", "")
	top.BoolVar(&o.Version, "version", false, "")
	if err := top.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			o.Help = true
			return o, nil
		}
		return o, usagef("%v", err)
	}
	if top.NArg() > 0 {
		o.Command = top.Args()
	}
	switch {
	case o.Version || len(o.Command) > 0:
		// --version and a command come first; the serve flags are not
		// theirs and are not checked.
	case o.Serving:
		if err := o.Serve.check(); err != nil {
			return o, err
		}
		if o.Serve.Inbox != "" {
			folder, err := inbox.ExistingFolder(o.Serve.Inbox)
			if err != nil {
				return o, usagef("--inbox: %v", err)
			}
			o.Serve.Inbox = folder
		}
	case slices.ContainsFunc([]string{"listen", "max-upload", "tls-cert", "tls-key", "insecure-http", "inbox"}, func(name string) bool { return isFlagSet(top, name) }):
		return o, usagef("--listen, --max-upload, --tls-cert, --tls-key, --insecure-http and --inbox go with --serve")
	}
	return o, nil
}

// reportError prints err for a person, as every edge shows it
// (fault.Describe), and maps its code to an exit status. An internal error
// is logged first, once, with its chain.
func reportError(ctx context.Context, w io.Writer, logger *slog.Logger, op string, err error) int {
	if err == nil {
		return ExitOK
	}
	if errors.Is(err, errPartial) {
		return ExitFailure // the command has said which items failed
	}
	code, msg, _ := fault.Describe(fault.Report(ctx, logger, op, err))
	// A message may carry a name (the store quotes most, not all) or a
	// server's words; a usage error's lines stay lines.
	fmt.Fprintf(w, "docent: %s\n", textfmt.VisibleLines(msg))
	if status, ok := exitOf[code]; ok {
		return status
	}
	return ExitFailure
}

// errorText is what a person reads where a command reports one item's
// failure and goes on: the message every edge shows, with an internal
// error logged, once, with op.
func (e *Env) errorText(ctx context.Context, op string, err error) string {
	return textfmt.Visible(fault.ErrorMessage(fault.Report(ctx, e.Logger, op, err)))
}

func printHelp(w io.Writer) {
	fmt.Fprintf(w, `Docent %s turns documents into structured data with an AI agent, on your machine.

Usage:
  docent                          open the desktop app
  docent --serve [--listen ADDR] [--max-upload MiB] [--tls-cert FILE --tls-key FILE | --insecure-http] [--inbox DIR]
                                  serve the web UI and HTTP API (default %s);
                                  HTTPS beyond loopback, with a certificate made
                                  in the data directory unless --tls-cert is given;
                                  --inbox: watch DIR as the inbox folder
  docent COMMAND [FLAGS]

Commands:
`, app.Build().Version, defaultListen)
	for _, c := range commands() {
		fmt.Fprintf(w, "  docent %s\n      %s\n", c.usage, c.summary)
	}
	fmt.Fprint(w, `
Global flags (before or after the command):
  --data-dir DIR   where Docent keeps its data (env DOCENT_DATA_DIR)
  --model MODEL    model id such as ollama/qwen3:8b (env DOCENT_MODEL)
  --embed-model MODEL
                   embedding model for search by meaning, such as
                   ollama/nomic-embed-text (env DOCENT_EMBED_MODEL)

Models: Ollama at OLLAMA_HOST (default http://127.0.0.1:11434); any
OpenAI-compatible server at OPENAI_BASE_URL with OPENAI_API_KEY.
DOC, SCHEMA and PROMPT accept an id or an exact name.
docent help env lists every environment variable Docent reads.
`)
}

// printEnvHelp prints the table of environment variables (storage/envvar),
// Docent's own, then the platform's it follows; docs/configuration.md
// holds the same table.
func printEnvHelp(w io.Writer) {
	fmt.Fprint(w, "Environment variables. A flag, where there is one, wins over its variable.\n")
	section := ""
	for _, v := range envvar.Table() {
		heading := "\nDocent's own:\n"
		if v.Platform {
			heading = "\nThe platform's, which Docent follows:\n"
		}
		if heading != section {
			section = heading
			fmt.Fprint(w, heading)
		}
		fmt.Fprintf(w, "  %s", v.Name)
		if v.Flag != "" {
			fmt.Fprintf(w, "  (flag %s)", v.Flag)
		}
		fmt.Fprintf(w, "\n      %s\n      default: %s\n", v.Means, v.Default)
	}
}

// globalFlags are accepted anywhere on the command line.
var globalFlags = map[string]bool{"data-dir": true, "model": true, "embed-model": true}

// splitGlobalFlags takes the global flags out of args wherever they stand and
// returns them with the remaining arguments in order. Arguments after "--" are
// left alone.
func splitGlobalFlags(args []string) (map[string]string, []string, error) {
	globals := map[string]string{}
	var rest []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			rest = append(rest, args[i:]...)
			break
		}
		name, value, hasValue := strings.Cut(strings.TrimLeft(a, "-"), "=")
		if !strings.HasPrefix(a, "-") || !globalFlags[name] {
			rest = append(rest, a)
			continue
		}
		if !hasValue {
			if i+1 >= len(args) {
				return nil, nil, usagef("flag --%s needs a value", name)
			}
			i++
			value = args[i]
		}
		globals[name] = value
	}
	return globals, rest, nil
}

// parseFlags parses a subcommand's flags, which may come before, between or
// after its positional arguments (`docent text DOC --page 2`), and returns the
// positional arguments.
func parseFlags(fs *flag.FlagSet, args []string) ([]string, error) {
	fs.SetOutput(io.Discard)
	var positional []string
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				return nil, usagef("%s", usageLine(fs.Name()))
			}
			return nil, usagef("%s: %v\n%s", fs.Name(), err, usageLine(fs.Name()))
		}
		args = fs.Args()
		if len(args) == 0 {
			return positional, nil
		}
		if args[0] == "--" {
			return append(positional, args[1:]...), nil
		}
		positional = append(positional, args[0])
		args = args[1:]
	}
}

// stringList is a repeatable string flag (--tag a --tag b).
type stringList []string

func (s *stringList) String() string     { return strings.Join(*s, ",") }
func (s *stringList) Set(v string) error { *s = append(*s, v); return nil }

// isFlagSet reports whether the flag name was given, even at its default.
func isFlagSet(fs *flag.FlagSet, name string) bool {
	found := false
	fs.Visit(func(f *flag.Flag) { found = found || f.Name == name })
	return found
}
