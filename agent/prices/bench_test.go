package prices

import "testing"

// A call's cost is looked up once per model call, inside the ledger's
// budget of 1 ms: the worst case is a model nobody prices, which tries
// every provider that claims it.
func BenchmarkLookup(b *testing.B) {
	l, err := Snapshot()
	if err != nil {
		b.Fatal(err)
	}
	for _, model := range []string{"gpt-4o-mini", "claude-haiku-4-5", "gemini-2.5-pro-preview-tts", "my-invoice-model-v3"} {
		b.Run(model, func(b *testing.B) {
			for b.Loop() {
				l.Lookup("openai", model)
			}
		})
	}
}
