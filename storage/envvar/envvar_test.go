package envvar

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// moduleRoot is the repository root, two folders up from this package.
const moduleRoot = "../.."

// readsElsewhere are the files and folders (relative to the module root,
// folders ending in /) that may read the environment themselves, and why.
// Each may read only the variables listed; those that are settings are in
// the table too.
var readsElsewhere = map[string]struct {
	why   string
	names []string // nil: any (the reader child's own protocol)
}{
	"app/ingest/pdftext/":      {why: "the reader child's own protocol between docent and its child (DOCENT_PDFTEXT_*, the child's GOGC), not a setting"},
	"app/internal/testcorpus/": {why: "test support: where the shared corpus is", names: []string{"CI", "DOCENT_CORPUS"}},
	"app/internal/artifacts/":  {why: "test support: where tests put screenshots", names: []string{"DOCENT_TEST_ARTIFACTS"}},
}

// envReaders are the functions that read the process's environment.
var envReaders = map[string][]string{
	"os":      {"Getenv", "LookupEnv", "Environ", "ExpandEnv"},
	"syscall": {"Getenv", "Environ"},
}

// source is what the module's non-test Go files do with the environment.
type source struct {
	reads    []string            // "file:line: os.Getenv" outside this package and readsElsewhere
	refs     map[string]bool     // the constants of this package named elsewhere (envvar.X)
	literal  map[string][]string // variables read by name in readsElsewhere files: name -> where
	badNames []string            // readsElsewhere reads of a variable not allowed there
}

