package main

import (
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/docent/docent/agent/jsonfields"
)

const module = "github.com/docent/docent"

// Gen writes TypeScript declarations of Go wire types, so that the web
// UI's types are derived from the Go ones instead of written twice.
//
// It reflects over the types it is given and over every type they
// reference, reading members through their JSON tags as encoding/json does
// (agent/jsonfields); doc comments are copied from the Go source.
//
// Mapping: string → string, bool → boolean, numbers → number, time.Time →
// string, json.RawMessage and interfaces → unknown, slices → T[], maps →
// Record<string, T>, a struct → an interface of its TypeScript name, *T →
// T | null, and a member with omitempty is optional (name?). A field's
// `ts:"..."` tag replaces its TypeScript type (' stands for "). A type's
// TypeScript name is its Go name with an upper-case first letter, unless
// Names gives another; a named type that is not a struct is written as
// its structure, unless Names names it: then it is declared as a type of
// its own, and a string type whose package declares constants of it is
// the union of their values.
//
// Gen writes the declarations of one file. Declare and its kin write a
// type and queue what it references; Finish writes the queued ones.
type Gen struct {
	// Names gives the TypeScript name of Go types whose own name is not
	// it, and declares the named non-struct types listed (see the package
	// comment).
	Names map[reflect.Type]string
	// Imported are types another file declares, by their TypeScript name:
	// they are referenced, not written, and Imports lists those used.
	Imported map[reflect.Type]string

	root  string
	b     strings.Builder
	docs  map[string]*typeDoc // package path + "." + type name → docs, loaded per package
	names map[string]reflect.Type
	queue []reflect.Type
	done  map[reflect.Type]bool
	used  map[string]bool
	err   error
}

// New returns a Gen that reads doc comments below root, the repository
// root.
func New(root string) *Gen {
	return &Gen{
		Names: map[reflect.Type]string{}, Imported: map[reflect.Type]string{},
		root: root, docs: map[string]*typeDoc{}, names: map[string]reflect.Type{},
		done: map[reflect.Type]bool{}, used: map[string]bool{},
	}
}

// WriteString writes s as it is (a header, a hand-made declaration).
func (g *Gen) WriteString(s string) { g.b.WriteString(s) }

// Name is the TypeScript name of named type t.
func (g *Gen) Name(t reflect.Type) string {
	if n, ok := g.Imported[t]; ok {
		return n
	}
	if n, ok := g.Names[t]; ok {
		return n
	}
	r, size := utf8.DecodeRuneInString(t.Name())
	return string(unicode.ToUpper(r)) + t.Name()[size:]
}

// claim reserves a TypeScript name for t; two Go types of one name are an
// error.
func (g *Gen) claim(name string, t reflect.Type) {
	if prev, ok := g.names[name]; ok && prev != t {
		g.fail(fmt.Errorf("two types would be %s in TypeScript: %s and %s", name, prev, t))
	}
	g.names[name] = t
}

func (g *Gen) fail(err error) {
	if g.err == nil {
		g.err = err
	}
}

// Declare writes t (a struct, or a type Names names) under its TypeScript
// name.
func (g *Gen) Declare(t reflect.Type) {
	g.done[t] = true
	name := g.Name(t)
	g.claim(name, t)
	if t.Kind() != reflect.Struct {
		g.declareNamed(name, t)
		return
	}
	g.writeInterface(name, t, "", false)
}

// DeclareAs writes struct t as interface name, with first as its first
// member line (an event's `type`).
func (g *Gen) DeclareAs(name string, t reflect.Type, first string) {
	g.claim(name, t)
	g.writeInterface(name, t, first, false)
}

// DeclareRequest writes struct t as a request body: every member may be
// left out, as the server decodes a body that lacks it (and says what is
// missing when it needs it).
func (g *Gen) DeclareRequest(t reflect.Type) {
	g.done[t] = true
	name := g.Name(t)
	g.claim(name, t)
	g.writeInterface(name, t, "", true)
}

// Queue has t written by Finish, after what is queued before it.
func (g *Gen) Queue(t reflect.Type) { g.enqueue(t) }

// Union writes a union of string literals, with doc as its comment.
func (g *Gen) Union(name, doc string, values []string) {
	quoted := make([]string, len(values))
	for i, v := range values {
		quoted[i] = strconv.Quote(v)
	}
	g.b.WriteString("\n")
	writeDoc(&g.b, "", doc)
	fmt.Fprintf(&g.b, "export type %s =\n  | %s;\n", name, strings.Join(quoted, "\n  | "))
}

