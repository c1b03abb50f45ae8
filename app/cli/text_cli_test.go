package cli

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// liveHeapWriter is stdout that keeps what is written and, every sampleEvery
// bytes, the live heap (after a collection) less its own buffer, so that a
// test sees what a command holds while it writes, not what it allocated
// and let go.
type liveHeapWriter struct {
	bytes.Buffer
	sinceSample int
	peak        uint64
}

const sampleEvery = 1 << 20

func liveHeap() uint64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

func (w *liveHeapWriter) Write(p []byte) (int, error) {
	if w.sinceSample += len(p); w.sinceSample >= sampleEvery || w.Len() == 0 {
		w.sinceSample = 0
		w.peak = max(w.peak, liveHeap()-uint64(w.Cap()))
	}
	return w.Buffer.Write(p)
}

// docent text writes a document's text as it reads it, a batch of pages at
// a time: while a 24 MiB text (384 pages) is written, the command holds
// a few MiB, not the text; the output is every page, in order, with its
// header.
func TestTextStreamsPagesWithBoundedMemory(t *testing.T) {
	data := t.TempDir()
	const pages, pageChars = 384, 64 << 10
	var b strings.Builder
	for i := range pages {
		line := fmt.Sprintf("page%04d ", i+1)
		b.WriteString(strings.Repeat(line, pageChars/len(line)))
		b.WriteString("\f")
	}
	file := filepath.Join(t.TempDir(), "big.txt")
	if err := os.WriteFile(file, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	b.Reset()
	if code, out, errOut := docent(t, data, "import", "--no-embed", file); code != ExitOK {
		t.Fatalf("import: %d\n%s\n%s", code, out, errOut)
	}

	out := &liveHeapWriter{}
	var errOut bytes.Buffer
	before := liveHeap()
	code := Run(context.Background(), []string{"--data-dir", data, "text", "big.txt"}, &IOStreams{In: strings.NewReader(""), Out: out, Err: &errOut})
	if code != ExitOK {
		t.Fatalf("text: %d\n%s", code, errOut.String())
	}
	text := out.String()
	if len(text) < pages*pageChars {
		t.Fatalf("wrote %d bytes, want the %d of the text", len(text), pages*pageChars)
	}
	for _, i := range []int{1, 2, pages / 2, pages} {
		header := fmt.Sprintf("=== page %d of %d ===\npage%04d ", i, pages, i)
		if !strings.Contains(text, header) {
			t.Errorf("no page %d with its header (%q) in the output", i, header)
		}
	}
	if first, last := strings.Index(text, "page0001 "), strings.Index(text, fmt.Sprintf("page%04d ", pages)); first < 0 || last < first {
		t.Errorf("pages out of order: page 1 at %d, page %d at %d", first, pages, last)
	}
	held := int64(out.peak) - int64(before)
	t.Logf("live heap while writing %d MiB: %.1f MiB more than before", len(text)>>20, float64(held)/(1<<20))
	if limit := int64(8 << 20); held > limit {
		t.Errorf("the command held %d MiB while writing a %d MiB text, want at most %d MiB", held>>20, len(text)>>20, limit>>20)
	}
}
