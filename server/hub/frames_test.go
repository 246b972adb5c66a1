package hub

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/formbridge/formbridge/app/elicit"
	"github.com/formbridge/formbridge/app/wire"
	"github.com/formbridge/formbridge/app/wire/wiretest"
)

// The fast and the slow encoding of elicitation/create agree, and only
// the bridge's RequestMeta survives under its key, with the view.
func TestEncodeCreate(t *testing.T) {
	st := &stamp{requester: wire.Implementation{Name: "srv"}, created: time.Unix(0, 0).UTC(), expires: time.Unix(60, 0).UTC()}
	p := mustParsed(t, `{"message":"m","requestedSchema":{"type":"object","properties":{"pin":{"type":"string","title":"<PIN> & code"}}}}`)
	meta := wire.RequestMeta{Requester: st.requester, CreatedAt: st.created, ExpiresAt: st.expires, RequestView: wire.RequestView{
		Form: p.req.Form, Sensitive: p.req.Form.Sensitive(),
	}}
	tests := []struct {
		name, params string
		fast         bool
	}{
		{"plain", `{"message":"m","requestedSchema":{"type":"object","properties":{"b":{"type":"string"},"a":{"type":"string"}}}}`, true},
		{"spaces", " {\n \"message\" : \"m\" }\n", true},
		{"empty", `{}`, true},
		{"server meta", `{"message":"m","_meta":{"x":1,"formbridge/request":{"requester":{"name":"spoof"}}}}`, false},
		{"escaped key", `{"message":"m","\u005fmeta":{"formbridge/request":{"requester":{"name":"spoof"}}}}`, false},
		{"null meta", `{"message":"m","_meta":null}`, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			frame, err := encodeCreate("r-1", json.RawMessage(tt.params), st, p.view)
			if err != nil {
				t.Fatal(err)
			}
			if _, fast := spliceCreate("r-1", json.RawMessage(tt.params), st, p.view); fast != tt.fast {
				t.Errorf("fast path taken: %v; want %v", fast, tt.fast)
			}
			var m wire.Message
			if err := json.Unmarshal(frame, &m); err != nil {
				t.Fatalf("frame is not JSON: %v: %s", err, frame)
			}
			var p wire.ElicitParams
			if err := json.Unmarshal(m.Params, &p); err != nil {
				t.Fatal(err)
			}
			got, ok := p.RequestMeta()
			if !ok {
				t.Fatalf("no request meta in %s", frame)
			}
			if diff := cmp.Diff(meta, got, cmpopts.IgnoreUnexported(elicit.Field{})); diff != "" {
				t.Errorf("meta (-want +got):\n%s", diff)
			}
			var orig, sent map[string]json.RawMessage
			json.Unmarshal([]byte(tt.params), &orig)
			json.Unmarshal(m.Params, &sent)
			for k, v := range orig {
				if k == "_meta" {
					continue
				}
				if !wiretest.SameJSON(v, sent[k]) {
					t.Errorf("%s changed: %s -> %s", k, v, sent[k])
				}
			}
		})
	}
}

// The hand-written settled frame is the one encoding/json would write.
func TestSettledFrame(t *testing.T) {
	for _, tc := range []struct{ id, outcome, action string }{
		{"k3jd7a-1z", wire.OutcomeAnswered, ""},
		{"k3jd7a-2", wire.OutcomeAnsweredElsewhere, wire.ActionDecline},
		{`odd"id</script>`, wire.OutcomeAnsweredElsewhere, wire.ActionCancel},
		{`odd"id</script>`, wire.OutcomeExpired, ""},
	} {
		got := settledFrame(tc.id, tc.outcome, nil, tc.action)
		want := notificationFrame(wire.MethodSettled, wire.SettledParams{RequestID: tc.id, Outcome: tc.outcome, Action: tc.action})
		if string(got) != string(want) {
			t.Errorf("settledFrame(%q):\n got %s\nwant %s", tc.id, got, want)
		}
	}
}

