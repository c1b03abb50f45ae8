package evidence

import (
	"encoding/json"
	"reflect"
	"testing"
)

func TestLeavesOrderAndPaths(t *testing.T) {
	got, err := Leaves(json.RawMessage(`{"z":1,"a":{"y":[1.50,{"k":null}],"x":"s"},"e":[],"o":{},"b":true,
		"a.b":"dotted","":"empty key","u":"\u00e9"}`))
	if err != nil {
		t.Fatal(err)
	}
	want := []Leaf{
		{"z", json.Number("1")},
		{"a.y.0", json.Number("1.50")},
		{"a.y.1.k", nil},
		{"a.x", "s"},
		{"b", true},
		{"a.b", "dotted"},
		{"", "empty key"},
		{"u", "é"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Leaves:\n got %#v\nwant %#v", got, want)
	}
	if got, err := Leaves(json.RawMessage(` 42 `)); err != nil || !reflect.DeepEqual(got, []Leaf{{"", json.Number("42")}}) {
		t.Errorf("scalar root: %v, %v", got, err)
	}
	if got, err := Leaves(json.RawMessage(`[[],{}]`)); err != nil || got != nil {
		t.Errorf("empty containers: %v, %v", got, err)
	}
	for _, v := range []string{``, ` `, `{`, `{"a" 1}`, `{1:2}`, `[1,]`, `[1 2]`, `{"a":1}}`, `{"a":1} {}`, `tru`} {
		if _, err := Leaves(json.RawMessage(v)); err == nil {
			t.Errorf("Leaves(%q): no error", v)
		}
	}
}

func TestSame(t *testing.T) {
	for _, c := range []struct {
		a, b any
		want bool
	}{
		{json.Number("279.84"), "279,84", true},
		{json.Number("279.84"), "$279.84", true},
		{json.Number("279.84"), "279.840", true},
		{json.Number("279.84"), "EUR 279,84", true},
		{json.Number("279.84"), 279.84, true},
		{json.Number("42"), "42,00", true},
		{42, json.Number("42.0"), true},
		{"1.234,50", "1,234.50", true},
		{"1,234", json.Number("1234"), true},
		{"1,234", json.Number("1.234"), true},
		{"-12.00", json.Number("-12"), true},
		{"(12.00)", json.Number("-12"), true},
		{"15%", json.Number("15"), true},
		{json.Number("279.84"), "279.85", false},
		{json.Number("-12"), "12", false},
		{json.Number("12"), "twelve", false},

		{"2023-03-20", "20.03.2023", true},
		{"2023-03-20", "March 20, 2023", true},
		{"2023-03-20", "20 Mar 2023", true},
		{"2023-03-20", "20. März 2023", true},
		{"2023-03-20T10:00:00Z", "2023-03-20", true},
		{"2023-04-03", "03/04/2023", true},
		{"2023-03-20", "2023-03-21", false},

		{"Acme  GmbH", "acme gmbh", true},
		{"Acme\nGmbH.", "ACME GMBH", true},
		{`"Acme GmbH"`, "Acme GmbH", true},
		{"Acme GmbH", "Acme AG", false},
		{"Acme-GmbH", "Acme GmbH", false},
		{"INV/2023/03/0008", "inv/2023/03/0008", true},
		{"0008", json.Number("8"), false},

		{nil, nil, true},
		{nil, "", true},
		{nil, "  ", true},
		{nil, "0", false},
		{true, true, true},
		{true, "true", true},
		{true, false, false},
		{map[string]any{"a": 1}, map[string]any{"a": 1}, true},
		{[]any{1}, "1", false},
	} {
		if got := Same(c.a, c.b); got != c.want {
			t.Errorf("Same(%#v, %#v) = %v, want %v", c.a, c.b, got, c.want)
		}
		if got := Same(c.b, c.a); got != c.want {
			t.Errorf("Same(%#v, %#v) = %v, want %v (reversed)", c.b, c.a, got, c.want)
		}
	}
}

func TestMarkEdited(t *testing.T) {
	m := Map{
		"total":          {Page: 1, Quote: "12.00", BBox: []float64{0, 0, 1, 1}, Status: Grounded},
		"lines.0.amount": {Page: 1, Quote: "5", Status: Grounded},
		"lines.0.qty":    {Status: Ambiguous, Candidates: []Candidate{{Page: 1, Quote: "1"}}},
		"lines.1.amount": {Status: Ungrounded},
		"lines.10.qty":   {Status: Ungrounded},
	}
	got := m.MarkEdited("lines.1")
	if reflect.ValueOf(got).Pointer() != reflect.ValueOf(m).Pointer() {
		t.Error("MarkEdited did not return the same map")
	}
	got.MarkEdited("lines.0").MarkEdited("seller.name")
	want := Map{
		"total":          {Page: 1, Quote: "12.00", BBox: []float64{0, 0, 1, 1}, Status: Grounded},
		"lines.0":        {Status: Edited},
		"lines.0.amount": {Status: Edited},
		"lines.0.qty":    {Status: Edited},
		"lines.1":        {Status: Edited},
		"lines.1.amount": {Status: Edited},
		"lines.10.qty":   {Status: Ungrounded},
		"seller.name":    {Status: Edited},
	}
	if !reflect.DeepEqual(m, want) {
		t.Errorf("MarkEdited:\n got %v\nwant %v", m, want)
	}
	if m := Map(nil).MarkEdited("a"); !reflect.DeepEqual(m, Map{"a": {Status: Edited}}) {
		t.Errorf("on a nil map: %v", m)
	}
	if m := (Map{"a": {Status: Grounded}, "b.c": {Status: Ungrounded}}).MarkEdited(""); m.Counts().Edited != 3 {
		t.Errorf("the root marks all: %v", m)
	}
}

func TestCountsAndPaths(t *testing.T) {
	m := Map{
		"b":  {Status: Grounded},
		"a":  {Status: Grounded},
		"c":  {Status: Ambiguous},
		"d":  {Status: Ungrounded},
		"e":  {Status: Edited},
		"a0": {Status: Grounded},
	}
	if got, want := m.Counts(), (Counts{Grounded: 3, Ambiguous: 1, Ungrounded: 1, Edited: 1}); got != want {
		t.Errorf("Counts = %+v, want %+v", got, want)
	}
	if got := m.Paths(Grounded); !reflect.DeepEqual(got, []string{"a", "a0", "b"}) {
		t.Errorf("Paths(grounded) = %q", got)
	}
	if got := m.Paths(Edited); !reflect.DeepEqual(got, []string{"e"}) {
		t.Errorf("Paths(edited) = %q", got)
	}
	if got := m.Paths("none"); got != nil {
		t.Errorf("Paths(none) = %q", got)
	}
}

// The wire form: status always, the rest only when set.
func TestEvidenceJSON(t *testing.T) {
	for ev, want := range map[*Evidence]string{
		{Status: Ungrounded}: `{"status":"ungrounded"}`,
		{Page: 2, Quote: "12.00", BBox: []float64{0.1, 0.2, 0.3, 0.4}, Status: Grounded}:                                `{"page":2,"quote":"12.00","bbox":[0.1,0.2,0.3,0.4],"status":"grounded"}`,
		{Page: 1, Quote: "1", Status: Ambiguous, Candidates: []Candidate{{Page: 1, Quote: "1"}, {Page: 2, Quote: "1"}}}: `{"page":1,"quote":"1","status":"ambiguous","candidates":[{"page":1,"quote":"1"},{"page":2,"quote":"1"}]}`,
	} {
		b, err := json.Marshal(ev)
		if err != nil || string(b) != want {
			t.Errorf("%s, %v; want %s", b, err, want)
		}
	}
}

// An Index grounds several values against one document, concurrently too.
func TestIndexReuse(t *testing.T) {
	pages := []Page{layout("Invoice 17   Total 99.00", "Subtotal 99.00")}
	x := NewIndex(pages)
	want := ground(t, `{"number":"17","total":99}`, pages...)
	done := make(chan Map)
	for range 4 {
		go func() {
			m, _ := x.Ground(json.RawMessage(`{"number":"17","total":99}`))
			done <- m
		}()
	}
	for range 4 {
		if m := <-done; !reflect.DeepEqual(m, want) {
			t.Errorf("Index.Ground = %v, want %v", m, want)
		}
	}
	if want["total"].Status != Grounded || want["total"].Quote != "99.00" || want["total"].BBox[1] != 0 {
		t.Errorf("total: %s", describe(want["total"]))
	}
}
