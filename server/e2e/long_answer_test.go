package e2e

import (
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/formbridge/formbridge/app/wire"
)

// A text field with no maxLength takes a pasted log. An answer too long
// for the bridge (over wire.MaxAnswerBytes) is not sent: the person reads
// what to do and the question waits, instead of the connection being cut
// and the answer sent again on every reconnect. Shortened, it reaches the
// caller, well over the 64 KiB a hello may be.
func TestLongAnswer(t *testing.T) {
	b := StartBridge(t, nil)
	ctx := NewBrowser(t)
	openWidget(t, ctx, b)
	out := b.Elicit(t, `{"message":"Paste the build log","requestedSchema":{"type":"object","properties":{"log":{"type":"string","title":"Build log"}},"required":["log"]}}`, nil)
	waitForm(t, ctx)
	paste := func(n int) {
		t.Helper()
		js := `(() => {
			const el = document.querySelector("[data-field=log] textarea, [data-field=log] input");
			el.focus();
			el.value = "a log line\n".repeat(` + strconv.Itoa(n/11) + `);
			el.dispatchEvent(new Event("input", {bubbles: true}));
			el.dispatchEvent(new Event("change", {bubbles: true}));
			return el.value.length;
		})()`
		if got := eval[int](t, ctx, js); got != n/11*11 {
			t.Fatalf("pasted %d characters; want %d", got, n/11*11)
		}
	}

	paste(wire.MaxAnswerBytes + 1000)
	do(t, ctx, "send", chromedp.Click(action("accept")))
	waitJS(t, ctx, "the page to say the answer is too long", `document.querySelector("form[data-elicitation-id]").innerText.includes("too long to send")`)
	select {
	case o := <-out:
		t.Fatalf("the caller got %+v, %v; want it still waiting", o.Result, o.Err)
	case <-time.After(300 * time.Millisecond):
	}
	if got := eval[string](t, ctx, `document.querySelector("[data-connection]").dataset.connection`); got != "online" {
		t.Errorf("the widget is %q after the refused answer; want online (nothing was sent)", got)
	}

	paste(200_000)
	do(t, ctx, "send again", chromedp.Click(action("accept")))
	res := await(t, ctx, out)
	if log, _ := res.Content["log"].(string); res.Action != wire.ActionAccept || len(log) != 200_000/11*11 || !strings.HasPrefix(log, "a log line\n") {
		t.Errorf("the caller got %s with a log of %d characters; want accept with %d", res.Action, len(log), 200_000/11*11)
	}
}
