package main

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/formbridge/formbridge/app/wire"
	"github.com/formbridge/formbridge/server/demo"
)

// runTool fires a demo tool as the panel does and returns a channel that
// delivers the HTTP status and body once the tool has finished.
func runTool(t *testing.T, base, token, tool string, header map[string]string) <-chan [2]string {
	t.Helper()
	out := make(chan [2]string, 1)
	req, _ := http.NewRequest("POST", base+demo.RunPath, strings.NewReader(`{"tool":"`+tool+`"}`))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Origin", base) // the panel is on the widget page, same origin
	for k, v := range header {
		req.Header.Set(k, v)
	}
	go func() {
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			out <- [2]string{"error", err.Error()}
			return
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		out <- [2]string{resp.Status, string(b)}
	}()
	return out
}

func result(t *testing.T, ch <-chan [2]string) (string, demo.RunResult) {
	t.Helper()
	select {
	case r := <-ch:
		var res demo.RunResult
		_ = json.Unmarshal([]byte(r[1]), &res)
		return r[0] + " " + r[1], res
	case <-time.After(10 * time.Second):
		t.Fatal("the demo tool did not finish")
		return "", demo.RunResult{}
	}
}

// A panel button asks its question in the widget, through the go-sdk
// client and the adapter, and reports the answer the widget sent.
func TestDemoRunThroughWidget(t *testing.T) {
	r, _, _ := startTest(t, testFlags(t), demoExtras())
	w := dialWidget(t, r.baseURL, testToken)

	done := runTool(t, r.baseURL, testToken, "delete_old_invoices", nil)
	q, p := w.question()
	meta, ok := p.RequestMeta()
	if !ok || meta.Requester.Title != demo.Title || meta.Requester.Name != demo.Name {
		t.Errorf("requester = %+v, want the demo server's identity", meta.Requester)
	}
	if !strings.HasPrefix(p.Message, "Delete 40 old invoices from the archive?") {
		t.Errorf("message = %q", p.Message)
	}
	w.answer(q, wire.ElicitResult{Action: wire.ActionAccept, Content: map[string]any{"confirm": true}})
	raw, res := result(t, done)
	if res.Tool != "delete_old_invoices" || res.IsError || !strings.HasPrefix(res.Text, "You confirmed.") {
		t.Errorf("run = %s", raw)
	}
}

// The widget sees the travel form's fields in the order the demo wrote
// them, not sorted: the adapter's transport keeps the order.
func TestDemoFieldOrder(t *testing.T) {
	r, _, _ := startTest(t, testFlags(t), demoExtras())
	w := dialWidget(t, r.baseURL, testToken)
	done := runTool(t, r.baseURL, testToken, "request_travel", nil)
	q, _ := w.question()
	params := string(q.Params)
	last := -1
	for _, key := range []string{"destination", "reason", "departure", "return", "flight", "travellers", "budget", "extras", "email", "agenda", "flexible"} {
		i := strings.Index(params, `"`+key+`":{`)
		if i < last {
			t.Errorf("field %q is out of order in %s", key, params)
		}
		last = i
	}
	w.answer(q, wire.ElicitResult{Action: wire.ActionDecline})
	if _, res := result(t, done); !strings.Contains(res.Text, "not to send") {
		t.Errorf("run = %+v", res)
	}
}

