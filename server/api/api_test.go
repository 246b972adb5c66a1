package api_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"testing/iotest"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/formbridge/formbridge/app/elicit"
	"github.com/formbridge/formbridge/app/wire"
	"github.com/formbridge/formbridge/server/api"
	"github.com/formbridge/formbridge/server/hub"
	"github.com/formbridge/formbridge/server/internal/hubtest"
)

const apiKey = "test-api-key"

const nameForm = `{"message":"Who are you?","requestedSchema":{"type":"object","properties":{"name":{"type":"string","minLength":2}},"required":["name"]}}`

type server struct {
	h   *hub.Hub
	url string
}

func start(t *testing.T, hopts *hub.Options, key string) *server {
	t.Helper()
	h := hub.New(hopts)
	srv := httptest.NewServer(api.New(h, &api.Options{
		APIKey:    key,
		WidgetURL: func(channel, token string) string { return "https://bridge.example/#token=" + token },
	}))
	t.Cleanup(func() {
		h.Close()
		srv.Close()
	})
	return &server{h: h, url: srv.URL}
}

// startEngine serves the API with the key apiKey over e, an engine that
// stands in for h; h is closed when the test ends.
func startEngine(t *testing.T, h *hub.Hub, e hub.Engine) *server {
	t.Helper()
	srv := httptest.NewServer(api.NewWithEngine(e, &api.Options{APIKey: apiKey}))
	t.Cleanup(func() {
		h.Close()
		srv.Close()
	})
	return &server{h: h, url: srv.URL}
}

type response struct {
	status int
	header http.Header
	body   string
}

// errorCode returns the "code" of an error body.
func (r response) errorCode() string {
	var b struct {
		Error struct {
			Code    string          `json:"code"`
			Message string          `json:"message"`
			Data    json.RawMessage `json:"data"`
		} `json:"error"`
	}
	json.Unmarshal([]byte(r.body), &b)
	return b.Error.Code
}

// do sends one request. It may run in its own goroutine, so it reports
// failures in the response instead of failing the test.
func (s *server) do(t *testing.T, ctx context.Context, method, path, body, key string) response {
	req, err := http.NewRequestWithContext(ctx, method, s.url+path, strings.NewReader(body))
	if err != nil {
		return response{status: -1, body: err.Error()}
	}
	switch {
	case strings.Contains(key, " "): // a whole header value
		req.Header.Set("Authorization", key)
	case key != "":
		req.Header.Set("Authorization", "Bearer "+key)
	}
	req.Header.Set("Content-Type", "application/json")
	return send(req)
}

// send sends req, with a failure as status -1.
func send(req *http.Request) response {
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return response{status: -1, body: err.Error()}
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return response{status: resp.StatusCode, header: resp.Header, body: string(b)}
}

// widget attaches a widget to a channel (hubtest.Widget).
func widget(t *testing.T, h *hub.Hub, channel string) (*hub.Session, func() string) {
	t.Helper()
	return hubtest.Widget(t, h, channel)
}

func requestID(t *testing.T, frame string) string {
	t.Helper()
	var m wire.Message
	if err := json.Unmarshal([]byte(frame), &m); err != nil || m.Method != wire.MethodElicit {
		t.Fatalf("not an elicitation/create: %s", frame)
	}
	id, _ := wire.StringID(m.ID)
	return id
}

// settledOutcome reads a settled notification: the request it names and
// why it left.
func settledOutcome(t *testing.T, frame string) (id, outcome string) {
	t.Helper()
	var m wire.Message
	var p wire.SettledParams
	if json.Unmarshal([]byte(frame), &m) != nil || m.Method != wire.MethodSettled || json.Unmarshal(m.Params, &p) != nil {
		t.Fatalf("not a settled notification: %s", frame)
	}
	return p.RequestID, p.Outcome
}

func TestBearerSchemeAnyCase(t *testing.T) {
	s := start(t, nil, apiKey)
	if r := s.do(t, t.Context(), "POST", "/api/v1/channels", ``, "bearer "+apiKey); r.status != http.StatusCreated {
		t.Errorf("%d %s; want 201", r.status, r.body)
	}
}

