package mcpbridge

import (
	"context"
	"encoding/json"
	"errors"
	"net/http/httptest"
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

// An unknown channel is hub.ErrNoChannel whichever Eliciter a Go host
// uses, as the hub reports it.
func TestAPIEliciterUnknownChannel(t *testing.T) {
	h := hub.New(nil)
	defer h.Close()
	srv := httptest.NewServer(api.New(h, &api.Options{APIKey: "k1"}))
	defer srv.Close()
	params := json.RawMessage(`{"message":"hi","requestedSchema":{"type":"object","properties":{}}}`)
	for _, e := range []Eliciter{h, &APIEliciter{BaseURL: srv.URL, APIKey: "k1"}} {
		_, err := e.Elicit(t.Context(), "nope", wire.Implementation{Name: "srv"}, params, nil)
		if !errors.Is(err, hub.ErrNoChannel) {
			t.Errorf("%T.Elicit on an unknown channel = %v; want hub.ErrNoChannel", e, err)
		}
	}
}
