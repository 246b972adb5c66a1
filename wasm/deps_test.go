package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// The widget is downloaded by every person who answers, so what it links
// is checked here rather than trusted to import discipline.

const module = "github.com/formbridge/formbridge"

func wasmEnv() []string {
	return append(os.Environ(), "GOOS=js", "GOARCH=wasm")
}

// TestNoServerPackages fails when a server package reaches the wasm build.
func TestNoServerPackages(t *testing.T) {
	cmd := exec.Command("go", "list", "-deps", "-f", "{{.ImportPath}}", ".")
	cmd.Env = wasmEnv()
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	for _, p := range strings.Fields(string(out)) {
		if p == module+"/server" || strings.HasPrefix(p, module+"/server/") {
			t.Errorf("the wasm build imports %s", p)
		}
		if strings.HasPrefix(p, "github.com/modelcontextprotocol/") || strings.HasPrefix(p, "github.com/chromedp/") {
			t.Errorf("the wasm build imports %s, a host-only module", p)
		}
	}
}

// TestNoHTTPClient builds the wasm and fails when the linker keeps
// net/http's client or server. The net/http package itself is imported by
// go-app and coder/websocket for their types, so its presence in
// go list -deps proves nothing; what matters is whether that code (about
// 0.6 MB brotli) survives dead-code elimination. go tool nm cannot read
// wasm, so this reads the linker's reachability graph (-dumpdep), where
// each line "a -> b" says b is kept because a is.
func TestNoHTTPClient(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the wasm (over a minute on a small machine); skipped with -short")
	}
	build := exec.Command("go", "build", "-trimpath", "-ldflags=-dumpdep", "-o", filepath.Join(t.TempDir(), "app.wasm"), ".")
	build.Env = wasmEnv()
	out, err := build.CombinedOutput()
	if err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	kept := map[string]bool{}
	for _, line := range strings.Split(string(out), "\n") {
		if _, to, ok := strings.Cut(line, " -> "); ok {
			kept[strings.TrimSpace(to)] = true
		}
	}
	if !kept["github.com/coder/websocket.Dial"] {
		t.Fatal("the linker graph lacks websocket.Dial: the check would pass for the wrong reason")
	}
	for _, sym := range []string{
		"net/http.(*Client).do",
		"net/http.(*Transport).roundTrip",
		"net/http.(*Server).Serve",
		"net/http.(*conn).serve",
	} {
		if kept[sym] {
			t.Errorf("the wasm links %s", sym)
		}
	}
	for sym := range kept {
		if strings.HasPrefix(sym, module+"/server") {
			t.Errorf("the wasm links %s", sym)
		}
	}
}
