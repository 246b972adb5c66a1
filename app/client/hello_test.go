package client

import (
	"encoding/json"
	"testing"

	"github.com/formbridge/formbridge/app/wire"
)

// The hand-built hello must be exactly what encoding/json writes for the
// protocol's structs, escaping included, whatever the link holds.
func TestHelloFrameMatchesEncodingJSON(t *testing.T) {
	tokens := []string{
		"tok123456789",
		"",
		`quote " backslash \ slash /`,
		"control \x00\x01\n\t\x1f\b\f\r\x7f",
		"html <script>&amp;</script>",
		"line \u2028 paragraph \u2029",
		"invalid utf-8 \xff\xfe end",
		"émoji 🦫",
	}
	infos := []wire.Implementation{
		{Name: "formbridge-widget", Title: "formbridge"}, // the widget's own
		{Name: "only a name"},
		{Name: "n", Version: "1.2.3"},
		{Name: `odd "name"`, Title: "<b>title</b>", Version: "\xff"},
	}
	for _, token := range tokens {
		for _, info := range infos {
			want, err := wire.NewRequest("hello", wire.MethodHello, wire.HelloParams{
				Token:      token,
				ClientInfo: info,
				Capabilities: wire.Capabilities{Elicitation: &wire.ElicitationCapabilities{
					Form: &struct{}{},
					URL:  &struct{}{},
				}},
			})
			if err != nil {
				t.Fatal(err)
			}
			wantJSON, err := json.Marshal(want)
			if err != nil {
				t.Fatal(err)
			}
			if got := helloFrame(token, info); string(got) != string(wantJSON) {
				t.Errorf("token %q, info %+v:\n got %s\nwant %s", token, info, got, wantJSON)
			}
		}
	}
}
