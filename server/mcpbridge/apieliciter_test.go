package mcpbridge

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httptrace"
	"slices"
	"strings"
	"sync"
	"testing"
	"testing/iotest"
	"testing/synctest"
	"time"

	"github.com/formbridge/formbridge/app/wire"
	"github.com/formbridge/formbridge/server/api"
	"github.com/formbridge/formbridge/server/hub"
	"github.com/formbridge/formbridge/server/internal/hubtest"
	"github.com/google/go-cmp/cmp"
)

// The fake speaks the API as ARCHITECTURE.md section 4 defines it.
func TestAPIEliciter(t *testing.T) {
	tests := []struct {
		name     string
		status   int
		body     string
		want     *wire.ElicitResult
		wantCode int // JSON-RPC code of a *wire.Error; 0 = none
		wantErr  bool
	}{
		{"answered", 200, `{"action":"accept","content":{"ok":true}}`, &wire.ElicitResult{Action: "accept", Content: map[string]any{"ok": true}}, 0, false},
		{"bad schema", 400, `{"error":{"code":"invalid_params","message":"bad schema","data":[{"field":"x"}]}}`, nil, wire.CodeInvalidParams, true},
		{"too many", 429, `{"error":{"code":"too_many_pending","message":"too many pending"}}`, nil, wire.CodeTooManyPending, true},
		{"wrong key", 401, `{"error":{"code":"unauthorized","message":"bad key"}}`, nil, 0, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var got struct {
				Params         json.RawMessage     `json:"params"`
				Requester      wire.Implementation `json:"requester"`
				TimeoutSeconds float64             `json:"timeoutSeconds"`
			}
			var auth, path, key string
			requests := 0
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				requests++
				auth, path, key = r.Header.Get("Authorization"), r.URL.Path, r.Header.Get("Idempotency-Key")
				b, _ := io.ReadAll(r.Body)
				json.Unmarshal(b, &got)
				w.WriteHeader(tt.status)
				io.WriteString(w, tt.body)
			}))
			defer srv.Close()
			a := &APIEliciter{BaseURL: srv.URL + "/", APIKey: "k1"}
			res, err := a.Elicit(context.Background(), "ops", wire.Implementation{Name: "srv", Version: "1"}, json.RawMessage(`{"message":"hi"}`), &hub.ElicitOptions{Timeout: 90 * time.Second})
			if auth != "Bearer k1" || path != "/api/v1/channels/ops/elicitations" {
				t.Errorf("sent %q to %q", auth, path)
			}
			if string(got.Params) != `{"message":"hi"}` || got.Requester.Name != "srv" || got.TimeoutSeconds != 90 {
				t.Errorf("sent body %+v", got)
			}
			if !strings.HasPrefix(key, "formbridge-call-") || requests != 1 {
				t.Errorf("%d requests, Idempotency-Key %q; want one, with a key (an answer of the API is not retried)", requests, key)
			}
			if (err != nil) != tt.wantErr {
				t.Fatalf("error %v, want error %v", err, tt.wantErr)
			}
			var we *wire.Error
			if tt.wantCode != 0 && (!errors.As(err, &we) || we.Code != tt.wantCode) {
				t.Errorf("error %v, want code %d", err, tt.wantCode)
			}
			if diff := cmp.Diff(tt.want, res); diff != "" {
				t.Errorf("result (-want +got):\n%s", diff)
			}
		})
	}
}

// A bridge that stops answering does not hold Complete (called from the
// go-sdk's notification handling, with no context of its own) for good.
func TestAPIEliciterCompleteGivesUp(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		hung := roundTripper(func(r *http.Request) (*http.Response, error) {
			<-r.Context().Done()
			return nil, r.Context().Err()
		})
		a := &APIEliciter{BaseURL: "http://bridge.invalid", APIKey: "k1", HTTPClient: &http.Client{Transport: hung}}
		start := time.Now()
		if err := a.Complete("ops", "auth-1"); !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("Complete = %v, want the deadline", err)
		}
		if d := time.Since(start); d != completeTimeout {
			t.Errorf("Complete gave up after %v, want %v", d, completeTimeout)
		}
	})
}

