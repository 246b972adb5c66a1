package mcpbridge

import (
	"encoding/json"
	"errors"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"

	"github.com/formbridge/formbridge/app/wire"
	"github.com/formbridge/formbridge/server/api"
	"github.com/formbridge/formbridge/server/hub"
)

// A Go host's Channel left "" (or misspelt) with an APIEliciter hears
// what it hears from the hub: ErrNoChannel, naming the channel. A ""
// made a path the API read as another route ("answered 405: ... takes
// GET or DELETE, not POST"), and Check, meant to find a wrong setting
// before a tool runs, said "no such API route".
func TestAPIEliciterNamesMissingChannel(t *testing.T) {
	h := hub.New(nil)
	defer h.Close()
	srv := httptest.NewServer(api.New(h, &api.Options{APIKey: "k1"}))
	defer srv.Close()
	a := &APIEliciter{BaseURL: srv.URL, APIKey: "k1"}
	params := json.RawMessage(`{"message":"hi","requestedSchema":{"type":"object","properties":{}}}`)
	for _, name := range []string{"", "nope"} {
		_, err := a.Elicit(t.Context(), name, wire.Implementation{Name: "srv"}, params, nil)
		if !errors.Is(err, hub.ErrNoChannel) || !strings.Contains(err.Error(), strconv.Quote(name)) {
			t.Errorf("Elicit on %q: %v; want hub.ErrNoChannel naming %q", name, err, name)
		}
		if _, err := a.Check(t.Context(), name); !errors.Is(err, hub.ErrNoChannel) || !strings.Contains(err.Error(), strconv.Quote(name)) {
			t.Errorf("Check of %q: %v; want hub.ErrNoChannel naming %q", name, err, name)
		}
	}
}
