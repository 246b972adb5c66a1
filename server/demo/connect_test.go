package demo

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// urlClient declares URL mode and plays a person who opens the link (in
// a goroutine, as a browser tab would) after answering accept.
func urlClient(t *testing.T, open bool, completed chan<- string) *mcp.ClientOptions {
	return &mcp.ClientOptions{
		Capabilities: &mcp.ClientCapabilities{Elicitation: &mcp.ElicitationCapabilities{
			Form: &mcp.FormElicitationCapabilities{}, URL: &mcp.URLElicitationCapabilities{},
		}},
		ElicitationHandler: func(ctx context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			if req.Params.Mode != "url" {
				t.Errorf("mode = %q, want url", req.Params.Mode)
			}
			if !open {
				return &mcp.ElicitResult{Action: "decline"}, nil
			}
			link := req.Params.URL
			go func() {
				resp, err := http.Get(link)
				if err != nil {
					t.Errorf("opening the link: %v", err)
					return
				}
				body, _ := io.ReadAll(resp.Body)
				resp.Body.Close()
				if resp.StatusCode != 200 || !strings.Contains(string(body), "Acme Calendar is connected") {
					t.Errorf("callback page: %d %s", resp.StatusCode, body)
				}
			}()
			return &mcp.ElicitResult{Action: "accept"}, nil
		},
		ElicitationCompleteHandler: func(ctx context.Context, req *mcp.ElicitationCompleteNotificationRequest) {
			completed <- req.Params.ElicitationID
		},
	}
}

func TestConnectCalendarCompletes(t *testing.T) {
	var s *Server
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { s.Handler(&PanelOptions{}).ServeHTTP(w, r) }))
	defer srv.Close()
	s = New(&Options{BaseURL: srv.URL})

	completed := make(chan string, 1)
	var asked string
	opts := urlClient(t, true, completed)
	inner := opts.ElicitationHandler
	opts.ElicitationHandler = func(ctx context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
		asked = req.Params.ElicitationID
		if !strings.HasPrefix(req.Params.URL, srv.URL+CallbackPath+"?id=") {
			t.Errorf("url = %q, want the demo's callback page", req.Params.URL)
		}
		return inner(ctx, req)
	}
	cs := connect(t, s, "2025-11-25", opts)
	assertContains(t, call(t, cs, "connect_calendar"), "Your Acme Calendar is connected")
	select {
	case id := <-completed:
		if id == "" || id != asked {
			t.Errorf("completed %q, want the elicitation's id %q", id, asked)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("no notifications/elicitation/complete")
	}
}

func TestConnectCalendarDeclined(t *testing.T) {
	s := New(&Options{BaseURL: "http://127.0.0.1:1"})
	cs := connect(t, s, "2025-11-25", urlClient(t, false, make(chan string, 1)))
	assertContains(t, call(t, cs, "connect_calendar"), "chose not to connect")
}

// A client that only renders forms never sees the link: the tool says
// why it could not ask.
func TestConnectCalendarNeedsURLMode(t *testing.T) {
	s := New(&Options{BaseURL: "http://127.0.0.1:1"})
	cs := connect(t, s, "2025-11-25", answering(func(*mcp.ElicitRequest) *mcp.ElicitResult {
		t.Error("a form-only client was sent a URL-mode question")
		return &mcp.ElicitResult{Action: "cancel"}
	}))
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "connect_calendar"})
	if err != nil {
		t.Fatal(err)
	}
	if !res.IsError || resultText(res) != "The app connected to this demo cannot show this kind of question." {
		t.Errorf("result = %+v %q, want an error in plain words", res.IsError, resultText(res))
	}
}

func TestCallbackUnknownLink(t *testing.T) {
	h := New(nil).Handler(&PanelOptions{})
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest("GET", CallbackPath+"?id=nope", nil))
	if rec.Code != http.StatusNotFound || !strings.Contains(rec.Body.String(), "This link has expired") {
		t.Errorf("got %d %q", rec.Code, rec.Body.String())
	}
}

// At 2026-07-28 the link comes as an input request; the tool finishes on
// the client's retry, once the page has been visited. There is no
// completion notification in that protocol.
func TestConnectCalendarNewest(t *testing.T) {
	var s *Server
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { s.Handler(&PanelOptions{}).ServeHTTP(w, r) }))
	defer srv.Close()
	s = New(&Options{BaseURL: srv.URL})
	completed := make(chan string, 1)
	cs := connect(t, s, "2026-07-28", urlClient(t, true, completed))
	assertContains(t, call(t, cs, "connect_calendar"), "Your Acme Calendar is connected")
	select {
	case id := <-completed:
		t.Errorf("got a completion notification (%q) at 2026-07-28", id)
	default:
	}
	// The link is spent once the tool has finished.
	if code := getStatus(t, srv.URL+CallbackPath+"?id=anything"); code != http.StatusNotFound {
		t.Errorf("unknown link: %d", code)
	}
}

func TestConnectCalendarNewestDeclined(t *testing.T) {
	s := New(&Options{BaseURL: "http://127.0.0.1:1"})
	cs := connect(t, s, "2026-07-28", urlClient(t, false, make(chan string, 1)))
	assertContains(t, call(t, cs, "connect_calendar"), "chose not to connect")
}

func getStatus(t *testing.T, url string) int {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode
}

// Only a real visit connects: HEAD and POST change nothing.
func TestCallbackGetOnly(t *testing.T) {
	s := New(nil)
	s.connects.add("secret", time.Minute)
	done, _ := s.connects.lookup("secret")
	h := s.Handler(&PanelOptions{})
	for _, m := range []string{"HEAD", "POST"} {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest(m, CallbackPath+"?id=secret", nil))
		if rec.Code != http.StatusMethodNotAllowed {
			t.Errorf("%s: %d, want 405", m, rec.Code)
		}
	}
	select {
	case <-done:
		t.Fatal("a HEAD or POST connected the account")
	default:
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest("GET", CallbackPath+"?id=secret", nil))
	select {
	case <-done:
	default:
		t.Fatalf("GET did not connect: %d", rec.Code)
	}
}