type roundTripper func(*http.Request) (*http.Response, error)

func (f roundTripper) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// Check finds a wrong key or channel before anything is asked, against
// the real API.
func TestAPIEliciterCheck(t *testing.T) {
	h := hub.New(nil)
	defer h.Close()
	srv := httptest.NewServer(api.New(h, &api.Options{APIKey: "right-key"}))
	defer srv.Close()

	st, err := (&APIEliciter{BaseURL: srv.URL, APIKey: "right-key"}).Check(t.Context(), "default")
	if err != nil || st != (hub.ChannelStatus{}) {
		t.Errorf("Check = %+v, %v; want an empty channel", st, err)
	}
	if _, err := (&APIEliciter{BaseURL: srv.URL, APIKey: "wrong"}).Check(t.Context(), "default"); err == nil || !strings.Contains(err.Error(), "401") {
		t.Errorf("a wrong key: %v; want the 401", err)
	}
	if _, err := (&APIEliciter{BaseURL: srv.URL, APIKey: "right-key"}).Check(t.Context(), "nope"); err == nil || !strings.Contains(err.Error(), "no such channel") {
		t.Errorf("an unknown channel: %v", err)
	}
}

// apiBridge is the real API over a hub, and a widget on its default
// channel: each question it is sent comes out of next.
func apiBridge(t *testing.T) (h *hub.Hub, url string, s *hub.Session, next func() string) {
	t.Helper()
	h = hub.New(nil)
	t.Cleanup(h.Close)
	srv := httptest.NewServer(api.New(h, &api.Options{APIKey: "k1"}))
	t.Cleanup(srv.Close)
	s, next = hubtest.Widget(t, h, "default")
	return h, srv.URL, s, next
}

func frameID(t *testing.T, frame string) (method, id string) {
	t.Helper()
	var m wire.Message
	if err := json.Unmarshal([]byte(frame), &m); err != nil {
		t.Fatalf("not JSON-RPC: %s", frame)
	}
	id, _ = wire.StringID(m.ID)
	return m.Method, id
}

// A wait that breaks while the person reads is taken up again with the
// same Idempotency-Key: the person is asked once, and their answer comes
// back, as with formbridge call --bridge behind a proxy that cuts idle
// connections.
func TestAPIEliciterRetriesABrokenWait(t *testing.T) {
	h, url, s, next := apiBridge(t)
	var mu sync.Mutex
	var posts []string
	sent := func() []string {
		mu.Lock()
		defer mu.Unlock()
		return slices.Clone(posts)
	}
	breakFirst := make(chan struct{})
	transport := roundTripper(func(r *http.Request) (*http.Response, error) {
		mu.Lock()
		posts = append(posts, r.Method+" "+r.Header.Get("Idempotency-Key"))
		first := len(posts) == 1
		mu.Unlock()
		if first {
			ctx, cancel := context.WithCancel(r.Context())
			go func() { <-breakFirst; cancel() }()
			r = r.WithContext(ctx)
		}
		return http.DefaultTransport.RoundTrip(r)
	})
	a := &APIEliciter{BaseURL: url, APIKey: "k1", HTTPClient: &http.Client{Transport: transport}}
	type outcome struct {
		res *wire.ElicitResult
		err error
	}
	out := make(chan outcome, 1)
	go func() {
		res, err := a.Elicit(t.Context(), "default", wire.Implementation{Name: "srv"}, json.RawMessage(`{"message":"Deploy now?","requestedSchema":{"type":"object","properties":{}}}`), nil)
		out <- outcome{res, err}
	}()
	_, id := frameID(t, next())
	close(breakFirst)
	for h.Pending("default") != 1 || len(sent()) < 2 {
		time.Sleep(10 * time.Millisecond)
	}
	if err := s.Answer(id, wire.ElicitResult{Action: wire.ActionAccept, Content: map[string]any{}}); err != nil {
		t.Fatal(err)
	}
	o := <-out
	if o.err != nil || o.res.Action != wire.ActionAccept {
		t.Fatalf("Elicit = %+v, %v; want the person's accept", o.res, o.err)
	}
	if method, _ := frameID(t, next()); method != wire.MethodSettled {
		t.Errorf("the widget's next frame is %s; want settled (no second question)", method)
	}
	if p := sent(); len(p) != 2 || p[0] != p[1] {
		t.Errorf("requests %q; want two POSTs with the same key", p)
	}
}

