package pipeline

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strings"
	"testing"
)

// stageCalls are the calls that run or order a stage of a document: storing
// a file, queueing it for auto-create, claiming it for OCR, embedding
// chunks, starting a background worker.
var stageCalls = map[string]bool{
	"ImportFiles": true, "ImportReader": true, "ImportBytes": true,
	"QueueAutoCreate": true, "ClaimOCR": true, "NextOCR": true, "NewWorker": true, "EmbedMissing": true,
}

// TestOnlyThePipelineOrdersStages keeps the order of the stages in one
// place, so that the doors cannot disagree about it again: outside app/pipeline (and the engines it drives, app/ingest
// and its OCR), the edges call a stage only through a pipeline, never on
// the importer, the store or the embedder. The check is by name: a call of
// one of stageCalls must be made on a value whose expression names the
// pipeline ("pipe", "s.pipeline", "handler.Pipeline()").
func TestOnlyThePipelineOrdersStages(t *testing.T) {
	root := filepath.Join("..")
	fset := token.NewFileSet()
	var bad []string
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		if d.IsDir() {
			if rel == "pipeline" || rel == "ingest" || strings.HasPrefix(rel, "ingest"+string(filepath.Separator)) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		ast.Inspect(f, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok {
				return true
			}
			sel, ok := call.Fun.(*ast.SelectorExpr)
			if !ok || !stageCalls[sel.Sel.Name] {
				return true
			}
			recv := exprText(sel.X)
			if !strings.Contains(strings.ToLower(recv), "pipe") {
				bad = append(bad, fset.Position(call.Pos()).String()+": "+recv+"."+sel.Sel.Name)
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(bad) > 0 {
		t.Errorf("stages run outside app/pipeline (hand the document to the pipeline instead):\n%s", strings.Join(bad, "\n"))
	}
}

// exprText is the source form of a receiver expression, as far as the
// check needs it.
func exprText(e ast.Expr) string {
	switch e := e.(type) {
	case *ast.Ident:
		return e.Name
	case *ast.SelectorExpr:
		return exprText(e.X) + "." + e.Sel.Name
	case *ast.CallExpr:
		return exprText(e.Fun) + "()"
	case *ast.ParenExpr:
		return exprText(e.X)
	case *ast.StarExpr:
		return exprText(e.X)
	}
	return "?"
}