func scanModule(t *testing.T) source {
	t.Helper()
	src := source{refs: map[string]bool{}, literal: map[string][]string{}}
	fset := token.NewFileSet()
	err := filepath.WalkDir(moduleRoot, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(moduleRoot, path)
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			if rel == "frontend" || rel == "storage/envvar" || strings.HasPrefix(d.Name(), ".") && rel != "." {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(rel, ".go") || strings.HasSuffix(rel, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		allowed, exempt := exemption(rel)
		ast.Inspect(f, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.SelectorExpr:
				pkg, ok := n.X.(*ast.Ident)
				if !ok {
					return true
				}
				if pkg.Name == "envvar" {
					src.refs[n.Sel.Name] = true
				}
				if !slices.Contains(envReaders[pkg.Name], n.Sel.Name) {
					return true
				}
				where := fset.Position(n.Pos())
				at := rel + ":" + strconv.Itoa(where.Line) + ": " + pkg.Name + "." + n.Sel.Name
				if !exempt {
					src.reads = append(src.reads, at)
				}
			case *ast.CallExpr:
				sel, ok := n.Fun.(*ast.SelectorExpr)
				if !ok || !exempt || allowed == nil {
					return true
				}
				if pkg, ok := sel.X.(*ast.Ident); !ok || !slices.Contains(envReaders[pkg.Name], sel.Sel.Name) {
					return true
				}
				at := rel + ":" + strconv.Itoa(fset.Position(n.Pos()).Line)
				var lit *ast.BasicLit
				if len(n.Args) == 1 {
					lit, _ = n.Args[0].(*ast.BasicLit)
				}
				if lit == nil {
					src.badNames = append(src.badNames, at+": a read by a name that is not a literal")
					return true
				}
				name, _ := strconv.Unquote(lit.Value)
				if !slices.Contains(allowed, name) {
					src.badNames = append(src.badNames, at+": "+name)
				}
				src.literal[name] = append(src.literal[name], at)
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatalf("read the module's source: %v", err)
	}
	return src
}

// exemption says whether rel may read the environment itself, and which
// variables (nil: any).
func exemption(rel string) ([]string, bool) {
	for prefix, e := range readsElsewhere {
		if rel == prefix || strings.HasSuffix(prefix, "/") && strings.HasPrefix(rel, prefix) {
			return e.names, true
		}
	}
	return nil, false
}

// declared maps the Name constants of this package to their values, read
// from envvar.go's source.
func declared(t *testing.T) map[string]Name {
	t.Helper()
	f, err := parser.ParseFile(token.NewFileSet(), "envvar.go", nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]Name{}
	for _, d := range f.Decls {
		g, ok := d.(*ast.GenDecl)
		if !ok || g.Tok != token.CONST {
			continue
		}
		for _, spec := range g.Specs {
			v := spec.(*ast.ValueSpec)
			if id, ok := v.Type.(*ast.Ident); !ok || id.Name != "Name" {
				continue
			}
			for i, n := range v.Names {
				s, _ := strconv.Unquote(v.Values[i].(*ast.BasicLit).Value)
				out[n.Name] = Name(s)
			}
		}
	}
	return out
}

// Every read of the environment goes through Get, so the table is the
// whole truth of what Docent reads.
func TestNoEnvironmentReadOutsideTheTable(t *testing.T) {
	src := scanModule(t)
	if len(src.reads) > 0 {
		t.Errorf("environment read outside storage/envvar (use envvar.Get with a variable of its table):\n  %s", strings.Join(src.reads, "\n  "))
	}
	if len(src.badNames) > 0 {
		t.Errorf("reads not allowed in readsElsewhere:\n  %s", strings.Join(src.badNames, "\n  "))
	}
	if len(src.refs) == 0 {
		t.Fatal("no use of envvar found in the module: is moduleRoot right?")
	}
}

// The table lists exactly the variables that are read: every Name constant
// is in the table, and every row is read somewhere (a stale row would
// document a variable that does nothing).
func TestTableMatchesTheCode(t *testing.T) {
	consts := declared(t)
	src := scanModule(t)
	inTable := map[Name]bool{}
	for _, v := range table {
		if inTable[v.Name] {
			t.Errorf("%s is in the table twice", v.Name)
		}
		inTable[v.Name] = true
		if v.Means == "" || v.Default == "" {
			t.Errorf("%s: say what it means and its default", v.Name)
		}
	}
	for id, name := range consts {
		if !inTable[name] {
			t.Errorf("envvar.%s (%s) is not in the table", id, name)
		}
		if !src.refs[id] && !readByGetter(t)[id] && len(src.literal[string(name)]) == 0 {
			t.Errorf("envvar.%s (%s) is in the table but nothing reads it", id, name)
		}
	}
	if len(consts) != len(table) {
		t.Errorf("%d constants, %d rows: each row needs its constant", len(consts), len(table))
	}
	for name, at := range src.literal {
		if n := Name(name); !inTable[n] && !testOnly(name) {
			t.Errorf("%s, read at %s, is not in the table", name, at)
		}
	}
}

// readByGetter are the Name constants this package's typed getters read
// (Get(X) in typed.go).
func readByGetter(t *testing.T) map[string]bool {
	t.Helper()
	f, err := parser.ParseFile(token.NewFileSet(), "typed.go", nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]bool{}
	ast.Inspect(f, func(n ast.Node) bool {
		if c, ok := n.(*ast.CallExpr); ok && len(c.Args) == 1 {
			if fn, ok := c.Fun.(*ast.Ident); ok && fn.Name == "Get" {
				if id, ok := c.Args[0].(*ast.Ident); ok {
					out[id.Name] = true
				}
			}
		}
		return true
	})
	return out
}

// testOnly is true of the variables that only tests set.
func testOnly(name string) bool {
	return name == "CI" || name == "DOCENT_CORPUS" || name == "DOCENT_TEST_ARTIFACTS"
}

// docs/configuration.md has one row per variable, with its flag, and no
// row for a variable Docent does not read.
func TestConfigurationDocListsEveryVariable(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(moduleRoot, "docs", "configuration.md"))
	if err != nil {
		t.Fatalf("read docs/configuration.md: %v", err)
	}
	_, section, ok := strings.Cut(string(data), "\n## Environment variables\n")
	if !ok {
		t.Fatal("docs/configuration.md has no section \"## Environment variables\"")
	}
	section, _, _ = strings.Cut(section, "\n## ")
	rows := map[Name]string{}
	row := regexp.MustCompile("(?m)^\\| `([A-Za-z_]+)` \\|(.*)$")
	for _, m := range row.FindAllStringSubmatch(section, -1) {
		rows[Name(m[1])] = m[2]
	}
	for _, v := range table {
		r, ok := rows[v.Name]
		if !ok {
			t.Errorf("docs/configuration.md has no row \"| `%s` |\"", v.Name)
			continue
		}
		if flag, _, _ := strings.Cut(v.Flag, " "); flag != "" && !strings.Contains(r, "`"+flag) {
			t.Errorf("docs/configuration.md's row of %s does not name its flag %s", v.Name, flag)
		}
		delete(rows, v.Name)
	}
	for name := range rows {
		t.Errorf("docs/configuration.md has a row for %s, which Docent does not read (or which is missing from the table)", name)
	}
}