// When its caller stops waiting, the question is withdrawn by its key,
// as closing the connection withdraws a question asked without one.
func TestAPIEliciterWithdrawsWhenCancelled(t *testing.T) {
	h, url, _, next := apiBridge(t)
	a := &APIEliciter{BaseURL: url, APIKey: "k1"}
	ctx, cancel := context.WithCancel(t.Context())
	errc := make(chan error, 1)
	go func() {
		_, err := a.Elicit(ctx, "default", wire.Implementation{Name: "srv"}, json.RawMessage(`{"message":"Deploy now?","requestedSchema":{"type":"object","properties":{}}}`), nil)
		errc <- err
	}()
	next()
	cancel()
	if err := <-errc; !errors.Is(err, context.Canceled) {
		t.Errorf("Elicit = %v; want the cancellation", err)
	}
	if h.Pending("default") != 0 {
		t.Error("the question is still pending after its caller left")
	}
	if method, _ := frameID(t, next()); method != wire.MethodSettled {
		t.Errorf("the widget heard %s; want settled (withdrawn)", method)
	}
}

// A bridge that cannot be reached is tried for about a minute, then the
// error comes back and the question (which may have been asked) is
// withdrawn: whether each attempt fails at once or only after a dial's
// timeout.
func TestAPIEliciterGivesUp(t *testing.T) {
	for _, tt := range []struct {
		name   string
		each   time.Duration // how long an attempt takes to fail
		posts  int
		lo, hi time.Duration
	}{
		{"refused at once", 0, 9, 60 * time.Second, 61 * time.Second},
		{"dials that time out", 30 * time.Second, 2, 60 * time.Second, 61 * time.Second},
	} {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				var posts, deletes int
				down := roundTripper(func(r *http.Request) (*http.Response, error) {
					if r.Method == http.MethodDelete {
						deletes++
					} else {
						posts++
						time.Sleep(tt.each)
					}
					return nil, errors.New("connection refused")
				})
				a := &APIEliciter{BaseURL: "http://bridge.invalid", APIKey: "k1", HTTPClient: &http.Client{Transport: down}}
				start := time.Now()
				_, err := a.Elicit(t.Context(), "default", wire.Implementation{Name: "srv"}, json.RawMessage(`{"message":"hi"}`), nil)
				if err == nil || !strings.Contains(err.Error(), "connection refused") {
					t.Errorf("Elicit = %v; want the transport's error", err)
				}
				if d := time.Since(start); posts != tt.posts || deletes != 1 || d < tt.lo || d > tt.hi {
					t.Errorf("%d POSTs and %d DELETEs in %v; want %d and 1 in [%v, %v]", posts, deletes, d, tt.posts, tt.lo, tt.hi)
				}
			})
		})
	}
}