func TestAPIOff(t *testing.T) {
	s := start(t, nil, "")
	for _, path := range []string{"/api/v1/channels", "/api/v1/channels/default/elicitations"} {
		r := s.do(t, t.Context(), "POST", path, `{}`, "anything")
		if r.status != http.StatusServiceUnavailable || r.errorCode() != "api_off" || !strings.Contains(r.body, "--api-key") {
			t.Errorf("%s: %d %s; want 503 api_off naming --api-key", path, r.status, r.body)
		}
	}
}

func TestUnauthorized(t *testing.T) {
	s := start(t, nil, apiKey)
	tests := []struct{ name, key string }{
		{"no key", ""},
		{"wrong key", "test-api-kez"},
		{"prefix of the key", "test-api"},
		{"basic scheme", "Basic " + apiKey},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := s.do(t, t.Context(), "POST", "/api/v1/channels/default/elicitations", `{"params":`+nameForm+`}`, tt.key)
			if r.status != http.StatusUnauthorized || r.errorCode() != "unauthorized" {
				t.Errorf("%d %s; want 401 unauthorized", r.status, r.body)
			}
			if r.header.Get("WWW-Authenticate") == "" {
				t.Error("no WWW-Authenticate header")
			}
		})
	}
}

// A 200 carries exactly the ElicitResult the person gave.
func TestElicitAnswered(t *testing.T) {
	tests := []struct {
		name   string
		answer wire.ElicitResult
		want   string
	}{
		{"accept", wire.ElicitResult{Action: "accept", Content: map[string]any{"name": "Ada"}}, `{"action":"accept","content":{"name":"Ada"}}` + "\n"},
		{"decline", wire.ElicitResult{Action: "decline"}, `{"action":"decline"}` + "\n"},
		{"cancel", wire.ElicitResult{Action: "cancel"}, `{"action":"cancel"}` + "\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := start(t, nil, apiKey)
			w, next := widget(t, s.h, "default")
			done := make(chan response, 1)
			go func() {
				done <- s.do(t, t.Context(), "POST", "/api/v1/channels/default/elicitations",
					`{"params":`+nameForm+`,"requester":{"name":"crm","title":"CRM","version":"2"},"timeoutSeconds":60}`, apiKey)
			}()
			frame := next()
			var p wire.ElicitParams
			var m wire.Message
			json.Unmarshal([]byte(frame), &m)
			json.Unmarshal(m.Params, &p)
			meta, _ := p.RequestMeta()
			if meta.Requester.Title != "CRM" || meta.ExpiresAt.Sub(meta.CreatedAt) != time.Minute {
				t.Errorf("meta %+v; want requester CRM and a 60 s timeout", meta)
			}
			if err := w.Answer(requestID(t, frame), tt.answer); err != nil {
				t.Fatal(err)
			}
			r := <-done
			if r.status != http.StatusOK || r.body != tt.want {
				t.Errorf("%d %q; want 200 %q", r.status, r.body, tt.want)
			}
			if ct := r.header.Get("Content-Type"); ct != "application/json" {
				t.Errorf("Content-Type %q", ct)
			}
		})
	}
}

// Without a requester the widget is told none, and words it itself
// ("A connected app"), rather than a made-up name like "HTTP API".
func TestElicitWithoutRequester(t *testing.T) {
	s := start(t, nil, apiKey)
	_, next := widget(t, s.h, "default")
	done := make(chan response, 1)
	go func() {
		done <- s.do(t, t.Context(), "POST", "/api/v1/channels/default/elicitations", `{"params":`+nameForm+`,"timeoutSeconds":0.5}`, apiKey)
	}()
	defer func() { <-done }() // expired by then
	var m wire.Message
	var p wire.ElicitParams
	json.Unmarshal([]byte(next()), &m)
	json.Unmarshal(m.Params, &p)
	if meta, ok := p.RequestMeta(); !ok || meta.Requester != (wire.Implementation{}) {
		t.Errorf("requester %+v (found: %v); want none", meta.Requester, ok)
	}
}

