package evidence

import (
	"reflect"
	"strings"
	"testing"
)

func TestParseDateValue(t *testing.T) {
	for s, want := range map[string][]date{
		"2023-03-20":           {20230320},
		"2023-03-20T09:30:00Z": {20230320},
		"2023-03-20 09:30":     {20230320},
		"20.03.2023":           {20230320},
		"20.03.23":             {20230320},
		"20/03/99":             {19990320},
		"03/04/2023":           {20230403, 20230304},
		"04/04/2023":           {20230404},
		"March 20, 2023":       {20230320},
		"20 Mar 2023":          {20230320},
		"20-Mar-23":            {20230320},
		"20. März 2023":        {20230320},
		"20 MÄRZ 2023":         {20230320},
		"1er février 2024":     {20240201},
		"29 Feb 2024":          {20240229},
		"Sept. 3rd, 2023":      {20230903},
		"20230320":             {20230320},

		"":                              nil,
		"2023":                          nil,
		"March 2023":                    nil,
		"20.03":                         nil,
		"29 Feb 2023":                   nil,
		"31.04.2023":                    nil,
		"13/13/2023":                    nil,
		"20.03.2023 Acme":               nil,
		"20 Foo 2023":                   nil,
		"2023-03-20X":                   nil,
		"20.03-2023":                    nil,
		"20:03:2023":                    nil,
		"120.03.2023":                   nil,
		"20.03.202":                     nil,
		"99999999":                      nil,
		"Monday, 20 March 2023 at noon": nil,
	} {
		got, ok := parseDateValue(strings.Fields(s))
		if !reflect.DeepEqual(got, want) || ok != (want != nil) {
			t.Errorf("parseDateValue(%q) = %v, %v; want %v", s, got, ok, want)
		}
	}
}

// A date in the document starts at a word and ends where a word ends.
func TestParseDateInWords(t *testing.T) {
	for _, c := range []struct {
		words string
		n     int
	}{
		{"20.03.2023 due", 1},
		{"(20.03.2023)", 1},
		{"20. März 2023, Berlin", 3},
		{"March 20, 2023 Invoice", 3},
		{"20 Mar 2023abc", 0},
		{"20.03.2023x", 0},
		{"Date 20.03.2023", 0},
		{"20", 0},
	} {
		_, n, _ := parseDate(strings.Fields(c.words), nil, nil)
		if n != c.n {
			t.Errorf("parseDate(%q) spans %d words, want %d", c.words, n, c.n)
		}
	}
}
