package mcpbridge

import (
	"context"
	"encoding/json"
	"errors"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/formbridge/formbridge/app/wire"
	"github.com/formbridge/formbridge/server/api"
	"github.com/formbridge/formbridge/server/hub"
)

// A bridge started without --api-key answers every API route 503
// api_off. That is its answer, not a bridge out of reach: Elicit says so
// at once instead of retrying for a minute.
func TestAPIEliciterAPIOff(t *testing.T) {
	h := hub.New(nil)
	defer h.Close()
	srv := httptest.NewServer(api.New(h, nil))
	defer srv.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	start := time.Now()
	_, err := (&APIEliciter{BaseURL: srv.URL, APIKey: "k1"}).Elicit(ctx, "default", wire.Implementation{Name: "srv"},
		json.RawMessage(`{"message":"hi","requestedSchema":{"type":"object","properties":{}}}`), nil)
	if err == nil || !strings.Contains(err.Error(), "--api-key") {
		t.Errorf("Elicit = %v after %v; want the API's own answer, naming --api-key, at once", err, time.Since(start).Round(time.Millisecond))
	}
}

// An unknown channel is hub.ErrNoChannel, naming the channel, whichever
// Eliciter a Go host uses, as the hub reports it; so is a Channel left
// "", which with an APIEliciter made a path the API read as another
// route ("answered 405: ... takes GET or DELETE, not POST"). Check,
// meant to find a wrong setting before a tool runs, said "no such API
// route".
func TestAPIEliciterUnknownChannel(t *testing.T) {
	h, url, _, _ := apiBridge(t)
	a := &APIEliciter{BaseURL: url, APIKey: "k1"}
	params := json.RawMessage(`{"message":"hi","requestedSchema":{"type":"object","properties":{}}}`)
	for _, name := range []string{"", "nope"} {
		for _, e := range []Eliciter{h, a} {
			_, err := e.Elicit(t.Context(), name, wire.Implementation{Name: "srv"}, params, nil)
			if !errors.Is(err, hub.ErrNoChannel) || !strings.Contains(err.Error(), strconv.Quote(name)) {
				t.Errorf("%T.Elicit on %q: %v; want hub.ErrNoChannel naming %q", e, name, err, name)
			}
		}
		if _, err := a.Check(t.Context(), name); !errors.Is(err, hub.ErrNoChannel) || !strings.Contains(err.Error(), strconv.Quote(name)) {
			t.Errorf("Check of %q: %v; want hub.ErrNoChannel naming %q", name, err, name)
		}
	}
}