func TestElicitBadRequest(t *testing.T) {
	s := start(t, nil, apiKey)
	tests := []struct {
		name, body, code string
		wantData         bool
	}{
		{"bad schema", `{"params":{"message":"m","requestedSchema":{"type":"object","properties":{"a":{"type":"object"}}}}}`, "invalid_params", true},
		{"no message", `{"params":{"requestedSchema":{"type":"object","properties":{}}}}`, "invalid_params", true},
		{"no params", `{"requester":{"name":"x"}}`, "bad_request", false},
		{"not JSON", `{"params":`, "bad_request", false},
		{"unknown field", `{"params":` + nameForm + `,"timeout":5}`, "bad_request", false},
		{"negative timeout", `{"params":` + nameForm + `,"timeoutSeconds":-1}`, "bad_request", false},
		{"huge timeout", `{"params":` + nameForm + `,"timeoutSeconds":1e12}`, "bad_request", false},
		{"two objects", `{"params":` + nameForm + `}{}`, "bad_request", false},
		// With a short timeout: taken, they would come back 200 soon, not hang.
		{"stray closing brackets", `{"params":` + nameForm + `,"timeoutSeconds":0.1}}]]`, "bad_request", false},
		{"key in other case", `{"PARAMS":` + nameForm + `,"timeoutSeconds":0.1}`, "bad_request", false},
		{"nested key in other case", `{"params":` + nameForm + `,"timeoutSeconds":0.1,"requester":{"Name":"x"}}`, "bad_request", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := s.do(t, t.Context(), "POST", "/api/v1/channels/default/elicitations", tt.body, apiKey)
			if r.status != http.StatusBadRequest || r.errorCode() != tt.code {
				t.Fatalf("%d %s; want 400 %s", r.status, r.body, tt.code)
			}
			var b struct {
				Error struct {
					Message string `json:"message"`
					Data    []struct {
						Path    string `json:"path"`
						Message string `json:"message"`
					} `json:"data"`
				} `json:"error"`
			}
			json.Unmarshal([]byte(r.body), &b)
			if b.Error.Message == "" {
				t.Error("no message")
			}
			if tt.wantData && (len(b.Error.Data) == 0 || b.Error.Data[0].Message == "") {
				t.Errorf("data %s; want the reasons", r.body)
			}
		})
	}
}

// TestElicitBadRequestWords: a mistake in a body is said in the API's
// terms, its field names and JSON's types, never Go's.
func TestElicitBadRequestWords(t *testing.T) {
	s := start(t, nil, apiKey)
	for _, tt := range []struct{ name, body, want string }{
		{"empty", ``, "the body is empty: send a JSON object"},
		{"a string for a number", `{"params":` + nameForm + `,"timeoutSeconds":"300"}`, "timeoutSeconds must be a number, not string"},
		{"a number for a string", `{"params":` + nameForm + `,"requester":{"name":5}}`, "requester.name must be a string, not number"},
		{"a list for the body", `[1]`, "the body must be a JSON object, not array"},
		{"broken", `{"params":}`, "the body is not valid JSON (at byte 11)"},
		{"unknown field", `{"params":` + nameForm + `,"timeout":5}`, `the body is not the JSON expected: unknown field \"timeout\"`},
		{"no message", `{"params":{"requestedSchema":{"type":"object","properties":{}}}}`, `"path":"/message"`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r := s.do(t, t.Context(), "POST", "/api/v1/channels/default/elicitations", tt.body, apiKey)
			if r.status != http.StatusBadRequest || !strings.Contains(r.body, tt.want) {
				t.Errorf("%d %s; want 400 saying %s", r.status, r.body, tt.want)
			}
			if strings.Contains(r.body, "Go struct") || strings.Contains(r.body, "float64") {
				t.Errorf("the error speaks Go: %s", r.body)
			}
		})
	}
}

