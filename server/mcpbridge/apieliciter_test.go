package mcpbridge

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/formbridge/formbridge/app/wire"
	"github.com/formbridge/formbridge/server/api"
	"github.com/formbridge/formbridge/server/hub"
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
			var auth, path string
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				auth, path = r.Header.Get("Authorization"), r.URL.Path
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