// Waits that a proxy cuts after a few seconds, or answers 504, are taken
// up again for as long as the question waits, never given up as a bridge
// out of reach: the answer comes on the twentieth.
func TestAPIEliciterKeepsWaitingThroughAProxy(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var posts, deletes int
		var keys []string
		proxy := roundTripper(func(r *http.Request) (*http.Response, error) {
			if r.Method == http.MethodDelete {
				deletes++
				return nil, errors.New("unexpected DELETE")
			}
			posts++
			keys = append(keys, r.Header.Get("Idempotency-Key"))
			if tr := httptrace.ContextClientTrace(r.Context()); tr != nil && tr.WroteRequest != nil {
				tr.WroteRequest(httptrace.WroteRequestInfo{}) // as the transport does once the request is out
			}
			time.Sleep(5 * time.Second)
			switch {
			case posts == 20:
				return &http.Response{StatusCode: 200, Body: io.NopCloser(strings.NewReader(`{"action":"accept","content":{}}`))}, nil
			case posts%2 == 0:
				return &http.Response{StatusCode: 504, Body: io.NopCloser(strings.NewReader("<html>Gateway Timeout</html>"))}, nil
			}
			return nil, errors.New("connection reset by peer")
		})
		a := &APIEliciter{BaseURL: "http://bridge.example", APIKey: "k1", HTTPClient: &http.Client{Transport: proxy}}
		res, err := a.Elicit(t.Context(), "default", wire.Implementation{Name: "srv"}, json.RawMessage(`{"message":"hi"}`), nil)
		if err != nil || res.Action != wire.ActionAccept {
			t.Fatalf("Elicit = %+v, %v; want the accept", res, err)
		}
		if distinct := slices.Compact(slices.Clone(keys)); posts != 20 || deletes != 0 || len(distinct) != 1 || distinct[0] == "" {
			t.Errorf("%d POSTs (keys %q) and %d DELETEs; want 20 with one key, none withdrawn", posts, distinct, deletes)
		}
	})
}

// The bridge's invalid_params without data is passed on without data:
// not "data": null.
func TestAPIErrorWithoutData(t *testing.T) {
	err := apiError(http.StatusBadRequest, []byte(`{"error":{"code":"invalid_params","message":"bad schema"}}`))
	var we *wire.Error
	if !errors.As(err, &we) || we.Code != wire.CodeInvalidParams {
		t.Fatalf("apiError = %v, want a wire.Error with code %d", err, wire.CodeInvalidParams)
	}
	b, _ := json.Marshal(we)
	if strings.Contains(string(b), `"data"`) {
		t.Errorf("the error goes on as %s, with data the bridge did not send", b)
	}
}

// The bridge's error data (which field, when to retry) is passed on.
func TestAPIErrorKeepsData(t *testing.T) {
	err := apiError(http.StatusTooManyRequests, []byte(`{"error":{"code":"rate_limited","message":"slow down","data":{"retryAfterSeconds":3}}}`))
	var we *wire.Error
	if !errors.As(err, &we) || we.Code != wire.CodeRateLimited {
		t.Fatalf("apiError = %v, want a wire.Error with code %d", err, wire.CodeRateLimited)
	}
	if b, _ := json.Marshal(we); !strings.Contains(string(b), `"data":{"retryAfterSeconds":3}`) {
		t.Errorf("the error goes on as %s, without the bridge's data", b)
	}
}

// An answer cut off mid-body is the bridge out of reach (asked again),
// not an answer that is not JSON.
func TestAPIEliciterCutAnswerIsUnreachable(t *testing.T) {
	a := &APIEliciter{BaseURL: "http://bridge.invalid", HTTPClient: &http.Client{Transport: roundTripper(func(r *http.Request) (*http.Response, error) {
		body := io.MultiReader(strings.NewReader(`{"widgets":`), iotest.ErrReader(io.ErrUnexpectedEOF))
		return &http.Response{StatusCode: http.StatusOK, Header: http.Header{}, Body: io.NopCloser(body), Request: r}, nil
	})}}
	if _, err := a.Check(context.Background(), "default"); !errors.Is(err, errUnreachable) {
		t.Errorf("Check with the answer cut off: %v, want errUnreachable", err)
	}
}
