// Package envvar is the one table of the environment variables Docent
// reads, and the one place it reads them: every other package asks Get
// for a name declared here, so a variable cannot be read without being in
// the table that `docent help env` prints and docs/configuration.md lists
// (envvar_test.go checks both, over the whole module's source).
//
// It is a leaf: it imports nothing of Docent. It lives under storage/, as
// storage/fault does, because the store is the innermost layer and the
// store's own secret keeping (storage/secret) reads DOCENT_KEYRING. What
// a variable means is decided where it is read, except for those read as
// values (typed.go), whose getters own their defaults and their parsing.
package envvar

import (
	"os"
	"slices"
	"strconv"
)

// Name is the name of an environment variable in the table.
type Name string

// Docent's own variables.
const (
	DataDir     Name = "DOCENT_DATA_DIR"
	Model       Name = "DOCENT_MODEL"
	EmbedModel  Name = "DOCENT_EMBED_MODEL"
	OllamaHost  Name = "OLLAMA_HOST"
	OpenAIBase  Name = "OPENAI_BASE_URL"
	OpenAIKey   Name = "OPENAI_API_KEY"
	Keyring     Name = "DOCENT_KEYRING"
	IdleTimeout Name = "DOCENT_IDLE_TIMEOUT"
	MaxContext  Name = "DOCENT_MAX_CONTEXT"
	KeepAlive   Name = "DOCENT_KEEP_ALIVE"
	OCRLang     Name = "DOCENT_OCR_LANG"
	CacheDir    Name = "DOCENT_CACHE_DIR"
	Tessdata    Name = "DOCENT_TESSDATA"
	LogLevel    Name = "DOCENT_LOG_LEVEL"
	ONNXRuntime Name = "DOCENT_ONNXRUNTIME"
)

// The platform's variables that Docent follows.
const (
	XDGDataHome    Name = "XDG_DATA_HOME"
	LocalAppData   Name = "LocalAppData"
	LCAll          Name = "LC_ALL"
	LCMessages     Name = "LC_MESSAGES"
	Lang           Name = "LANG"
	Visual         Name = "VISUAL"
	Editor         Name = "EDITOR"
	NoColor        Name = "NO_COLOR"
	Term           Name = "TERM"
	DBusSessionBus Name = "DBUS_SESSION_BUS_ADDRESS"
	XDGRuntimeDir  Name = "XDG_RUNTIME_DIR"
)

// Var is one row of the table.
type Var struct {
	Name Name
	// Flag is the command-line flag that wins over the variable, "" for none.
	Flag string
	// Default is what applies while the variable is unset.
	Default string
	// Means is what the variable sets, in a few words.
	Means string
	// Platform marks a variable of the system (the locale, the editor, the
	// XDG folders) that Docent follows rather than one of its own.
	Platform bool
}