func TestElicitLimits(t *testing.T) {
	t.Run("too many pending", func(t *testing.T) {
		s := start(t, &hub.Options{MaxPending: 1}, apiKey)
		_, next := widget(t, s.h, "default")
		go s.do(t, t.Context(), "POST", "/api/v1/channels/default/elicitations", `{"params":`+nameForm+`}`, apiKey)
		next() // the first is pending
		r := s.do(t, t.Context(), "POST", "/api/v1/channels/default/elicitations", `{"params":`+nameForm+`}`, apiKey)
		if r.status != http.StatusTooManyRequests || r.errorCode() != "too_many_pending" {
			t.Errorf("%d %s; want 429 too_many_pending", r.status, r.body)
		}
	})
	t.Run("rate limited", func(t *testing.T) {
		s := start(t, &hub.Options{RatePerMinute: 1}, apiKey)
		_, next := widget(t, s.h, "default")
		go s.do(t, t.Context(), "POST", "/api/v1/channels/default/elicitations", `{"params":`+nameForm+`}`, apiKey)
		next()
		r := s.do(t, t.Context(), "POST", "/api/v1/channels/default/elicitations", `{"params":`+nameForm+`}`, apiKey)
		if r.status != http.StatusTooManyRequests || r.errorCode() != "rate_limited" {
			t.Errorf("%d %s; want 429 rate_limited", r.status, r.body)
		}
		if r.header.Get("Retry-After") == "" {
			t.Error("no Retry-After header")
		}
	})
	t.Run("unknown channel", func(t *testing.T) {
		s := start(t, nil, apiKey)
		r := s.do(t, t.Context(), "POST", "/api/v1/channels/nope/elicitations", `{"params":`+nameForm+`}`, apiKey)
		if r.status != http.StatusNotFound || r.errorCode() != "unknown_channel" {
			t.Errorf("%d %s; want 404 unknown_channel", r.status, r.body)
		}
	})
}

// timeoutSeconds is at most a day, and the refusal says so.
func TestElicitTimeoutAtMostADay(t *testing.T) {
	s := start(t, nil, apiKey)
	ctx, cancel := context.WithTimeout(t.Context(), 5*time.Second) // taken, it would wait for an answer
	defer cancel()
	r := s.do(t, ctx, "POST", "/api/v1/channels/default/elicitations", `{"params":`+nameForm+`,"timeoutSeconds":86401}`, apiKey)
	if want := "between 0 (the bridge's default) and 86400"; r.status != http.StatusBadRequest || !strings.Contains(r.body, want) {
		t.Errorf("%d %s; want 400 saying %s", r.status, r.body, want)
	}
}

// A body over the size limit is refused 413, one that cannot be read
// 400, both bad_request as PROTOCOL.md says.
func TestBodyTooLargeOrUnreadable(t *testing.T) {
	h := hub.New(nil)
	t.Cleanup(h.Close)
	handler := api.New(h, &api.Options{APIKey: apiKey})
	big := `{"params":` + nameForm + `,"requester":{"name":"` + strings.Repeat("x", elicit.MaxRequestBytes+1<<20) + `"}}`
	for _, tt := range []struct {
		name   string
		body   io.Reader
		status int
	}{
		{"too large", strings.NewReader(big), http.StatusRequestEntityTooLarge},
		{"unreadable", iotest.ErrReader(errors.New("connection reset")), http.StatusBadRequest},
	} {
		req := httptest.NewRequest("POST", "/api/v1/channels/default/elicitations", tt.body)
		req.Header.Set("Authorization", "Bearer "+apiKey)
		rec := httptest.NewRecorder()
		handler.ServeHTTP(rec, req)
		if got := (response{body: rec.Body.String()}).errorCode(); rec.Code != tt.status || got != "bad_request" {
			t.Errorf("%s: %d %s; want %d bad_request", tt.name, rec.Code, rec.Body, tt.status)
		}
	}
}

// A caller that hangs up withdraws its request from the widgets.
func TestCallerDisconnects(t *testing.T) {
	s := start(t, nil, apiKey)
	_, next := widget(t, s.h, "default")
	ctx, cancel := context.WithCancel(t.Context())
	go s.do(t, ctx, "POST", "/api/v1/channels/default/elicitations", `{"params":`+nameForm+`}`, apiKey)
	id := requestID(t, next())
	cancel()
	f := next()
	if gotID, outcome := settledOutcome(t, f); gotID != id || outcome != wire.OutcomeCancelled {
		t.Errorf("widget heard %s; want %s settled cancelled", f, id)
	}
}

