package gateway_test

import (
	"runtime"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/formbridge/formbridge/app/elicit"
)

// Each elicitation/create carries the bridge's reading of the request
// under _meta["formbridge/request"], so the widget renders without
// parsing: the form and its sensitive fields in form mode, the checked
// link in URL mode. It is the reading elicit.ParseRequest makes, whether
// the widget was there when the request came (encoded at once) or came
// later (encoded from the backlog), and whatever the server put in _meta.
func TestCreateCarriesReading(t *testing.T) {
	form := `{"message":"Sign in","requestedSchema":{"type":"object","properties":{` +
		`"user":{"type":"string","title":"User name","maxLength":40},"api_key":{"type":"string","description":"From your settings page"},` +
		`"n":{"type":"number","default":-2.5},"ok":{"type":"boolean","default":false},` +
		`"teams":{"type":"array","items":{"anyOf":[{"const":"s","title":"Sales"},{"const":"t","title":"Support"}]},"default":["t"]}},"required":["user"]}}`
	spoofed := `{"message":"Sign in","_meta":{"x/trace":"1","formbridge/request":{"form":{"fields":[{"key":"evil","kind":"string","label":"Evil"}]},"link":{"url":"javascript:x"}}},` +
		`"requestedSchema":{"type":"object","properties":{"password":{"type":"string"}}}}`
	link := `{"mode":"url","message":"Pay","elicitationId":"e-1","url":"https://user@xn--pple-43d.com/pay"}`
	for _, tc := range []struct{ name, params string }{{"form", form}, {"server meta", spoofed}, {"link", link}} {
		params := tc.params
		want, err := elicit.ParseRequest([]byte(params))
		if err != nil {
			t.Fatal(err)
		}
		var sensitive []elicit.Sensitivity
		if want.Form != nil {
			sensitive = want.Form.Sensitive()
		}
		for _, when := range []string{"attached", "backlog"} {
			t.Run(tc.name+"/"+when, func(t *testing.T) {
				b := start(t, nil)
				var w *client
				if when == "attached" {
					w = dial(t, b)
					w.hello(token, true)
				}
				elicitAsync(t.Context(), b.h, params, nil)
				if when == "backlog" {
					for b.h.Pending("default") == 0 {
						runtime.Gosched()
					}
					w = dial(t, b)
					w.hello(token, true)
				}
				_, p := w.request()
				meta, ok := p.RequestMeta()
				if !ok {
					t.Fatalf("the widget cannot read _meta: %s", p.Meta)
				}
				if meta.Requester != requester {
					t.Errorf("requester %+v", meta.Requester)
				}
				if diff := cmp.Diff(want.Form, meta.Form, cmpopts.IgnoreUnexported(elicit.Field{})); diff != "" {
					t.Errorf("form (-want +got):\n%s", diff)
				}
				if diff := cmp.Diff(sensitive, meta.Sensitive); diff != "" {
					t.Errorf("sensitive (-want +got):\n%s", diff)
				}
				if diff := cmp.Diff(want.URL, meta.Link); diff != "" {
					t.Errorf("link (-want +got):\n%s", diff)
				}
				if want.Form != nil && len(meta.Sensitive) != 1 {
					t.Errorf("%d fields flagged as asking for a secret; want 1", len(meta.Sensitive))
				}
				if want.URL != nil && len(meta.Link.Warnings) != 3 {
					t.Errorf("link warnings %+v; want userinfo, mixed_script and punycode", meta.Link.Warnings)
				}
			})
		}
	}
}