// appendMeta writes what encoding/json writes for a RequestMeta: the
// same bytes (except that the view leaves "<", ">" and "&" unescaped),
// the same values.
func TestAppendMeta(t *testing.T) {
	base := time.Date(2026, 12, 2, 16, 46, 39, 0, time.UTC)
	form := mustParsed(t, `{"message":"m","requestedSchema":{"type":"object","properties":{
		"password":{"type":"string"},"n":{"type":"number","default":1.5,"minimum":0},
		"tags":{"type":"array","items":{"enum":["a","b"]},"default":["b"]},"ok":{"type":"boolean","default":false}}}}`)
	link := mustParsed(t, `{"mode":"url","message":"m","elicitationId":"e","url":"https://user@xn--pple-43d.com:8443/a?b=<c>&d"}`)
	for _, tt := range []struct {
		name string
		meta wire.RequestMeta
		view *parsed
	}{
		{"name only", wire.RequestMeta{Requester: wire.Implementation{Name: "srv"}, CreatedAt: base, ExpiresAt: base.Add(time.Minute)}, nil},
		{"all fields, milliseconds", wire.RequestMeta{
			Requester: wire.Implementation{Name: "test-server", Title: "Test Server", Version: "1.0"},
			CreatedAt: base.Add(123 * time.Millisecond), ExpiresAt: base.Add(10*time.Minute + 120*time.Millisecond),
		}, nil},
		{"escapes", wire.RequestMeta{
			Requester: wire.Implementation{Name: `a"b\c<d>&e`, Title: "tab\there\u2028 é ✓", Version: "bad \xff utf-8"},
			CreatedAt: base, ExpiresAt: base,
		}, nil},
		{"empty name", wire.RequestMeta{CreatedAt: base, ExpiresAt: base.Add(24 * time.Hour)}, nil},
		{"form", wire.RequestMeta{Requester: wire.Implementation{Name: "srv"}, CreatedAt: base, ExpiresAt: base, RequestView: wire.RequestView{
			Form: form.req.Form, Sensitive: form.req.Form.Sensitive(),
		}}, form},
		{"link", wire.RequestMeta{Requester: wire.Implementation{Name: "srv"}, CreatedAt: base, ExpiresAt: base, RequestView: wire.RequestView{
			Link: link.req.URL,
		}}, link},
	} {
		t.Run(tt.name, func(t *testing.T) {
			want, err := json.Marshal(tt.meta)
			if err != nil {
				t.Fatal(err)
			}
			st := &stamp{requester: tt.meta.Requester, created: tt.meta.CreatedAt, expires: tt.meta.ExpiresAt}
			var view []byte
			if tt.view != nil {
				view = tt.view.view
			}
			got := appendMeta(nil, st, view)
			if strings.ContainsAny(string(view), "<>&") {
				if !wiretest.SameJSON(got, want) {
					t.Errorf("appendMeta:\n got %s\nwant %s", got, want)
				}
			} else if string(got) != string(want) {
				t.Errorf("appendMeta:\n got %s\nwant %s", got, want)
			}
		})
	}
	if len(form.req.Form.Sensitive()) == 0 || !strings.Contains(string(link.view), "<c>&d") {
		t.Error("the test does not cover what it should")
	}
}

