package modeltest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"io"
	"math"
	"net/http"
	"strconv"
	"strings"
	"time"
	"unicode"
)

// This file is the embedding side of the server: Ollama's /api/embed and
// the OpenAI-compatible /v1/embeddings, answered with Vector, a
// deterministic stand-in for a multilingual embedding model. Requests are
// recorded like chats (Request.Inputs holds the texts); EmbedFaults makes
// the next answers misbehave.

// EmbedModel is an embedding model the server can offer (pass it to New
// beside the chat models).
var EmbedModel = Model{
	Name:          "nomic-embed-text",
	ContextLength: 2048,
	Capabilities:  []string{"embedding"},
	Family:        "nomic-bert",
	Dimensions:    DefaultDimensions,
}

// DefaultDimensions is the size of the vectors of a model whose
// Dimensions is 0.
const DefaultDimensions = 256

// EmbedFault makes one embedding answer misbehave. The zero value is none.
type EmbedFault struct {
	// Status answers with this HTTP status and the wire's error body.
	Status  int
	Message string
	// Dimensions answers vectors of this size instead of the model's.
	Dimensions int
	// NaN puts a NaN into the first vector (written as the bare word NaN,
	// as llama.cpp-based servers have sent it: not valid JSON).
	NaN bool
	// Zero answers all-zero vectors.
	Zero bool
	// Delay waits this long before answering (or until the client leaves).
	Delay time.Duration
	// Flood puts this many bytes of numbers more into the first vector,
	// written as the client reads them: a server that streams an answer
	// of hundreds of megabytes, or without end for as long as the client
	// reads (see embedFlood).
	Flood int64
	// FloodSent, when set, gets how many of the flood's bytes were written
	// before the answer ended or the client left.
	FloodSent func(n int64)
}

// EmbedFaults queues faults; each embedding request takes the next one, and
// answers correctly when none is left.
func (s *Server) EmbedFaults(faults ...EmbedFault) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.embedFaults = append(s.embedFaults, faults...)
}

func (s *Server) nextEmbedFault() EmbedFault {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.embedFaults) == 0 {
		return EmbedFault{}
	}
	f := s.embedFaults[0]
	s.embedFaults = s.embedFaults[1:]
	return f
}

// EmbedRequests returns the recorded embedding requests (either wire).
func (s *Server) EmbedRequests() []Request {
	var out []Request
	for _, r := range s.Requests() {
		if r.Path == "/api/embed" || r.Path == "/v1/embeddings" {
			out = append(out, r)
		}
	}
	return out
}

// concepts are the meanings Vector knows: each a list of word stems, in
// English and German, that mean about the same on an invoice or receipt.
// A word has a concept when it is one of its stems, starts with a stem of
// four letters or more, or ends with one of six or more (German
// compounds: "Autovermietung" is auto + vermietung). It is a tiny,
// deterministic stand-in for what a multilingual embedding model learns,
// enough to show hits by meaning that share no word with the query.
var concepts = [][]string{
	{"invoice", "invoices", "bill", "rechnung", "rechnungen", "faktura", "facture"},
	{"total", "sum", "amount", "gesamt", "summe", "betrag", "endbetrag"},
	{"tax", "vat", "ust", "mwst", "steuer", "umsatzsteuer", "mehrwertsteuer"},
	{"date", "dated", "datum"},
	{"payment", "pay", "due", "zahlung", "fällig", "überweisung", "transfer"},
	{"taxi", "cab", "ride", "stadtfahrt"},
	{"car", "cars", "auto", "vehicle", "kraftfahr", "kfz", "fahrzeug", "pkw"},
	{"hire", "rental", "rent", "rented", "miet", "miete", "vermietung", "leasing"},
	{"insurance", "insurer", "premium", "versicherung", "versicherer", "beitrag"},
	{"travel", "trip", "journey", "flight", "reise", "flug", "hotel", "übernachtung"},
	{"expense", "expenses", "cost", "costs", "kosten", "spesen", "auslagen", "reimbursement", "abrechnung"},
	{"customer", "client", "buyer", "kunde", "kunden", "käufer"},
	{"seller", "supplier", "vendor", "verkäufer", "lieferant"},
	{"delivery", "shipping", "lieferung", "versand"},
	{"discount", "rebate", "rabatt", "skonto"},
	{"credit", "refund", "gutschrift", "korrektur", "correction"},
	{"physiotherapy", "therapy", "therapist", "treatment", "physio", "therap", "behandlung", "massage"},
	{"bus", "train", "tram", "ticket", "fahrkarte", "fahrschein", "öpnv", "nahverkehr"},
	{"quantity", "qty", "menge", "stück", "stk", "pieces"},
	{"price", "prices", "preis", "preise"},
	{"phone", "telephone", "tel", "telefon"},
	{"bank", "iban", "bic", "account", "konto", "sepa"},
	{"goods", "product", "products", "ware", "waren", "artikel", "article", "item"},
}