func TestChannels(t *testing.T) {
	s := start(t, nil, apiKey)
	r := s.do(t, t.Context(), "POST", "/api/v1/channels", `{"name":"team-a"}`, apiKey)
	if r.status != http.StatusCreated {
		t.Fatalf("%d %s; want 201", r.status, r.body)
	}
	var ch struct{ Channel, Token, WidgetURL string }
	json.Unmarshal([]byte(r.body), &ch)
	if ch.Channel != "team-a" || ch.WidgetURL != "https://bridge.example/#token="+ch.Token {
		t.Errorf("created %+v", ch)
	}
	if got, ok := s.h.Authenticate(ch.Token); !ok || got != "team-a" {
		t.Errorf("the token opens %q, %v", got, ok)
	}
	tests := []struct {
		name, method, path, body string
		status                   int
		code                     string
	}{
		{"duplicate", "POST", "/api/v1/channels", `{"name":"team-a"}`, http.StatusConflict, "conflict"},
		{"bad name", "POST", "/api/v1/channels", `{"name":"Team A"}`, http.StatusBadRequest, "bad_request"},
		{"random name", "POST", "/api/v1/channels", ``, http.StatusCreated, ""},
		{"delete", "DELETE", "/api/v1/channels/team-a", ``, http.StatusNoContent, ""},
		{"delete again", "DELETE", "/api/v1/channels/team-a", ``, http.StatusNotFound, "unknown_channel"},
		{"delete default", "DELETE", "/api/v1/channels/default", ``, http.StatusConflict, "conflict"},
		{"unknown route", "GET", "/api/v1/nothing", ``, http.StatusNotFound, "not_found"},
		{"a route by another method", "GET", "/api/v1/channels", ``, http.StatusMethodNotAllowed, "method_not_allowed"},
		{"a route by another method, with a channel", "PUT", "/api/v1/channels/default/elicitations", ``, http.StatusMethodNotAllowed, "method_not_allowed"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := s.do(t, t.Context(), tt.method, tt.path, tt.body, apiKey)
			if r.status != tt.status || r.errorCode() != tt.code {
				t.Errorf("%d %s; want %d %q", r.status, r.body, tt.status, tt.code)
			}
		})
	}
}

// Without Options.WidgetURL the link is built from the request: its
// host, and https when the request came over TLS.
func TestWidgetURLFromRequest(t *testing.T) {
	h := hub.New(nil)
	t.Cleanup(func() { h.Close() })
	handler := api.New(h, &api.Options{APIKey: apiKey})
	for _, base := range []string{"http://bridge.example:8080", "https://bridge.example"} {
		req := httptest.NewRequest("POST", base+"/api/v1/channels", nil) // TLS set for https
		req.Header.Set("Authorization", "Bearer "+apiKey)
		rec := httptest.NewRecorder()
		handler.ServeHTTP(rec, req)
		var ch struct{ Token, WidgetURL string }
		json.Unmarshal(rec.Body.Bytes(), &ch)
		if want := base + "/#token=" + url.QueryEscape(ch.Token); rec.Code != http.StatusCreated || ch.Token == "" || ch.WidgetURL != want {
			t.Errorf("%s: %d %s; want 201 with the link %s", base, rec.Code, rec.Body, want)
		}
	}
}

// No response is kept by a cache: they carry channel tokens and what
// people answered, errors as well.
func TestResponsesNotCached(t *testing.T) {
	s := start(t, nil, apiKey)
	for _, r := range []response{
		s.do(t, t.Context(), "POST", "/api/v1/channels", ``, apiKey),
		s.do(t, t.Context(), "GET", "/api/v1/channels/nope", ``, apiKey),
	} {
		if got := r.header.Get("Cache-Control"); got != "no-store" || r.header.Get("Content-Type") != "application/json" {
			t.Errorf("%d: Cache-Control %q, Content-Type %q; want no-store, application/json", r.status, got, r.header.Get("Content-Type"))
		}
	}
}

