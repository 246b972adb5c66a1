package main

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
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

// linkerGraph builds the wasm once and returns what the linker kept,
// from its reachability graph (-dumpdep), where each line "a -> b" says b
// is kept because a is. go tool nm cannot read wasm.
var linkerGraph = sync.OnceValues(func() (map[string]bool, error) {
	dir, err := os.MkdirTemp("", "wasm-deps")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	build := exec.Command("go", "build", "-trimpath", "-ldflags=-dumpdep", "-o", filepath.Join(dir, "app.wasm"), ".")
	build.Env = wasmEnv()
	out, err := build.CombinedOutput()
	if err != nil {
		return nil, fmt.Errorf("go build: %v\n%s", err, out)
	}
	kept := map[string]bool{}
	for _, line := range strings.Split(string(out), "\n") {
		if _, to, ok := strings.Cut(line, " -> "); ok {
			kept[strings.TrimSpace(to)] = true
		}
	}
	if !kept["github.com/coder/websocket.Dial"] {
		return nil, errors.New("the linker graph lacks websocket.Dial: the checks would pass for the wrong reason")
	}
	return kept, nil
})

func linked(t *testing.T) map[string]bool {
	t.Helper()
	if testing.Short() {
		t.Skip("builds the wasm (over a minute on a small machine); skipped with -short")
	}
	kept, err := linkerGraph()
	if err != nil {
		t.Fatal(err)
	}
	return kept
}

// TestNoHTTPClient fails when the linker keeps net/http's client or
// server. The net/http package itself is imported by go-app and
// coder/websocket for their types, so its presence in go list -deps
// proves nothing; what matters is whether that code (about 0.6 MB
// brotli) survives dead-code elimination.
func TestNoHTTPClient(t *testing.T) {
	kept := linked(t)
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

// TestNoSchemaParser fails when the widget links app/elicit's schema
// parser, URL checks or secret-word lists. The bridge parses and checks
// every request and sends the widget its reading (wire.RequestView), so
// these would be dead weight in every download (about 48 KB brotli).
func TestNoSchemaParser(t *testing.T) {
	kept := linked(t)
	const elicit = module + "/app/elicit."
	if !kept[elicit+"(*Form).Collect"] {
		t.Fatal("the linker graph lacks Form.Collect: the check would pass for the wrong reason")
	}
	for _, sym := range []string{
		"ParseRequest", "Parse", "(*schemaParser).form", "readParams", "newTreeReader",
		"(*SchemaError).Error", "CheckURL", "decodePunycode", "mixedScript",
		"(*Form).Sensitive", "secretIn", "Humanize",
	} {
		if kept[elicit+sym] {
			t.Errorf("the wasm links elicit.%s", sym)
		}
	}
}
