package e2e

import (
	"context"
	"os"
	"sync"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/formbridge/formbridge/server/internal/chromium"
)

// RequireEnv names the variable that turns a skip into a failure.
const RequireEnv = "FORMBRIDGE_E2E"

// skipOrFail skips the test with why, or fails it when the environment
// requires the browser tests to run.
func skipOrFail(t testing.TB, why string) {
	t.Helper()
	if os.Getenv(RequireEnv) == "require" {
		t.Fatalf("%s (%s=require: browser tests must run)", why, RequireEnv)
	}
	t.Skipf("%s; skipping the browser test (set %s=require to fail instead)", why, RequireEnv)
}

// NewBrowser starts a headless Chromium on a fresh profile and returns a
// context for its first tab; the browser's console goes to t.Logf. The
// browser is closed when the test ends. It skips (or fails, see
// RequireEnv) when Chromium or the built web/app.wasm is missing.
func NewBrowser(t testing.TB) context.Context {
	t.Helper()
	if !wasmBuilt(WebDir()) {
		skipOrFail(t, "web/app.wasm is not built (run make wasm)")
	}
	exe, ok := chromium.Path()
	if !ok {
		skipOrFail(t, "Chromium not found (install Debian's chromium, or set FORMBRIDGE_CHROMIUM)")
	}
	dir, err := chromium.NewDir()
	if err != nil {
		t.Fatal(err)
	}
	// Screenshots show the page, not a scrollbar over its right edge.
	opts := append(chromium.Options(exe, dir), chromedp.Flag("hide-scrollbars", true))
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancel := chromedp.NewContext(actx)
	logs := &consoleLog{t: t}
	t.Cleanup(func() {
		logs.stop()
		cancel()
		cancelAlloc()
		if err := os.RemoveAll(dir); err != nil {
			t.Errorf("removing the browser's folder: %v", err)
		}
	})
	logs.listen(ctx, "tab 1")
	if err := chromedp.Do(ctx); err != nil {
		t.Fatalf("starting Chromium (%s): %v", exe, err)
	}
	return ctx
}

// NewTab opens another tab in the browser of ctx, with its console logged.
func NewTab(t testing.TB, ctx context.Context, name string) context.Context {
	t.Helper()
	tab, cancel := chromedp.NewContext(ctx)
	logs := &consoleLog{t: t}
	t.Cleanup(func() {
		logs.stop()
		cancel()
	})
	logs.listen(tab, name)
	if err := chromedp.Do(tab); err != nil {
		t.Fatalf("opening %s: %v", name, err)
	}
	return tab
}

// consoleLog pipes a tab's console, uncaught exceptions and browser log
// entries (CSP violations among them) into the test log, and stops
// before the test ends (t.Logf panics after that).
type consoleLog struct {
	t       testing.TB
	mu      sync.Mutex
	stopped bool
}

func (c *consoleLog) stop() {
	c.mu.Lock()
	c.stopped = true
	c.mu.Unlock()
}

func (c *consoleLog) logf(format string, args ...any) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.stopped {
		c.t.Logf(format, args...)
	}
}

func (c *consoleLog) listen(ctx context.Context, name string) {
	messages := chromedp.Console(ctx)
	go func() {
		for m, err := range messages {
			if err != nil {
				return
			}
			c.logf("%s %s", name, m)
		}
	}()
}