// TestChannelStatus: GET on a channel says whether anyone has its widget
// open and how much waits, and changes nothing.
func TestChannelStatus(t *testing.T) {
	s := start(t, nil, apiKey)
	status := func() string {
		t.Helper()
		r := s.do(t, t.Context(), "GET", "/api/v1/channels/default", ``, apiKey)
		if r.status != http.StatusOK {
			t.Fatalf("%d %s; want 200", r.status, r.body)
		}
		return strings.TrimSpace(r.body)
	}
	if got := status(); got != `{"channel":"default","widgets":0,"pending":0}` {
		t.Errorf("a quiet channel: %s", got)
	}
	_, next := widget(t, s.h, "default")
	go s.do(t, t.Context(), "POST", "/api/v1/channels/default/elicitations", `{"params":`+nameForm+`}`, apiKey)
	next()
	if got := status(); got != `{"channel":"default","widgets":1,"pending":1}` {
		t.Errorf("a widget and a question: %s", got)
	}
	if r := s.do(t, t.Context(), "GET", "/api/v1/channels/nope", ``, apiKey); r.status != http.StatusNotFound || r.errorCode() != "unknown_channel" {
		t.Errorf("unknown channel: %d %s", r.status, r.body)
	}
	if r := s.do(t, t.Context(), "GET", "/api/v1/channels/default", ``, "wrong"); r.status != http.StatusUnauthorized {
		t.Errorf("a wrong key: %d %s", r.status, r.body)
	}
}

// TestMethodNotAllowed: a route asked with another method names the
// methods it takes.
func TestMethodNotAllowed(t *testing.T) {
	s := start(t, nil, apiKey)
	for path, want := range map[string]string{
		"/api/v1/channels":                      "POST",
		"/api/v1/channels/default":              "GET, DELETE",
		"/api/v1/channels/default/elicitations": "POST, DELETE",
	} {
		r := s.do(t, t.Context(), "PUT", path, ``, apiKey)
		if r.status != http.StatusMethodNotAllowed || r.header.Get("Allow") != want {
			t.Errorf("PUT %s: %d, Allow %q; want 405 with Allow %q", path, r.status, r.header.Get("Allow"), want)
		}
	}
}

// TestTooManyChannels: the bridge's limit of channels is a 409 with its
// own code, so a host can tell it from a name already taken.
func TestTooManyChannels(t *testing.T) {
	s := start(t, &hub.Options{MaxChannels: 1}, apiKey)
	if r := s.do(t, t.Context(), "POST", "/api/v1/channels", ``, apiKey); r.status != http.StatusCreated {
		t.Fatalf("%d %s; want 201", r.status, r.body)
	}
	r := s.do(t, t.Context(), "POST", "/api/v1/channels", ``, apiKey)
	if r.status != http.StatusConflict || r.errorCode() != "too_many_channels" {
		t.Errorf("%d %s; want 409 too_many_channels", r.status, r.body)
	}
}

// A create whose body is refused makes no channel.
func TestCreateChannelBadBodyMakesNone(t *testing.T) {
	s := start(t, &hub.Options{MaxChannels: 1}, apiKey)
	if r := s.do(t, t.Context(), "POST", "/api/v1/channels", `{"name":`, apiKey); r.status != http.StatusBadRequest {
		t.Fatalf("%d %s; want 400", r.status, r.body)
	}
	if r := s.do(t, t.Context(), "POST", "/api/v1/channels", `{"name":"team-a"}`, apiKey); r.status != http.StatusCreated {
		t.Errorf("%d %s; want 201: the refused create made a channel", r.status, r.body)
	}
}

// A bridge shutting down answers 503 unavailable.
func TestCreateChannelWhileClosing(t *testing.T) {
	s := start(t, nil, apiKey)
	s.h.Close()
	r := s.do(t, t.Context(), "POST", "/api/v1/channels", `{"name":"late"}`, apiKey)
	if r.status != http.StatusServiceUnavailable || r.errorCode() != "unavailable" {
		t.Errorf("%d %s; want 503 unavailable", r.status, r.body)
	}
}

// failingEngine is the hub with CreateChannel failing as no hub error does.
type failingEngine struct{ *hub.Hub }

func (failingEngine) CreateChannel(string) (hub.Channel, error) {
	return hub.Channel{}, errors.New("out of order")
}

// An error the API has no status for is a 500 "internal", not another
// error's status.
func TestUnknownHubError(t *testing.T) {
	h := hub.New(nil)
	s := startEngine(t, h, failingEngine{h})
	r := s.do(t, t.Context(), "POST", "/api/v1/channels", `{"name":"x"}`, apiKey)
	if r.status != http.StatusInternalServerError || r.errorCode() != "internal" {
		t.Errorf("%d %s; want 500 internal", r.status, r.body)
	}
}

