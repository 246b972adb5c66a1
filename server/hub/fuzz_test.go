package hub_test

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/formbridge/formbridge/app/elicit"
	"github.com/formbridge/formbridge/app/wire"
	"github.com/formbridge/formbridge/server/hub"
)

// FuzzAnswer sends whatever a widget might send as an answer. Whatever it
// is, the hub must not panic, and content that reaches the caller must be
// valid for the form: invalid content is never forwarded.
func FuzzAnswer(f *testing.F) {
	for _, seed := range []string{
		`{"action":"accept","content":{"name":"Ada","age":36}}`,
		`{"action":"accept","content":{"name":"A"}}`,
		`{"action":"accept","content":{"name":["Ada"],"age":1e400}}`,
		`{"action":"accept","content":{"name":"Ada","age":-0.0,"x":null}}`,
		`{"action":"accept"}`,
		`{"action":"decline","content":{"name":1}}`,
		`{"action":"cancel"}`,
		`{"action":"ACCEPT"}`,
		`{"action":"accept","content":{"name":"\u0000\ud800"}}`,
	} {
		f.Add([]byte(seed))
	}
	form, err := elicit.Parse(json.RawMessage(`{"type":"object","properties":{"name":{"type":"string","title":"Name","minLength":2},"age":{"type":"integer","minimum":0}},"required":["name"]}`))
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var res wire.ElicitResult
		dec := json.NewDecoder(bytes.NewReader(data))
		if dec.Decode(&res) != nil {
			return // the gateway refuses it before the hub sees it
		}
		h := hub.New(nil)
		defer h.Close()
		w := attach(t, h, "default", false)
		call := elicitAsync(t.Context(), h, "default", nameForm, nil)
		id, _ := w.request()
		w.s.Answer(id, res)
		h.Close()
		got, err := call.wait(t)
		if err != nil {
			t.Fatal(err)
		}
		switch got.Action {
		case wire.ActionAccept:
			if errs := form.Validate(got.Content); errs != nil {
				t.Fatalf("forwarded invalid content %v: %v", got.Content, errs)
			}
		case wire.ActionDecline, wire.ActionCancel:
			if got.Content != nil {
				t.Fatalf("%s carried content %v", got.Action, got.Content)
			}
		default:
			t.Fatalf("forwarded action %q", got.Action)
		}
	})
}