// URL mode end to end: the widget agrees to open the link, the person's
// browser visits the callback page, the widget is told it is complete.
func TestDemoConnectAccount(t *testing.T) {
	r, _, _ := startTest(t, testFlags(t), demoExtras())
	w := dialWidget(t, r.baseURL, testToken)
	done := runTool(t, r.baseURL, testToken, "connect_calendar", nil)
	q, p := w.question()
	if !p.IsURL() || !strings.HasPrefix(p.URL, demoLinkBase(r.baseURL)+demo.CallbackPath+"?id=") || p.ElicitationID == "" {
		t.Fatalf("question = %s", q.Params)
	}
	w.answer(q, wire.ElicitResult{Action: wire.ActionAccept})
	if code, body := get(t, p.URL); code != 200 || !strings.Contains(body, "Acme Calendar is connected") {
		t.Errorf("callback page: %d %q", code, body)
	}
	m := w.next(method(wire.MethodComplete))
	var c wire.CompleteParams
	if err := json.Unmarshal(m.Params, &c); err != nil || c.ElicitationID != p.ElicitationID {
		t.Errorf("complete = %s, want elicitationId %q", m.Params, p.ElicitationID)
	}
	if raw, res := result(t, done); !strings.HasPrefix(res.Text, "Your Acme Calendar is connected") {
		t.Errorf("run = %s", raw)
	}
}

func TestDemoPanelRefuses(t *testing.T) {
	r, _, _ := startTest(t, testFlags(t), demoExtras())
	other, err := r.Hub.CreateChannel("team-b")
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, token string
		header      map[string]string
		status      string
	}{
		{"wrong token", "not-the-token", nil, "401"},
		{"another channel's token", other.Token, nil, "401"},
		{"foreign origin", testToken, map[string]string{"Origin": "https://evil.example"}, "403"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			raw, _ := result(t, runTool(t, r.baseURL, tt.token, "delete_old_invoices", tt.header))
			if !strings.HasPrefix(raw, tt.status) {
				t.Errorf("got %s, want %s", raw, tt.status)
			}
		})
	}
}

// Stopping the demo while a question is open answers it as cancel, and
// the panel's request still gets its result.
func TestDemoShutdownCancelsQuestion(t *testing.T) {
	r, stop, _ := startTest(t, testFlags(t), demoExtras())
	w := dialWidget(t, r.baseURL, testToken)
	done := runTool(t, r.baseURL, testToken, "choose_customer", nil)
	w.question()
	if err := stop(); err != nil {
		t.Fatal(err)
	}
	if raw, res := result(t, done); !strings.Contains(res.Text, "closed without a choice") {
		t.Errorf("run = %s", raw)
	}
}

func TestDemoLinkBase(t *testing.T) {
	for in, want := range map[string]string{
		"http://127.0.0.1:8080":         "http://localhost:8080",
		"http://127.0.0.1":              "http://localhost",
		"https://approvals.example.com": "https://approvals.example.com",
		"http://192.168.1.5:8080":       "http://192.168.1.5:8080",
	} {
		if got := demoLinkBase(in); got != want {
			t.Errorf("demoLinkBase(%q) = %q, want %q", in, got, want)
		}
	}
}

// Leaving the panel (the run request goes away) withdraws its question
// from the widget: the cancellation travels the whole MCP path.
func TestDemoPanelGoneWithdrawsQuestion(t *testing.T) {
	r, _, _ := startTest(t, testFlags(t), demoExtras())
	w := dialWidget(t, r.baseURL, testToken)
	ctx, cancel := context.WithCancel(context.Background())
	req, _ := http.NewRequestWithContext(ctx, "POST", r.baseURL+demo.RunPath, strings.NewReader(`{"tool":"choose_customer"}`))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+testToken)
	go func() {
		if resp, err := http.DefaultClient.Do(req); err == nil {
			resp.Body.Close()
		}
	}()
	q, _ := w.question()
	id, _ := wire.StringID(q.ID)
	cancel()
	m := w.next(method(wire.MethodSettled))
	var settled wire.SettledParams
	if err := json.Unmarshal(m.Params, &settled); err != nil || settled.RequestID != id || settled.Outcome != wire.OutcomeCancelled {
		t.Errorf("settled = %s, want request %q cancelled", m.Params, id)
	}
}

func TestChatExampleLink(t *testing.T) {
	got := chatExampleLink("http://127.0.0.1:8080/#token=abc")
	if !strings.Contains(got, "http://127.0.0.1:8080/examples/chat.html#token=abc\n") {
		t.Errorf("chat example link = %q, want the chat page with the same fragment", got)
	}
}