// Deleting a channel answers its pending callers with cancel.
func TestDeleteSettlesPending(t *testing.T) {
	s := start(t, nil, apiKey)
	s.h.CreateChannel("chat-9")
	_, next := widget(t, s.h, "chat-9")
	done := make(chan response, 1)
	go func() {
		done <- s.do(t, t.Context(), "POST", "/api/v1/channels/chat-9/elicitations", `{"params":`+nameForm+`}`, apiKey)
	}()
	next()
	if r := s.do(t, t.Context(), "DELETE", "/api/v1/channels/chat-9", ``, apiKey); r.status != http.StatusNoContent {
		t.Fatalf("delete: %d %s", r.status, r.body)
	}
	if r := <-done; r.status != http.StatusOK || r.body != `{"action":"cancel"}`+"\n" {
		t.Errorf("%d %s; want 200 cancel", r.status, r.body)
	}
}

func TestComplete(t *testing.T) {
	s := start(t, nil, apiKey)
	w, next := widget(t, s.h, "default")
	done := make(chan response, 1)
	go func() {
		done <- s.do(t, t.Context(), "POST", "/api/v1/channels/default/elicitations",
			`{"params":{"mode":"url","message":"Connect","elicitationId":"e-9","url":"https://example.com/c"}}`, apiKey)
	}()
	w.Answer(requestID(t, next()), wire.ElicitResult{Action: "accept"})
	if r := <-done; r.body != `{"action":"accept"}`+"\n" {
		t.Fatalf("result %d %s", r.status, r.body)
	}
	next() // settled
	r := s.do(t, t.Context(), "POST", "/api/v1/channels/default/elicitations/complete", `{"elicitationId":"e-9"}`, apiKey)
	if r.status != http.StatusNoContent {
		t.Fatalf("%d %s; want 204", r.status, r.body)
	}
	want := `{"jsonrpc":"2.0","method":"notifications/elicitation/complete","params":{"elicitationId":"e-9"}}`
	if diff := cmp.Diff(want, next()); diff != "" {
		t.Errorf("widget frame (-want +got):\n%s", diff)
	}
	for _, tt := range []struct {
		path, body string
		status     int
	}{
		{"/api/v1/channels/nope/elicitations/complete", `{"elicitationId":"e-9"}`, http.StatusNotFound},
		{"/api/v1/channels/default/elicitations/complete", `{}`, http.StatusBadRequest},
		{"/api/v1/channels/default/elicitations/complete", `{"elicitationId":"never"}`, http.StatusNoContent},
	} {
		if r := s.do(t, t.Context(), "POST", tt.path, tt.body, apiKey); r.status != tt.status {
			t.Errorf("%s %s: %d %s; want %d", tt.path, tt.body, r.status, r.body, tt.status)
		}
	}
}

// A bridge whose http.Server has read and write timeouts must still let
// an elicitation wait for a person. Real deadlines on a real socket
// cannot run under synctest, so this waits past them for real.
func TestServerDeadlinesLifted(t *testing.T) {
	h := hub.New(nil)
	t.Cleanup(h.Close)
	srv := httptest.NewUnstartedServer(api.New(h, &api.Options{APIKey: apiKey}))
	srv.Config.ReadTimeout = 50 * time.Millisecond
	srv.Config.WriteTimeout = 50 * time.Millisecond
	srv.Start()
	t.Cleanup(srv.Close)
	s := &server{h: h, url: srv.URL}
	w, next := widget(t, h, "default")
	done := make(chan response, 1)
	go func() {
		done <- s.do(t, t.Context(), "POST", "/api/v1/channels/default/elicitations", `{"params":`+nameForm+`}`, apiKey)
	}()
	id := requestID(t, next())
	time.Sleep(300 * time.Millisecond) // well past both deadlines
	if err := w.Answer(id, wire.ElicitResult{Action: wire.ActionDecline}); err != nil {
		t.Fatalf("the request was withdrawn when the deadline passed: %v", err)
	}
	if r := <-done; r.status != http.StatusOK || r.body != `{"action":"decline"}`+"\n" {
		t.Errorf("%d %q; want 200 decline", r.status, r.body)
	}
}
