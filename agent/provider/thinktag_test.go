package provider

import "testing"

func TestThinkSplitterSeparatesTagsAcrossChunks(t *testing.T) {
	tests := []struct {
		name           string
		chunks         []string
		thinking, text string
	}{
		{"plain text", []string{"hello ", "world"}, "", "hello world"},
		{"whole tags in one chunk", []string{"<think>why</think>answer"}, "why", "answer"},
		{"newlines after close are dropped", []string{"<think>\nwhy\n</think>\n\nanswer"}, "\nwhy\n", "answer"},
		{"open tag split", []string{"<th", "ink>reason</think>ok"}, "reason", "ok"},
		{"open tag split in three", []string{"<", "thi", "nk>r</think>ok"}, "r", "ok"},
		{"close tag split", []string{"<think>reas", "on</thi", "nk>ok"}, "reason", "ok"},
		{"close tag one byte at a time", split1("<think>ab</think>cd"), "ab", "cd"},
		{"text before think", []string{"a <think>b</think> c"}, "b", "a c"},
		{"lookalike is text", []string{"a <thin", "g> b"}, "", "a <thing> b"},
		{"incomplete tag at end is text", []string{"x <thi"}, "", "x <thi"},
		{"unclosed think stays thinking", []string{"<think>still going"}, "still going", ""},
		{"less-than in text", []string{"1 < 2", " and 3 <", " 4"}, "", "1 < 2 and 3 < 4"},
		{"two sections", []string{"<think>a</think>x<think>b</think>y"}, "ab", "xy"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var s thinkSplitter
			var th, tx string
			for _, c := range tt.chunks {
				a, b := s.Feed(c)
				th, tx = th+a, tx+b
			}
			a, b := s.Flush()
			th, tx = th+a, tx+b
			if th != tt.thinking || tx != tt.text {
				t.Errorf("chunks %q: thinking %q text %q, want %q and %q", tt.chunks, th, tx, tt.thinking, tt.text)
			}
		})
	}
}

func TestThinkSplitterHoldsBackOnlyAPossibleTag(t *testing.T) {
	var s thinkSplitter
	if _, tx := s.Feed("abc<"); tx != "abc" {
		t.Errorf("visible before a possible tag = %q, want abc", tx)
	}
	if _, tx := s.Feed("b>"); tx != "<b>" {
		t.Errorf("after the lookalike completes = %q, want <b>", tx)
	}
}

func split1(s string) []string {
	var out []string
	for i := range len(s) {
		out = append(out, s[i:i+1])
	}
	return out
}
