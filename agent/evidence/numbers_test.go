package evidence

import (
	"reflect"
	"testing"
)

func TestParseAmount(t *testing.T) {
	for s, want := range map[string][]float64{
		"279.84":              {279.84},
		"279,84":              {279.84},
		"279.840":             {279.84, 279840},
		"1.234,50":            {1234.5},
		"1,234.50":            {1234.5},
		"1 234,50":            {1234.5},
		"1'234.50":            {1234.5},
		"1’234.50":            {1234.5},
		"1\u202f234,50":       {1234.5},
		"1.234.567,89":        {1234567.89},
		"1,234,567":           {1234567},
		"1,234":               {1.234, 1234},
		"0,123":               {0.123},
		"12,5":                {12.5},
		"42":                  {42},
		"0":                   {0},
		"0.5":                 {0.5},
		"€12,00":              {12},
		"12,00 €":             {12},
		"EUR 12":              {12},
		"12.00EUR":            {12},
		"usd12":               {12},
		"CHF 1'000.-":         {1000},
		"(12.00)":             {12},
		"-12.00":              {12},
		"12.00-":              {12},
		"−12,00":              {12},
		"15%":                 {15},
		"15 %":                {15},
		"15.00%,":             {15},
		"12.00,":              {12},
		`"12.00"`:             {12},
		"1234567890123456789": {1234567890123456789},
		"123456789012.3456":   {123456789012.3456},

		"":                  nil,
		"abc":               nil,
		"03":                nil,
		"0008":              nil,
		"12 34":             nil,
		"1.2.3":             nil,
		"20.03.2023":        nil,
		"1,,234":            nil,
		"12a":               nil,
		"a12":               nil,
		"#12":               nil,
		"INV/2023/03/0008":  nil,
		"870-931-0505":      nil,
		"1.234.5":           nil,
		"1,234,56":          nil,
		"1.23,45":           nil,
		"1,234,567.89.1":    nil,
		".5":                nil,
		"1 234 56":          nil,
		"1,234.567,89":      nil,
		"Total:12":          nil,
		"1,2,3,4,5,6,7,8,9": nil,
	} {
		var got []float64
		for _, a := range parseAmount(s, nil) {
			got = append(got, a.abs)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("parseAmount(%q) = %v, want %v", s, got, want)
		}
	}
}

func TestParseAmountSign(t *testing.T) {
	for s, neg := range map[string]bool{"12": false, "+12": false, "-12": true, "(12)": true, "12-": true, "€ -12,00": true, "12,00 €)": true} {
		a := parseAmount(s, nil)
		if len(a) != 1 || a[0].neg != neg {
			t.Errorf("parseAmount(%q) = %+v, want neg %v", s, a, neg)
		}
	}
}

// Reading an amount costs no allocation: it runs on every word of a page.
func TestParseAmountAllocs(t *testing.T) {
	var buf [2]amount
	for _, s := range []string{"1.234,50", "EUR", "USD12.00", "Widget", "20.03.2023"} {
		if n := testing.AllocsPerRun(100, func() { parseAmount(s, buf[:0]) }); n != 0 {
			t.Errorf("parseAmount(%q): %v allocations", s, n)
		}
	}
}