// Finish writes every type still queued and returns the file; Imports
// lists what it references of other files.
func (g *Gen) Finish() ([]byte, error) {
	for len(g.queue) > 0 {
		t := g.queue[0]
		g.queue = g.queue[1:]
		if !g.done[t] {
			g.Declare(t)
		}
	}
	if g.err != nil {
		return nil, g.err
	}
	return []byte(g.b.String()), nil
}

// Declared lists the TypeScript names and Go types this Gen has written,
// for another file to import them (Imported).
func (g *Gen) Declared() map[reflect.Type]string {
	out := map[reflect.Type]string{}
	for name, t := range g.names {
		if t != nil {
			out[t] = name
		}
	}
	return out
}

// Imports are the TypeScript names of Imported types the file references,
// sorted.
func (g *Gen) Imports() []string {
	var out []string
	for n := range g.used {
		out = append(out, n)
	}
	slices.Sort(out)
	return out
}

func (g *Gen) writeInterface(name string, t reflect.Type, first string, request bool) {
	b := &g.b
	b.WriteString("\n")
	writeDoc(b, "", g.doc(t).text)
	fmt.Fprintf(b, "export interface %s {\n", name)
	if first != "" {
		fmt.Fprintf(b, "  %s\n", first)
	}
	for _, f := range jsonfields.Of(t) {
		writeDoc(b, "  ", g.doc(f.Owner).fields[f.Go])
		optional := f.Optional || request
		opt := ""
		if optional {
			opt = "?"
		}
		var typ string
		if o, ok := f.Tag.Lookup("ts"); ok {
			typ = strings.ReplaceAll(o, "'", `"`)
			g.useNames(typ)
		} else {
			typ = g.tsType(f.Type, optional)
		}
		fmt.Fprintf(b, "  %s%s: %s;\n", f.Name, opt, typ)
	}
	b.WriteString("}\n")
}

// declareNamed writes a named type that is not a struct: the union of a
// string type's constants, else its structure.
func (g *Gen) declareNamed(name string, t reflect.Type) {
	d := g.doc(t)
	if t.Kind() == reflect.String && len(d.values) > 0 {
		g.Union(name, d.text, d.values)
		return
	}
	g.b.WriteString("\n")
	writeDoc(&g.b, "", d.text)
	fmt.Fprintf(&g.b, "export type %s = %s;\n", name, g.structure(t))
}

// tsType is the TypeScript of Go type t; optional members drop the null of
// a pointer (omitempty leaves nil out).
func (g *Gen) tsType(t reflect.Type, optional bool) string {
	if n, ok := g.Imported[t]; ok {
		g.used[n] = true
		return n
	}
	if _, ok := g.Names[t]; ok && t.Kind() != reflect.Struct && t.Kind() != reflect.Pointer {
		g.enqueue(t)
		return g.Names[t]
	}
	if t.Kind() == reflect.Pointer {
		if optional {
			return g.tsType(t.Elem(), false)
		}
		return g.tsType(t.Elem(), false) + " | null"
	}
	return g.structure(t)
}

// useNames marks the Imported types a ts tag's TypeScript names as used.
func (g *Gen) useNames(ts string) {
	words := strings.FieldsFunc(ts, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '_' })
	for _, n := range g.Imported {
		if slices.Contains(words, n) {
			g.used[n] = true
		}
	}
}

func (g *Gen) enqueue(t reflect.Type) {
	if !g.done[t] && !slices.Contains(g.queue, t) {
		g.queue = append(g.queue, t)
	}
}

// structure is the TypeScript of t's own structure.
func (g *Gen) structure(t reflect.Type) string {
	switch {
	case jsonfields.IsRaw(t), t.Kind() == reflect.Interface:
		return "unknown"
	case jsonfields.IsTime(t):
		return "string"
	}
	switch t.Kind() {
	case reflect.String:
		return "string"
	case reflect.Bool:
		return "boolean"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64,
		reflect.Float32, reflect.Float64:
		return "number"
	case reflect.Slice, reflect.Array:
		if t.Elem().Kind() == reflect.Uint8 {
			return "string" // base64
		}
		el := g.tsType(t.Elem(), false)
		if strings.Contains(el, "|") {
			el = "(" + el + ")"
		}
		return el + "[]"
	case reflect.Map:
		return "Record<string, " + g.tsType(t.Elem(), false) + ">"
	case reflect.Struct:
		if t.Name() == "" {
			var parts []string
			for _, f := range jsonfields.Of(t) {
				opt := ""
				if f.Optional {
					opt = "?"
				}
				parts = append(parts, fmt.Sprintf("%s%s: %s", f.Name, opt, g.tsType(f.Type, f.Optional)))
			}
			return "{ " + strings.Join(parts, "; ") + " }"
		}
		g.enqueue(t)
		return g.Name(t)
	}
	g.fail(fmt.Errorf("no TypeScript for Go type %s", t))
	return "unknown"
}

