package ui

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"strings"
	"testing"
)

// renderNow flushes through go-app's Consume, which first waits for every
// goroutine started with ctx.Async (ctx.After is one) to end: one running
// for the page's life (the client, the clock) would freeze the widget at
// its first flush. No code of the widget (app/..., wasm/) may start one.
func TestNoGoAppAsync(t *testing.T) {
	t.Parallel()
	var files []string
	for _, pattern := range []string{"../*/*.go", "../../wasm/*.go"} {
		m, err := filepath.Glob(pattern)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, m...)
	}
	if len(files) < 20 {
		t.Fatalf("found only %d Go files of the widget: %v", len(files), files)
	}
	fset := token.NewFileSet()
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(f, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok {
				return true
			}
			sel, ok := call.Fun.(*ast.SelectorExpr)
			if !ok {
				return true
			}
			recv, isIdent := sel.X.(*ast.Ident)
			switch {
			case sel.Sel.Name == "Async",
				sel.Sel.Name == "After" && isIdent && recv.Name == "ctx":
				t.Errorf("%s: %s.%s: renderNow would wait for it; start a goroutine with go, or use after", fset.Position(call.Pos()), exprName(sel.X), sel.Sel.Name)
			}
			return true
		})
	}
}

func exprName(e ast.Expr) string {
	if id, ok := e.(*ast.Ident); ok {
		return id.Name
	}
	return "…"
}