// table is every variable Docent reads, its own first, in the order
// `docent help env` prints them.
var table = []Var{
	{Name: DataDir, Flag: "--data-dir DIR", Default: "$XDG_DATA_HOME/docent, i.e. ~/.local/share/docent (macOS: ~/Library/Application Support/Docent, Windows: %LocalAppData%\\Docent)", Means: "where docent.db, the access token and the key file live"},
	{Name: Model, Flag: "--model MODEL", Default: "the default model saved on the Settings page, else none", Means: "the model for chat, extraction and auto-create, e.g. ollama/qwen3:8b or openai/gpt-4o-mini"},
	{Name: EmbedModel, Flag: "--embed-model MODEL", Default: "the embedding model saved on the Settings page, else none (search by words only)", Means: "the embedding model for search by meaning, e.g. ollama/nomic-embed-text or openai/text-embedding-3-small"},
	{Name: OllamaHost, Default: "the host saved on the Settings page, else " + DefaultOllamaHost, Means: "the Ollama server"},
	{Name: OpenAIBase, Default: "the base URL saved on the Settings page, else " + DefaultOpenAIBaseURL, Means: "the OpenAI-compatible server"},
	{Name: OpenAIKey, Default: "the key saved on the Settings page with that base URL, else none", Means: "the API key sent to the OpenAI-compatible server (and only to it)"},
	{Name: Keyring, Default: "auto: the system keyring where there is one, else the sealed key file", Means: "where a saved API key is kept: on (the system keyring), off (sealed in secret.key beside the database)"},
	{Name: IdleTimeout, Default: minutes(DefaultIdleTimeout), Means: "how long a model may go without sending a token"},
	{Name: MaxContext, Default: strconv.Itoa(DefaultMaxContext) + " (or the model's own length if smaller)", Means: "the largest context window, in tokens, asked of Ollama (at least " + strconv.Itoa(minMaxContext) + ")"},
	{Name: KeepAlive, Default: minutes(DefaultKeepAlive), Means: "how long Ollama keeps a model loaded after a call (-1: as long as Ollama runs)"},
	{Name: OCRLang, Flag: "--lang LANGS", Default: "the locale's language plus English (deu+eng for de_DE.UTF-8, eng for English, C or an unknown locale)", Means: "the OCR languages, Tesseract's names joined by + (the flag goes with import and ocr); the languages saved on the Settings page win over the variable, except in docent ocr"},
	{Name: CacheDir, Default: "the user cache folder's docent/, i.e. ~/.cache/docent", Means: "where PDFium's compiled WebAssembly (wazero/), ONNX Runtime (onnxruntime/) and the PP-OCR models (ppocr/) are kept"},
	{Name: Tessdata, Default: "tessdata/ in the default data directory, i.e. ~/.local/share/docent/tessdata (not moved by --data-dir)", Means: "where Tesseract's best_int language data (eng, deu, fra, nld, spa, ita) is; scripts/run installs it there, checked by SHA-256; without it OCR reads with the system's data"},
	{Name: LogLevel, Default: "warn", Means: "the desktop app's log level: debug (every API request the window makes), info, warn, error"},
	{Name: ONNXRuntime, Default: "the pinned build scripts/run installs, $DOCENT_CACHE_DIR/onnxruntime/VERSION/libonnxruntime.so", Means: "the ONNX Runtime library (libonnxruntime.so) PP-OCR runs on, used as it is (its hash is not checked)"},

	{Name: XDGDataHome, Default: "~/.local/share", Means: "the base of the default data directory (Linux and other Unixes)", Platform: true},
	{Name: LocalAppData, Default: "unset: as on Linux", Means: "the base of the default data directory (Windows)", Platform: true},
	{Name: LCAll, Default: "LC_MESSAGES", Means: "the locale whose language the default OCR languages start with", Platform: true},
	{Name: LCMessages, Default: "LANG", Means: "the locale, when LC_ALL is unset", Platform: true},
	{Name: Lang, Default: "none: OCR in English", Means: "the locale, when LC_ALL and LC_MESSAGES are unset", Platform: true},
	{Name: Visual, Default: "EDITOR", Means: "the editor of `docent chat`'s [e]dit", Platform: true},
	{Name: Editor, Default: "vi", Means: "the editor, when VISUAL is unset", Platform: true},
	{Name: NoColor, Default: "colour on a terminal", Means: "set (to anything): `docent chat` prints without colour", Platform: true},
	{Name: Term, Default: "colour on a terminal", Means: "dumb: `docent chat` prints without colour", Platform: true},
	{Name: DBusSessionBus, Default: "none", Means: "a session bus, so the system keyring is tried (Linux)", Platform: true},
	{Name: XDGRuntimeDir, Default: "none", Means: "where systemd's session bus socket (bus) is looked for (Linux)", Platform: true},
}

// Table returns every variable Docent reads, its own first.
func Table() []Var { return slices.Clone(table) }

// Get returns the value of the variable, "" when it is unset. It is the
// only read of the environment outside the reader child's own protocol
// (app/ingest/pdftext) and test support; envvar_test.go holds every other file to
// that.
func Get(name Name) string { return os.Getenv(string(name)) }
