package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"
	"github.com/google/go-cmp/cmp"

	"github.com/formbridge/formbridge/app/wire"
)

// stepTimeout bounds one browser step; the wasm loads in a few seconds on
// a small machine, the rest is faster.
const stepTimeout = 45 * time.Second

// do runs browser steps, failing the test on error.
func do(t *testing.T, ctx context.Context, what string, steps ...chromedp.Action[chromedp.Void]) {
	t.Helper()
	sctx, cancel := context.WithTimeout(ctx, stepTimeout)
	defer cancel()
	if err := chromedp.Do(sctx, steps...); err != nil {
		t.Fatalf("%s: %v; the page shows:\n%s", what, err, pageText(ctx))
	}
}

// pageText is what the page shows, for a failure's message: a step that
// timed out says little by itself.
func pageText(ctx context.Context) string {
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	text, err := chromedp.Run(ctx, chromedp.Evaluate[string](`document.body ? document.body.innerText.slice(0, 2000) : "(no body)"`))
	if err != nil {
		return "(could not read it: " + err.Error() + ")"
	}
	return text
}

// eval evaluates a JavaScript expression in the page.
func eval[T any](t *testing.T, ctx context.Context, expr string) T {
	t.Helper()
	ctx, cancel := context.WithTimeout(ctx, stepTimeout)
	defer cancel()
	v, err := chromedp.Run(ctx, chromedp.Evaluate[T](expr))
	if err != nil {
		t.Fatalf("evaluating %s: %v", expr, err)
	}
	return v
}

// runFirst has the browser run script in each page it loads, before the
// page's own scripts.
func runFirst(t *testing.T, ctx context.Context, script string) {
	t.Helper()
	if _, err := chromedp.Call(ctx, page.AddScriptToEvaluateOnNewDocument, page.AddScriptToEvaluateOnNewDocumentParams{Source: script}); err != nil {
		t.Fatal(err)
	}
}

// noteQuestion asks for one optional text field, "note".
const noteQuestion = `{"message":"Deploy?","requestedSchema":{"type":"object","properties":{"note":{"type":"string","title":"Note"}}}}`

// sendNote answers noteQuestion with "ok" and checks the caller got it.
func sendNote(t *testing.T, ctx context.Context, out <-chan Outcome) {
	t.Helper()
	do(t, ctx, "type and send", chromedp.SendKeys(field("note", "textarea, input"), "ok"), chromedp.Click(action("accept")))
	if o := await(t, ctx, out); o.Action != "accept" || o.Content["note"] != "ok" {
		t.Errorf("result = %+v", o)
	}
}

// waitJS waits until the expression is truthy.
func waitJS(t *testing.T, ctx context.Context, what, expr string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(ctx, stepTimeout)
	defer cancel()
	if _, err := chromedp.Run(ctx, chromedp.Poll[bool](expr, chromedp.WithPollingTimeout(stepTimeout))); err != nil {
		t.Fatalf("waiting for %s: %v", what, err)
	}
}

// css quotes s for a CSS attribute selector.
func css(s string) string { return strconv.Quote(s) }

// openWidget loads the widget page and waits until it is online.
func openWidget(t *testing.T, ctx context.Context, b *Bridge) {
	t.Helper()
	do(t, ctx, "open the widget",
		chromedp.Navigate(b.WidgetURL()),
		chromedp.WaitVisible(chromedp.CSS(`[data-connection="online"]`)),
	)
}

// waitForm waits for a shown request, and for focus in it, and returns
// its id. The widget moves focus into a newly shown request in go-app's
// next frame (see focusWait), after the page shows it: keys sent to a
// field before then may go where focus moves next. A frame without focus
// takes none (mayTakeFocus in app/ui).
func waitForm(t *testing.T, ctx context.Context) string {
	t.Helper()
	wctx, cancel := context.WithTimeout(ctx, stepTimeout)
	defer cancel()
	for {
		if err := chromedp.Do(wctx, chromedp.WaitVisible(chromedp.CSS(`form[data-elicitation-id]`))); err != nil {
			t.Fatalf("no request shown (%v); the page shows:\n%s", err, eval[string](t, ctx, `document.body.innerText`))
		}
		// The form seen may be one that was just answered and is
		// leaving: read the id in one step, and wait again if it left.
		id := eval[string](t, ctx, `document.querySelector("form[data-elicitation-id]")?.dataset.elicitationId ?? ""`)
		if id != "" {
			waitJS(t, ctx, "focus in the request shown", `document.activeElement?.closest("form[data-elicitation-id]")?.dataset.elicitationId === `+css(id)+` || (window !== top && !document.hasFocus())`)
			return id
		}
	}
}