// writeDoc writes text as a JSDoc comment.
func writeDoc(b *strings.Builder, indent, text string) {
	text = strings.TrimSpace(strings.ReplaceAll(text, "*/", "*\\/"))
	if text == "" {
		return
	}
	lines := strings.Split(text, "\n")
	if len(lines) == 1 {
		fmt.Fprintf(b, "%s/** %s */\n", indent, lines[0])
		return
	}
	fmt.Fprintf(b, "%s/**\n", indent)
	for _, l := range lines {
		if l == "" {
			fmt.Fprintf(b, "%s *\n", indent)
		} else {
			fmt.Fprintf(b, "%s * %s\n", indent, l)
		}
	}
	fmt.Fprintf(b, "%s */\n", indent)
}

// typeDoc is the doc comment of a type and of its fields.
type typeDoc struct {
	text   string
	fields map[string]string
	// alias names the type this one is defined as (type A B), whose
	// fields' comments A's fields share.
	alias string
	// values are the string constants declared of the type, in source
	// order.
	values []string
}

// doc returns the doc comments of named type t from its package's source.
func (g *Gen) doc(t reflect.Type) *typeDoc {
	pkg := t.PkgPath()
	if _, ok := g.docs[pkg+"."]; !ok {
		g.docs[pkg+"."] = &typeDoc{}
		g.loadDocs(pkg)
	}
	d, ok := g.docs[pkg+"."+t.Name()]
	if !ok {
		return &typeDoc{}
	}
	if d.alias != "" && len(d.fields) == 0 {
		if a, ok := g.docs[pkg+"."+d.alias]; ok {
			d.fields = a.fields
		}
	}
	return d
}

// loadDocs reads the comments of the types of package pkg (a package of
// this module; others have none), and the string constants of each.
func (g *Gen) loadDocs(pkg string) {
	rel, ok := strings.CutPrefix(pkg, module)
	if !ok {
		return
	}
	dir := filepath.Join(g.root, filepath.FromSlash(strings.TrimPrefix(rel, "/")))
	entries, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	fset := token.NewFileSet()
	var consts []*ast.GenDecl
	for _, e := range entries {
		name := e.Name()
		if !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, filepath.Join(dir, name), nil, parser.ParseComments)
		if err != nil {
			g.fail(err)
			return
		}
		for _, decl := range f.Decls {
			gd, ok := decl.(*ast.GenDecl)
			if ok && gd.Tok == token.CONST {
				consts = append(consts, gd)
			}
			if !ok || gd.Tok != token.TYPE {
				continue
			}
			for _, spec := range gd.Specs {
				ts := spec.(*ast.TypeSpec)
				d := &typeDoc{fields: map[string]string{}}
				switch {
				case ts.Doc != nil:
					d.text = ts.Doc.Text()
				case len(gd.Specs) == 1 && gd.Doc != nil:
					d.text = gd.Doc.Text()
				}
				switch x := ts.Type.(type) {
				case *ast.StructType:
					for _, fld := range x.Fields.List {
						text := ""
						if fld.Doc != nil {
							text = fld.Doc.Text()
						} else if fld.Comment != nil {
							text = fld.Comment.Text()
						}
						for _, n := range fld.Names {
							d.fields[n.Name] = text
						}
					}
				case *ast.Ident:
					d.alias = x.Name
				}
				g.docs[pkg+"."+ts.Name.Name] = d
			}
		}
	}
	// Typed string constants: const X T = "v" (each spec names its type).
	for _, gd := range consts {
		for _, spec := range gd.Specs {
			vs := spec.(*ast.ValueSpec)
			id, ok := vs.Type.(*ast.Ident)
			if !ok || len(vs.Values) != len(vs.Names) {
				continue
			}
			d, ok := g.docs[pkg+"."+id.Name]
			if !ok {
				continue
			}
			for _, v := range vs.Values {
				if lit, ok := v.(*ast.BasicLit); ok && lit.Kind == token.STRING {
					if s, err := strconv.Unquote(lit.Value); err == nil {
						d.values = append(d.values, s)
					}
				}
			}
		}
	}
}

// RepoRoot is the directory of the go.mod above the working directory.
func RepoRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("no go.mod above the working directory")
		}
		dir = parent
	}
}

// FirstDifference describes the first line where got differs from want.
func FirstDifference(got, want []byte) string {
	g, w := strings.Split(string(got), "\n"), strings.Split(string(want), "\n")
	for i := range max(len(g), len(w)) {
		var a, b string
		if i < len(g) {
			a = g[i]
		}
		if i < len(w) {
			b = w[i]
		}
		if a != b || i >= len(g) || i >= len(w) {
			return fmt.Sprintf("line %d is %q, want %q", i+1, a, b)
		}
	}
	return "no difference"
}
