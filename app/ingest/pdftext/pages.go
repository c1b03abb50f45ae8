package pdftext

import (
	"context"
	"reflect"

	"github.com/ledongthuc/pdf"
)

// Bounds on the page tree: deeper trees and more pages than these are
// hostile, not documents.
const (
	maxTreeDepth = 1000
	maxPages     = 100_000
)

// pageList walks the page tree and returns the page dictionaries in order.
// ledongthuc's Reader.Page follows /Count and /Kids without remembering
// where it has been, so a tree whose kids point back up loops forever; this
// walk visits each indirect object once and stops at maxTreeDepth.
func pageList(ctx context.Context, root pdf.Value) ([]pdf.Value, []string, error) {
	var pages []pdf.Value
	var warnings []string
	seen := map[objID]bool{}
	if id, ok := indirectID(root); ok {
		seen[id] = true
	}
	var walk func(node pdf.Value, depth int) error
	walk = func(node pdf.Value, depth int) error {
		if err := ctx.Err(); err != nil {
			return err
		}
		kids := node.Key("Kids")
		for i := 0; i < kids.Len(); i++ {
			kid := kids.Index(i)
			if kid.Kind() != pdf.Dict {
				continue
			}
			if id, ok := kidID(kids, i); ok {
				if seen[id] {
					warnings = append(warnings, "page tree has a loop; each page is read once")
					continue
				}
				seen[id] = true
			}
			isNode := kid.Key("Type").Name() == "Pages" || (kid.Key("Type").Name() != "Page" && kid.Key("Kids").Kind() == pdf.Array)
			if !isNode {
				if len(pages) >= maxPages {
					return malformed("more than %d pages", maxPages)
				}
				pages = append(pages, kid)
				continue
			}
			if depth >= maxTreeDepth {
				warnings = append(warnings, "page tree deeper than 1000 levels; the rest is skipped")
				continue
			}
			if err := walk(kid, depth+1); err != nil {
				return err
			}
		}
		return nil
	}
	if root.Key("Type").Name() == "Page" || (root.Key("Kids").Kind() != pdf.Array && root.Key("Contents").Kind() != pdf.Null) {
		// A catalog whose /Pages is a single page.
		return []pdf.Value{root}, nil, nil
	}
	if err := walk(root, 0); err != nil {
		return nil, warnings, err
	}
	return pages, dedupe(warnings), nil
}

func dedupe(ss []string) []string {
	var out []string
	seen := map[string]bool{}
	for _, s := range ss {
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	return out
}

type objID struct {
	id  uint64
	gen uint64
}

// The pinned ledongthuc/pdf keeps object identity in unexported fields: a
// Value's ptr is the indirect object it came from, and an array's elements
// are objptr values until resolved. Reflection reads them (read-only) so the
// page walk can recognise an object it has seen; if a later version renames
// the fields, ok is false and the walk falls back on its depth bound.

// indirectID is the object a Value was loaded from.
func indirectID(v pdf.Value) (objID, bool) {
	p := reflect.ValueOf(v).FieldByName("ptr")
	if !p.IsValid() || p.Kind() != reflect.Struct {
		return objID{}, false
	}
	id, gen := p.FieldByName("id"), p.FieldByName("gen")
	if !id.IsValid() || !gen.IsValid() {
		return objID{}, false
	}
	return objID{id.Uint(), gen.Uint()}, true
}

// kidID is the object that element i of the array refers to, if it is a
// reference rather than a direct dictionary.
func kidID(arr pdf.Value, i int) (objID, bool) {
	d := reflect.ValueOf(arr).FieldByName("data")
	if !d.IsValid() || d.Kind() != reflect.Interface || d.IsNil() {
		return objID{}, false
	}
	a := d.Elem()
	if a.Kind() != reflect.Slice || i >= a.Len() {
		return objID{}, false
	}
	e := a.Index(i)
	if e.Kind() == reflect.Interface {
		if e.IsNil() {
			return objID{}, false
		}
		e = e.Elem()
	}
	if e.Kind() != reflect.Struct || e.Type().Name() != "objptr" {
		return objID{}, false
	}
	id, gen := e.FieldByName("id"), e.FieldByName("gen")
	if !id.IsValid() || !gen.IsValid() {
		return objID{}, false
	}
	return objID{id.Uint(), gen.Uint()}, true
}