// Vector is the embedding the server answers for text: dims numbers
// (DefaultDimensions when 0), of length 1. The first len(concepts) hold
// the text's concepts, weighted 2(1+ln n) for n words that have one; the
// rest its words, hashed, weighted 0.3(1+ln n), so that texts with the
// same words are close too, but less than texts with the same meanings. A
// text without words gets a vector of its own hash, never zero.
func Vector(text string, dims int) []float32 {
	if dims <= 0 {
		dims = DefaultDimensions
	}
	nc := min(len(concepts), dims/2)
	counts := make([]float64, dims)
	words := strings.FieldsFunc(strings.ToLower(text), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsNumber(r) })
	for _, w := range words {
		for k := range nc {
			if hasConcept(w, concepts[k]) {
				counts[k]++
			}
		}
		counts[nc+hashIndex(w, dims-nc)]++
	}
	v := make([]float32, dims)
	var norm float64
	for i, c := range counts {
		if c == 0 {
			continue
		}
		weight := 2.0
		if i >= nc {
			weight = 0.3
		}
		x := weight * (1 + math.Log(c))
		v[i] = float32(x)
		norm += x * x
	}
	if norm == 0 {
		v[nc+hashIndex(text, dims-nc)] = 1
		return v
	}
	for i := range v {
		v[i] = float32(float64(v[i]) / math.Sqrt(norm))
	}
	return v
}

// taskPrefixes are the instructions embedding models are trained to read
// before a text (agent's embedPrefixes): a real model takes them as the
// task, not as words of the text, so Vector does not see them.
var taskPrefixes = []string{
	"search_query: ", "search_document: ",
	"task: search result | query: ", "title: none | text: ",
	"Represent this sentence for searching relevant passages: ",
}

func withoutTaskPrefix(text string) string {
	for _, p := range taskPrefixes {
		if t, ok := strings.CutPrefix(text, p); ok {
			return t
		}
	}
	return text
}

func hasConcept(word string, stems []string) bool {
	for _, s := range stems {
		n := len([]rune(s))
		if word == s || n >= 4 && strings.HasPrefix(word, s) || n >= 6 && strings.HasSuffix(word, s) {
			return true
		}
	}
	return false
}

func hashIndex(s string, n int) int {
	h := fnv.New32a()
	_, _ = h.Write([]byte(s))
	return int(h.Sum32() % uint32(n))
}

// embedBody is the union of Ollama's and OpenAI's embedding request fields.
type embedBody struct {
	Model string          `json:"model"`
	Input json.RawMessage `json:"input"`
}

// inputs reads "input": one string or a list of them.
func (b embedBody) inputs() ([]string, error) {
	var one string
	if json.Unmarshal(b.Input, &one) == nil {
		return []string{one}, nil
	}
	var many []string
	if err := json.Unmarshal(b.Input, &many); err != nil {
		return nil, fmt.Errorf("input: want a string or a list of strings")
	}
	return many, nil
}

// readEmbed reads and records an embedding request.
func (s *Server) readEmbed(wire string, r *http.Request) (Request, Model, int, error) {
	var buf bytes.Buffer
	_, err := buf.ReadFrom(r.Body)
	req := Request{Wire: wire, Path: r.URL.Path, Body: buf.Bytes(), Header: r.Header.Clone()}
	var b embedBody
	if err == nil {
		err = json.Unmarshal(req.Body, &b)
	}
	if err == nil {
		req.Model = b.Model
		req.Inputs, err = b.inputs()
	}
	s.record(req)
	if err != nil {
		return req, Model{}, http.StatusBadRequest, err
	}
	for _, in := range req.Inputs {
		if in == "" {
			return req, Model{}, http.StatusBadRequest, fmt.Errorf("input is an empty string")
		}
	}
	m, ok := s.model(b.Model)
	if !ok {
		return req, Model{}, http.StatusNotFound, fmt.Errorf("model %q not found, try pulling it first", b.Model)
	}
	if !m.has("embedding") {
		return req, Model{}, http.StatusBadRequest, fmt.Errorf("%q does not support embeddings", b.Model)
	}
	return req, m, 0, nil
}

