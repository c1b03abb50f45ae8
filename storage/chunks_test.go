package storage

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestChunkTextEmptyGivesNoChunk(t *testing.T) {
	for _, text := range []string{"", "   ", "\n\n\t "} {
		if got := chunkText(text, 1000, 100); len(got) != 0 {
			t.Errorf("chunkText(%q) = %q, want none", text, got)
		}
	}
}

func TestChunkTextShortIsOneTrimmedChunk(t *testing.T) {
	got := chunkText("\n  A short page.  \n", 1000, 100)
	if len(got) != 1 || got[0] != "A short page." {
		t.Errorf("got %q", got)
	}
}

func TestChunkTextBreaksAtParagraphThenLineThenSpace(t *testing.T) {
	para := strings.Repeat("a", 60) + "\n\n" + strings.Repeat("b", 20) + "\n" + strings.Repeat("c", 10) + " " + strings.Repeat("d", 40)
	got := chunkText(para, 100, 10)
	if got[0] != strings.Repeat("a", 60) {
		t.Errorf("first chunk %q, want it to end at the paragraph break", got[0])
	}

	line := strings.Repeat("a", 60) + "\n" + strings.Repeat("b", 20) + " " + strings.Repeat("c", 40)
	if got := chunkText(line, 100, 10); got[0] != strings.Repeat("a", 60) {
		t.Errorf("first chunk %q, want it to end at the line break", got[0])
	}

	words := strings.Repeat("word ", 30) // 150 runes
	got = chunkText(words, 100, 10)
	for _, c := range got {
		for _, w := range strings.Fields(c) {
			if w != "word" {
				t.Errorf("chunk %q cuts a word: %q", c, w)
			}
		}
	}
}

func TestChunkTextCoversEverythingWithOverlap(t *testing.T) {
	var b strings.Builder
	for i := range 800 {
		b.WriteString("w")
		b.WriteString(strings.Repeat("x", i%7))
		b.WriteString(string(rune('a' + i%26)))
		if i%40 == 39 {
			b.WriteString(".\n")
		} else {
			b.WriteString(" ")
		}
	}
	text := b.String()
	chunks := chunkText(text, 1000, 100)
	if len(chunks) < 4 {
		t.Fatalf("%d chunks for %d runes", len(chunks), utf8.RuneCountInString(text))
	}
	joined := strings.Join(chunks, " ")
	for _, w := range strings.Fields(text) {
		if !strings.Contains(joined, w) {
			t.Fatalf("word %q lost", w)
		}
	}
	for i, c := range chunks {
		if n := utf8.RuneCountInString(c); n > 1000 || n < 400 && i < len(chunks)-1 {
			t.Errorf("chunk %d has %d runes", i, n)
		}
		if i == 0 {
			continue
		}
		// The start of each chunk repeats the end of the one before.
		first := strings.Fields(c)[0]
		prevTail := chunks[i-1][len(chunks[i-1])-200:]
		if !strings.Contains(prevTail, first) {
			t.Errorf("chunk %d starts with %q, which is not in the end of chunk %d: no overlap", i, first, i-1)
		}
	}
}

func TestChunkTextStraddlingPhraseIsWholeInOneChunk(t *testing.T) {
	for offset := 980; offset < 1010; offset++ {
		text := strings.Repeat("ab ", 400)[:offset] + " purple elephant " + strings.Repeat("cd ", 400)
		found := false
		for _, c := range chunkText(text, 1000, 100) {
			if strings.Contains(c, "purple elephant") {
				found = true
			}
		}
		if !found {
			t.Errorf("phrase at offset %d is split in every chunk", offset)
		}
	}
}

func TestChunkTextIsRuneSafe(t *testing.T) {
	text := strings.Repeat("日本語のテキスト", 300) // no spaces at all: hard cuts
	chunks := chunkText(text, 1000, 100)
	if len(chunks) < 2 {
		t.Fatalf("%d chunks", len(chunks))
	}
	for i, c := range chunks {
		if !utf8.ValidString(c) {
			t.Errorf("chunk %d is not valid UTF-8", i)
		}
		if n := utf8.RuneCountInString(c); n > 1000 {
			t.Errorf("chunk %d has %d runes", i, n)
		}
	}
}
