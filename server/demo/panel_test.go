package demo

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

const panelToken = "channel-secret"

func startPanel(t *testing.T) *httptest.Server {
	t.Helper()
	s := New(nil)
	cs := connect(t, s, "2025-11-25", answering(accept(map[string]any{"confirm": true})))
	srv := httptest.NewServer(s.Handler(&PanelOptions{
		Client:    cs,
		Authorize: func(token string) bool { return token == panelToken },
	}))
	t.Cleanup(srv.Close)
	return srv
}

func TestPanel(t *testing.T) {
	srv := startPanel(t)
	tests := []struct {
		name, method, path, body string
		header                   map[string]string
		status                   int
		want                     string // in the body
	}{
		{"tools", "GET", ToolsPath, "", nil, 200, `"name":"delete_old_invoices"`},
		{"run", "POST", RunPath, `{"tool":"delete_old_invoices"}`, nil, 200, `"text":"You confirmed.`},
		{"run from the same origin", "POST", RunPath, `{"tool":"delete_old_invoices"}`,
			map[string]string{"Origin": srv.URL, "Sec-Fetch-Site": "same-origin"}, 200, `"isError":false`},
		{"no token", "POST", RunPath, `{"tool":"delete_old_invoices"}`, map[string]string{"Authorization": ""}, 401, "wrong token"},
		{"wrong token", "POST", RunPath, `{"tool":"delete_old_invoices"}`, map[string]string{"Authorization": "Bearer nope"}, 401, "wrong token"},
		{"tools without token", "GET", ToolsPath, "", map[string]string{"Authorization": ""}, 401, "wrong token"},
		{"foreign origin", "POST", RunPath, `{"tool":"delete_old_invoices"}`, map[string]string{"Origin": "https://evil.example"}, 403, "only answers pages served by this bridge"},
		{"cross-site fetch", "POST", RunPath, `{"tool":"delete_old_invoices"}`, map[string]string{"Sec-Fetch-Site": "cross-site"}, 403, "only answers"},
		{"unknown tool", "POST", RunPath, `{"tool":"format_disk"}`, nil, 404, `no demo tool named \"format_disk\"`},
		{"not JSON", "POST", RunPath, `tool=x`, map[string]string{"Content-Type": "application/x-www-form-urlencoded"}, 415, "application/json"},
		{"bad JSON", "POST", RunPath, `{"tool":`, nil, 400, "must be JSON"},
		{"misspelt key", "POST", RunPath, `{"tol":"delete_old_invoices"}`, nil, 400, "must be JSON"},
		{"no tool", "POST", RunPath, `{}`, nil, 400, "must be JSON"},
		{"GET run", "GET", RunPath, "", nil, 405, "use POST"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req, _ := http.NewRequest(tt.method, srv.URL+tt.path, strings.NewReader(tt.body))
			req.Header.Set("Authorization", "Bearer "+panelToken)
			if tt.body != "" {
				req.Header.Set("Content-Type", "application/json")
			}
			for k, v := range tt.header {
				req.Header.Set(k, v)
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			var body json.RawMessage
			if err := json.NewDecoder(resp.Body).Decode(&body); err != nil {
				t.Fatalf("body is not JSON: %v", err)
			}
			if resp.StatusCode != tt.status || !strings.Contains(string(body), tt.want) {
				t.Errorf("got %d %s\nwant %d with %s", resp.StatusCode, body, tt.status, tt.want)
			}
		})
	}
}

func TestPanelRunResult(t *testing.T) {
	srv := startPanel(t)
	req, _ := http.NewRequest("POST", srv.URL+RunPath, strings.NewReader(`{"tool":"delete_old_invoices"}`))
	req.Header.Set("Authorization", "Bearer "+panelToken)
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var got RunResult
	if err := json.NewDecoder(resp.Body).Decode(&got); err != nil {
		t.Fatal(err)
	}
	if got.Tool != "delete_old_invoices" || got.Title != "Confirm a deletion" || got.IsError ||
		!strings.HasPrefix(got.Text, "You confirmed. The 40 invoices") {
		t.Errorf("got %+v", got)
	}
}

func TestPanelWithoutClient(t *testing.T) {
	h := New(nil).Handler(&PanelOptions{Authorize: func(string) bool { return true }})
	req := httptest.NewRequest("POST", RunPath, strings.NewReader(`{"tool":"delete_old_invoices"}`))
	req.Header.Set("Authorization", "Bearer x")
	req.Header.Set("Content-Type", "application/json")
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	if rec.Code != http.StatusServiceUnavailable || !strings.Contains(rec.Body.String(), "not connected") {
		t.Errorf("got %d %s", rec.Code, rec.Body)
	}
}