// vectors computes the answer for req under fault f, as JSON arrays (a
// NaN fault makes them invalid JSON); ok is false when the client left
// during a delay.
func (s *Server) vectors(r *http.Request, req Request, m Model, f EmbedFault) ([]string, bool) {
	if !s.wait(r, f.Delay) {
		return nil, false
	}
	dims := m.Dimensions
	if f.Dimensions > 0 {
		dims = f.Dimensions
	}
	out := make([]string, len(req.Inputs))
	for i, in := range req.Inputs {
		v := Vector(withoutTaskPrefix(in), dims)
		parts := make([]string, len(v))
		for j, x := range v {
			switch {
			case f.Zero:
				parts[j] = "0"
			case f.NaN && i == 0 && j == 0:
				parts[j] = "NaN"
			default:
				parts[j] = strconv.FormatFloat(float64(x), 'g', -1, 32)
			}
		}
		out[i] = "[" + strings.Join(parts, ",") + "]"
	}
	if f.Flood > 0 && len(out) > 0 {
		out[0] = "[" + floodMark + out[0][1:]
	}
	return out, true
}

// floodMark stands in an answer for where a Flood fault's numbers go.
const floodMark = "\x00flood\x00"

// writeAnswer writes an embedding answer, with a Flood fault's numbers at
// floodMark: "0.001," repeated, f.Flood bytes of them or until the client
// stops reading.
func writeAnswer(w http.ResponseWriter, body string, f EmbedFault) {
	before, after, flooded := strings.Cut(body, floodMark)
	if !flooded {
		_, _ = io.WriteString(w, body)
		return
	}
	if _, err := io.WriteString(w, before); err != nil {
		return
	}
	chunk := []byte(strings.Repeat("0.001,", 64<<10/6))
	var sent int64
	for sent < f.Flood {
		n, err := w.Write(chunk[:min(int64(len(chunk)), f.Flood-sent)])
		sent += int64(n)
		if err != nil {
			break
		}
	}
	if f.FloodSent != nil {
		f.FloodSent(sent)
	}
	if sent == f.Flood {
		_, _ = io.WriteString(w, after)
	}
}

func (s *Server) ollamaEmbed(w http.ResponseWriter, r *http.Request) {
	req, m, status, err := s.readEmbed("ollama", r)
	if err != nil {
		ollamaError(w, status, err.Error())
		return
	}
	f := s.nextEmbedFault()
	if f.Status != 0 {
		ollamaError(w, f.Status, strings.TrimSpace(f.Message+" "+http.StatusText(f.Status)))
		return
	}
	vecs, ok := s.vectors(r, req, m, f)
	if !ok {
		return
	}
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	writeAnswer(w, fmt.Sprintf(`{"model":%q,"embeddings":[%s],"total_duration":%d,"load_duration":%d,"prompt_eval_count":%d}`,
		req.Model, strings.Join(vecs, ","), int64(30*time.Millisecond), int64(5*time.Millisecond), Tokens(strings.Join(req.Inputs, " "))), f)
}

func (s *Server) openaiEmbed(w http.ResponseWriter, r *http.Request) {
	req, m, status, err := s.readEmbed("openai", r)
	if err != nil {
		openaiError(w, status, err.Error())
		return
	}
	f := s.nextEmbedFault()
	if f.Status != 0 {
		openaiError(w, f.Status, strings.TrimSpace(f.Message+" "+http.StatusText(f.Status)))
		return
	}
	vecs, ok := s.vectors(r, req, m, f)
	if !ok {
		return
	}
	data := make([]string, len(vecs))
	for i, v := range vecs {
		data[i] = fmt.Sprintf(`{"object":"embedding","index":%d,"embedding":%s}`, i, v)
	}
	n := Tokens(strings.Join(req.Inputs, " "))
	w.Header().Set("Content-Type", "application/json")
	writeAnswer(w, fmt.Sprintf(`{"object":"list","data":[%s],"model":%q,"usage":{"prompt_tokens":%d,"total_tokens":%d}}`,
		strings.Join(data, ","), req.Model, n, n), f)
}
