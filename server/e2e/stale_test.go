package e2e

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/coder/websocket"

	"github.com/formbridge/formbridge/app/wire"
	"github.com/formbridge/formbridge/server/hub"
	"github.com/formbridge/formbridge/server/site"
)

// TestReconnectWithdrawsSettled: while the widget is cut off, the server
// withdraws one request and asks another. Back online, the widget shows
// the new one and withdraws the old with a notice, instead of keeping a
// form nobody waits for any more.
func TestReconnectWithdrawsSettled(t *testing.T) {
	b := StartBridge(t, nil)
	ctx := NewBrowser(t)
	openWidget(t, ctx, b)
	oldID := withdrawnUnheard(t, b, ctx, `{"message":"Old question","requestedSchema":{"type":"object","properties":{"name":{"type":"string"}}}}`)
	out := b.Elicit(t, `{"message":"New question","requestedSchema":{"type":"object","properties":{"ok":{"type":"boolean"}},"required":["ok"]}}`, nil)

	do(t, ctx, "comes back", chromedp.WaitVisible(chromedp.CSS(`[data-connection="online"]`)))
	waitJS(t, ctx, "the old form withdrawn", `!document.querySelector('form[data-elicitation-id=`+css(oldID)+`]')`)
	note := eval[string](t, ctx, `document.querySelector('[data-outcome="gone"][data-request-id=`+css(oldID)+`]').innerText`)
	if !strings.Contains(note, "closed while the connection was down, so nothing was sent") {
		t.Errorf("notice for the old request: %q", note)
	}
	newID := waitForm(t, ctx)
	if newID == oldID {
		t.Fatal("the old form is still the one shown")
	}
	do(t, ctx, "answer the new one", chromedp.Click(action("accept")))
	wantResult(t, await(t, ctx, out), `{"action":"accept","content":{"ok":false}}`)
}

// withdrawnUnheard asks params, waits for its form in page, then cuts
// the widget off and withdraws the request while the widget cannot hear
// it (as when the bridge restarts). It returns the request's id.
func withdrawnUnheard(t *testing.T, b *Bridge, page context.Context, params string) string {
	t.Helper()
	askCtx, withdraw := context.WithCancel(context.Background())
	defer withdraw()
	asked := make(chan error, 1)
	go func() {
		_, err := b.Hub.Elicit(askCtx, hub.DefaultChannel, Requester, json.RawMessage(params), nil)
		asked <- err
	}()
	id := waitForm(t, page)
	b.DropWidgets()
	withdraw()
	if err := <-asked; err == nil {
		t.Fatal("the withdrawn request returned no error to its caller")
	}
	return id
}

// TestAnswerToGoneRequest: a bridge that no longer holds a request (it
// restarted) answers the person's answer with -32003, and, like an older
// bridge, sends nothing else. The widget withdraws the form and says the
// answer was not delivered.
func TestAnswerToGoneRequest(t *testing.T) {
	const token = "stale-form-token"
	answered := make(chan json.RawMessage, 1)
	addr := handBridge(t, &site.Options{WebDir: WebDir(), Version: "e2e"}, func(send func(*wire.Message), read func() (*wire.Message, error)) {
		req, _ := wire.NewRequest("ghost", wire.MethodElicit, json.RawMessage(`{"message":"Approve the refund?","requestedSchema":{"type":"object","properties":{}}}`))
		send(req)
		for {
			m, err := read()
			if err != nil {
				return
			}
			if m.IsResponse() {
				answered <- m.Result
				send(wire.NewError(m.ID, wire.CodeUnknownRequest, "no pending request has this id", nil))
			}
		}
	})

	ctx := NewBrowser(t)
	do(t, ctx, "open the widget", chromedp.Navigate("http://"+addr+"/#token="+token))
	waitForm(t, ctx)
	focusIn(t, ctx, `form[data-elicitation-id="ghost"] h2.fb-title`, "when a request that cannot be shown as a form opens")
	// This bridge sends no reading of the request in _meta, as a real one
	// does: the widget cannot show it as a form, says so, and still
	// offers Decline and Skip.
	card := eval[string](t, ctx, `document.querySelector('form[data-elicitation-id="ghost"]').innerText`)
	if !strings.Contains(card, "cannot be shown") || eval[bool](t, ctx, `!!document.querySelector('form[data-elicitation-id="ghost"] [data-action="accept"]')`) {
		t.Errorf("a request without the bridge's reading shows %q", card)
	}
	do(t, ctx, "decline", chromedp.Click(action("decline")))
	select {
	case res := <-answered:
		if !strings.Contains(string(res), `"decline"`) {
			t.Fatalf("the widget answered %s", res)
		}
	case <-time.After(resultTimeout):
		t.Fatal("the widget sent no answer")
	}
	waitJS(t, ctx, "the stale form withdrawn", `!document.querySelector('form[data-elicitation-id="ghost"]')`)
	note := eval[string](t, ctx, `document.querySelector('[data-outcome="gone"][data-request-id="ghost"]').innerText`)
	if !strings.Contains(note, "not delivered") {
		t.Errorf("notice: %q", note)
	}
}

// handBridge serves the widget's site with a bridge written by hand, and
// returns its address: it answers the widget's hello (one request
// pending), then script speaks formbridge.v1 with the widget (send a
// frame, read the next one; a frame that is not JSON-RPC is skipped)
// until it returns. For what the real bridge would never send.
func handBridge(t *testing.T, opts *site.Options, script func(send func(*wire.Message), read func() (*wire.Message, error))) string {
	t.Helper()
	siteHandler, err := site.New(opts)
	if err != nil {
		t.Fatal(err)
	}
	mux := http.NewServeMux()
	mux.Handle("/", siteHandler)
	mux.HandleFunc(wire.Path, func(w http.ResponseWriter, r *http.Request) {
		c, err := websocket.Accept(w, r, &websocket.AcceptOptions{Subprotocols: []string{wire.Subprotocol}, OriginPatterns: []string{"*"}})
		if err != nil {
			return
		}
		defer c.CloseNow()
		ctx := r.Context()
		send := func(m *wire.Message) {
			data, _ := json.Marshal(m)
			c.Write(ctx, websocket.MessageText, data)
		}
		read := func() (*wire.Message, error) {
			for {
				_, data, err := c.Read(ctx)
				if err != nil {
					return nil, err
				}
				var m wire.Message
				if json.Unmarshal(data, &m) == nil {
					return &m, nil
				}
			}
		}
		hello, err := read()
		if err != nil {
			return
		}
		res, _ := wire.NewResult(hello.ID, wire.HelloResult{Channel: "default", ServerInfo: wire.Implementation{Name: "formbridge"}, Pending: 1})
		send(res)
		script(send, read)
	})
	return serve(t, mux, nil)
}
