package agent

import "strings"

// Some embedding models were trained with a task prefix on each text, one
// for queries and one for the documents searched, and give worse
// neighbours without it: their model cards ask for it, and Ollama's and
// OpenAI-compatible servers pass the text through as it is, so the caller
// must add it. embedPrefixes are the families Docent's setup suggests or
// users commonly pull; a model not in it gets the text alone, as the
// models that need no prefix (bge-m3, OpenAI's text-embedding-3) want.
//
// The prefixes are part of what a stored vector means: a change here
// changes the vectors of the models it touches, and their chunks must be
// embedded again (as after a change of model).
var embedPrefixes = []struct {
	// family is the start of the model's name, after its provider and
	// any namespace ("ollama/nomic-embed-text:v1.5",
	// "openai/nomic-ai/nomic-embed-text-v1.5").
	family          string
	query, document string
}{
	// nomic-embed-text v1, v1.5 and v2: "search_query: " and
	// "search_document: " (nomic-ai's model card).
	{"nomic-embed-text", "search_query: ", "search_document: "},
	// EmbeddingGemma's prompts for retrieval (Google's model card).
	{"embeddinggemma", "task: search result | query: ", "title: none | text: "},
	// mxbai-embed-large: an instruction on the query only.
	{"mxbai-embed-large", "Represent this sentence for searching relevant passages: ", ""},
}

// embedPrefix returns the query and document prefixes of modelID ("" for
// a model that needs none).
func embedPrefix(modelID string) (query, document string) {
	name := strings.ToLower(modelID)
	if i := strings.LastIndex(name, "/"); i >= 0 {
		name = name[i+1:]
	}
	for _, p := range embedPrefixes {
		if strings.HasPrefix(name, p.family) {
			return p.query, p.document
		}
	}
	return "", ""
}