// field is the selector of a control inside a field wrapper.
func field(key, control string) chromedp.CSS {
	return chromedp.CSS(fmt.Sprintf(`[data-field=%s] %s`, css(key), control))
}

// action is the selector of an action button.
func action(name string) chromedp.CSS {
	return chromedp.CSS(fmt.Sprintf(`button[data-action=%s]`, css(name)))
}

// setValue sets a control's value as a person's input would, firing the
// input and change events the UI listens to. For controls whose typing
// depends on the browser's locale (date, datetime-local, select).
func setValue(t *testing.T, ctx context.Context, sel chromedp.CSS, value string) {
	t.Helper()
	expr := fmt.Sprintf(`(() => {
		const el = document.querySelector(%s);
		if (!el) return false;
		el.focus();
		el.value = %s;
		el.dispatchEvent(new Event("input", {bubbles: true}));
		el.dispatchEvent(new Event("change", {bubbles: true}));
		return el.value === %s;
	})()`, strconv.Quote(string(sel)), strconv.Quote(value), strconv.Quote(value))
	if !eval[bool](t, ctx, expr) {
		t.Fatalf("could not set %s to %q", sel, value)
	}
}

// resultTimeout bounds the wait for the caller's result once the person
// has answered.
const resultTimeout = 15 * time.Second

// await waits for the caller's outcome; on timeout it logs what the page
// shows, which usually says why (a field error, an offline banner).
func await(t *testing.T, ctx context.Context, out <-chan Outcome) *wire.ElicitResult {
	t.Helper()
	select {
	case o := <-out:
		if o.Err != nil {
			t.Fatalf("Elicit returned an error: %v", o.Err)
		}
		return o.Result
	case <-time.After(resultTimeout):
		t.Logf("the page shows:\n%s", eval[string](t, ctx, `document.body.innerText`))
		t.Fatal("the caller got no result")
		return nil
	}
}

// wantResult compares what the caller received with the expected result,
// as JSON: the types matter (a number is not a string, false is not absent).
func wantResult(t *testing.T, got *wire.ElicitResult, want string) {
	t.Helper()
	gotJSON, err := json.Marshal(got)
	if err != nil {
		t.Fatal(err)
	}
	var g, w any
	if err := json.Unmarshal(gotJSON, &g); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal([]byte(want), &w); err != nil {
		t.Fatalf("bad expected JSON %s: %v", want, err)
	}
	if diff := cmp.Diff(w, g); diff != "" {
		t.Errorf("the caller received %s\n(-want +got):\n%s", gotJSON, diff)
	}
}

// outDir is where screenshots go (git-ignored).
func outDir(t *testing.T) string {
	dir, err := filepath.Abs(filepath.Join("..", "..", "out"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

// option is the radio or checkbox whose label reads text, in a field.
func option(key, text string) chromedp.JSPath {
	return chromedp.JSPath(fmt.Sprintf(
		`[...document.querySelectorAll('[data-field=%s] label')].find((l) => l.textContent.trim() === %s).querySelector("input")`,
		css(key), strconv.Quote(text)))
}

// selectOption picks the option of a <select> whose visible text is text,
// as a person choosing it would.
func selectOption(t *testing.T, ctx context.Context, key, text string) {
	t.Helper()
	expr := fmt.Sprintf(`(() => {
		const sel = document.querySelector('[data-field=%s] select');
		const opt = [...sel.options].find((o) => o.text.trim() === %s);
		if (!opt) return false;
		sel.focus();
		sel.value = opt.value;
		sel.dispatchEvent(new Event("input", {bubbles: true}));
		sel.dispatchEvent(new Event("change", {bubbles: true}));
		return true;
	})()`, css(key), strconv.Quote(text))
	if !eval[bool](t, ctx, expr) {
		t.Fatalf("field %s has no option %q", key, text)
	}
}

// useTimezone makes the browser's local time zone tz, so a datetime-local
// answer has a known offset.
func useTimezone(t *testing.T, ctx context.Context, tz string) {
	t.Helper()
	if _, err := chromedp.Call(ctx, emulation.SetTimezoneOverride, emulation.SetTimezoneOverrideParams{TimezoneID: tz}); err != nil {
		t.Fatalf("time zone %s: %v", tz, err)
	}
}

// noResultYet fails when the caller already got an answer.
func noResultYet(t *testing.T, out <-chan Outcome, what string) {
	t.Helper()
	select {
	case o := <-out:
		t.Fatalf("%s: the caller already got %+v (err %v)", what, o.Result, o.Err)
	case <-time.After(500 * time.Millisecond):
	}
}