// mustParsed parses params as the hub does.
func mustParsed(t *testing.T, params string) *parsed {
	t.Helper()
	p, err := parseRequest([]byte(params))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// appendTime writes what time.Time's MarshalJSON writes, for the UTC times
// it writes digit by digit and for the rest.
func TestAppendTime(t *testing.T) {
	times := []time.Time{
		time.Date(2026, 12, 2, 16, 46, 39, 0, time.UTC),
		time.Date(2026, 12, 2, 16, 46, 39, 120_000_000, time.UTC),
		time.Date(2024, 2, 29, 23, 59, 59, 999_999_999, time.UTC),
		time.Date(1969, 12, 31, 23, 59, 59, 1, time.UTC),
		time.Date(0, 1, 1, 0, 0, 0, 0, time.UTC),
		time.Date(9999, 12, 31, 23, 59, 59, 100, time.UTC),
		time.Date(2026, 6, 1, 12, 0, 0, 5_000_000, time.FixedZone("CEST", 2*3600)),
		time.Date(2026, 6, 1, 12, 0, 0, 0, time.Local),
		time.Unix(0, 0), // local
	}
	rnd := rand.New(rand.NewPCG(1, 2))
	for range 2000 {
		sec := rnd.Int64N(253402300800+62167219200) - 62167219200 // years 0..9999
		times = append(times, time.Unix(sec, rnd.Int64N(1e9)).UTC(), time.Unix(sec, rnd.Int64N(1000)*1e6).UTC())
	}
	for _, tm := range times {
		want, err := tm.MarshalJSON()
		if err != nil {
			t.Fatal(err)
		}
		if got := appendTime([]byte("x"), tm); string(got) != "x"+string(want) {
			t.Fatalf("appendTime(%v) = %s, want x%s", tm, got, want)
		}
	}
}

// FuzzCreateFrameReading: whatever params the bridge accepts, the widget,
// decoding the frame with encoding/json (which matches keys regardless
// of case and takes a repeated key's last value), reads the message,
// mode, link and form the bridge checked, and the bridge's RequestMeta.
func FuzzCreateFrameReading(f *testing.F) {
	form := `"requestedSchema":{"type":"object","properties":{"password":{"type":"string","title":"Password"}}}`
	spoof := `{"formbridge/request":{"requester":{"name":"github"},"form":{"fields":[{"key":"password","kind":"string","label":"Colour"}]}}}`
	link := `"mode":"url","elicitationId":"e","url":"https://bank.example.com/login"`
	var filler strings.Builder // more keys than the bridge once remembered
	for i := range 70 {
		fmt.Fprintf(&filler, `"k%d":1,`, i)
	}
	for _, seed := range []string{
		`{"message":"m",` + form + `}`,
		`{"message":"m",` + form + `,"_META":` + spoof + `}`,
		`{"message":"m",` + form + `,"_Meta":` + spoof + `,"_meta":{"x":1}}`,
		`{"message":"m",` + link + `}`,
		`{"message":"m",` + link + `,"URL":"http://evil.example.net/login"}`,
		`{"message":"m",` + link + `,"MODE":"form"}`,
		`{"message":"m",` + form + `,"Message":"other","meſſage":"other"}`,
		`{` + filler.String() + `"message":"m",` + form + `,"message":"other"}`,
		`{"message":"m",` + form + `,"\u005fMETA":` + spoof + `}`,
	} {
		f.Add([]byte(seed))
	}
	st := &stamp{requester: wire.Implementation{Name: "srv"}, created: time.Unix(0, 0).UTC(), expires: time.Unix(60, 0).UTC()}
	f.Fuzz(func(t *testing.T, params []byte) {
		p, err := parseRequest(params)
		if err != nil {
			return
		}
		frame, err := encodeCreate("r-1", params, st, p.view)
		if err != nil {
			return // refused as it is asked
		}
		var m wire.Message
		var got wire.ElicitParams
		if err := json.Unmarshal(frame, &m); err != nil {
			t.Fatalf("frame is not JSON: %v", err)
		}
		if err := json.Unmarshal(m.Params, &got); err != nil {
			t.Fatalf("params do not decode: %v", err)
		}
		req := p.req
		mode := got.Mode
		if mode == "" {
			mode = elicit.ModeForm
		}
		if mode != req.Mode || got.Message != req.Message {
			t.Fatalf("the widget reads mode %q, message %q; the bridge checked %q, %q", mode, got.Message, req.Mode, req.Message)
		}
		if req.URL != nil && (got.URL != req.URL.URL || got.ElicitationID != req.ElicitationID) {
			t.Fatalf("the widget reads url %q (id %q); the bridge checked %q (id %q)", got.URL, got.ElicitationID, req.URL.URL, req.ElicitationID)
		}
		meta, ok := got.RequestMeta()
		if !ok || meta.Requester != st.requester {
			t.Fatalf("the widget reads requester %+v (found: %v); the bridge stamped %+v", meta.Requester, ok, st.requester)
		}
		if diff := cmp.Diff(req.Form, meta.Form, cmpopts.IgnoreUnexported(elicit.Field{})); diff != "" {
			t.Fatalf("the widget reads another form (-bridge +widget):\n%s", diff)
		}
	})
}
