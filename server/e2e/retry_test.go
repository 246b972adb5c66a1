package e2e

import (
	"context"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// A host asks through the HTTP API with an Idempotency-Key and its long
// poll breaks while the person reads the question: the form stays on
// their screen, the host's retry with the same key asks nothing new, and
// it receives the answer the person then sends.
func TestHTTPRetryKeepsTheQuestion(t *testing.T) {
	b := StartBridge(t, &Options{APIKey: "e2e-key"})
	ctx := NewBrowser(t)
	openWidget(t, ctx, b)

	post := func(ctx context.Context) (int, string, http.Header) {
		return keyedCall(ctx, b, "POST", `{"params":`+noteQuestion+`,"requester":{"name":"crm","title":"CRM"}}`)
	}

	pctx, breakPoll := context.WithCancel(t.Context())
	first := make(chan int, 1)
	go func() { status, _, _ := post(pctx); first <- status }()
	id := waitForm(t, ctx)
	breakPoll()
	if status := <-first; status != -1 {
		t.Fatalf("the broken long poll got %d", status)
	}
	time.Sleep(300 * time.Millisecond) // a withdrawal would have reached the page by now
	if got := eval[string](t, ctx, `document.querySelector("form[data-elicitation-id]")?.dataset.elicitationId ?? ""`); got != id {
		t.Fatalf("after the break the page shows request %q; want %q still there:\n%s", got, id, eval[string](t, ctx, `document.body.innerText`))
	}

	type reply struct {
		status int
		body   string
		header http.Header
	}
	retry := make(chan reply, 1)
	rctx, cancel := context.WithTimeout(t.Context(), resultTimeout)
	defer cancel()
	go func() { s, body, h := post(rctx); retry <- reply{s, body, h} }()
	do(t, ctx, "type and send", chromedp.SendKeys(field("note", "textarea, input"), "ok"), chromedp.Click(action("accept")))
	r := <-retry
	if r.status != http.StatusOK || r.body != `{"action":"accept","content":{"note":"ok"}}`+"\n" {
		t.Fatalf("the retry got %d %s; want the person's answer", r.status, r.body)
	}
	if r.header.Get("Idempotent-Replayed") != "true" {
		t.Error("the retry's answer does not say it is the first call's")
	}
	waitJS(t, ctx, "the answered request gone", `document.querySelectorAll("form[data-elicitation-id]").length === 0`)
	time.Sleep(300 * time.Millisecond)
	if n := eval[int](t, ctx, `document.querySelectorAll("form[data-elicitation-id]").length`); n != 0 {
		t.Errorf("%d requests shown after the answer; the retry asked again", n)
	}
}

// keyedCall sends method to the default channel's elicitations with the
// API key and the Idempotency-Key deploy-4812; status -1 on failure.
func keyedCall(ctx context.Context, b *Bridge, method, body string) (int, string, http.Header) {
	req, err := http.NewRequestWithContext(ctx, method, b.URL+"/api/v1/channels/default/elicitations", strings.NewReader(body))
	if err != nil {
		return -1, err.Error(), nil
	}
	req.Header.Set("Authorization", "Bearer e2e-key")
	req.Header.Set("Idempotency-Key", "deploy-4812")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return -1, err.Error(), nil
	}
	defer resp.Body.Close()
	out, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(out), resp.Header
}

// A keyed question outlives its caller's connection, so the host takes
// it back by its key when the answer is no longer needed: it leaves the
// person's screen with a word about it, and the key answers a cancel.
func TestHTTPWithdrawKeyed(t *testing.T) {
	b := StartBridge(t, &Options{APIKey: "e2e-key"})
	ctx := NewBrowser(t)
	openWidget(t, ctx, b)
	body := `{"params":` + noteQuestion + `,"requester":{"name":"crm","title":"CRM"}}`

	pctx, breakPoll := context.WithCancel(t.Context())
	first := make(chan int, 1)
	go func() { status, _, _ := keyedCall(pctx, b, "POST", body); first <- status }()
	id := waitForm(t, ctx)
	breakPoll()
	<-first

	if status, out, _ := keyedCall(t.Context(), b, "DELETE", ""); status != http.StatusNoContent {
		t.Fatalf("withdraw: %d %s; want 204", status, out)
	}
	do(t, ctx, "withdrawn from the page",
		chromedp.WaitVisible(chromedp.CSS(`[data-outcome="cancelled"]`)),
		chromedp.WaitNotPresent(chromedp.CSS(`form[data-elicitation-id=`+css(id)+`]`)))
	if status, out, _ := keyedCall(t.Context(), b, "POST", body); status != http.StatusOK || out != `{"action":"cancel"}`+"\n" {
		t.Errorf("a retry after the withdrawal got %d %s; want the cancel", status, out)
	}
	time.Sleep(300 * time.Millisecond)
	if n := eval[int](t, ctx, `document.querySelectorAll("form[data-elicitation-id]").length`); n != 0 {
		t.Errorf("%d requests shown after the withdrawal; the retry asked again", n)
	}
	// In words the person can read: who asked, and that it is no longer needed.
	if said := eval[string](t, ctx, `document.querySelector('[data-outcome="cancelled"]')?.innerText ?? ""`); !strings.Contains(said, "CRM") || !strings.Contains(said, "called off") {
		t.Errorf("the page says %q; want that CRM called the request off", said)
	}
}
