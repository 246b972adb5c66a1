package wire

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/formbridge/formbridge/app/elicit"
)

// Requests as servers send them, to make frames from as the bridge does.
var readTestParams = []string{
	`{"message":"Deploy build 4812 to production?","requestedSchema":{"type":"object","properties":{"approve":{"type":"boolean","title":"Approve","default":true},"note":{"type":"string","title":"Note","maxLength":200}},"required":["approve"]}}`,
	`{"message":"Every kind","requestedSchema":{"type":"object","properties":{
		"name":{"type":"string","minLength":2,"maxLength":40,"pattern":"^[A-Za-z ]+$","default":"Ada","description":"As on your <badge> & card"},
		"email":{"type":"string","format":"email"},
		"site":{"type":"string","format":"uri"},
		"day":{"type":"string","format":"date","default":"2026-12-03"},
		"at":{"type":"string","format":"date-time"},
		"password":{"type":"string","title":"Your password"},
		"count":{"type":"integer","minimum":1,"maximum":10,"default":3},
		"ratio":{"type":"number","minimum":-0.5,"maximum":1e3,"default":0.25},
		"size":{"type":"string","enum":["s","m","l"],"default":"m"},
		"plan":{"type":"string","oneOf":[{"const":"free","title":"Free"},{"const":"pro","title":"Pro — €9"}]},
		"tags":{"type":"array","minItems":1,"maxItems":2,"items":{"type":"string","enum":["a","b","c"]},"default":["a"]},
		"teams":{"type":"array","items":{"anyOf":[{"const":"x","title":"Team X"},{"const":"y","title":"Team \"Y\""}]}},
		"agree":{"type":"boolean"}
	},"required":["name","agree"]},"_meta":{"progressToken":7}}`,
	`{"mode":"url","message":"Connect GitHub","elicitationId":"e-42","url":"https://github.com/login/oauth?x=1"}`,
	`{"mode":"url","message":"Open the local page","elicitationId":"e-43","url":"http://127.0.0.1:8080/setup"}`,
	`{"mode":"url","message":"Punycode","elicitationId":"e-44","url":"https://xn--pple-43d.com/"}`,
}

// bridgeFrame makes the elicitation/create frame a bridge sends for
// params: the params as the server wrote them, with the bridge's
// RequestMeta added under _meta.
func bridgeFrame(t testing.TB, id, params string) []byte {
	t.Helper()
	req, err := elicit.ParseRequest([]byte(params))
	if err != nil {
		t.Fatalf("ParseRequest(%s): %v", params, err)
	}
	meta := RequestMeta{
		Requester:   Implementation{Name: "deploy-bot", Title: "Deploy <Bot>", Version: "1.2.0"},
		CreatedAt:   time.Date(2026, 12, 3, 10, 11, 12, 345678000, time.UTC),
		ExpiresAt:   time.Date(2026, 12, 3, 10, 21, 12, 0, time.FixedZone("", 3600)),
		RequestView: RequestView{Form: req.Form, Link: req.URL},
	}
	if req.Form != nil {
		meta.Sensitive = req.Form.Sensitive()
	}
	var p ElicitParams
	if err := json.Unmarshal([]byte(params), &p); err != nil {
		t.Fatal(err)
	}
	if p.Meta == nil {
		p.Meta = map[string]json.RawMessage{}
	}
	p.Meta[MetaKey], err = json.Marshal(meta)
	if err != nil {
		t.Fatal(err)
	}
	msg, err := NewRequest(id, MethodElicit, p)
	if err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(msg)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// compareFields compares Fields by their exported fields (the compiled
// pattern is elicit's own business: see its tests of Prepare).
var compareFields = cmpopts.IgnoreUnexported(elicit.Field{})

// decodeOld reads an elicitation/create frame as json.Unmarshal does.
func decodeOld(t testing.TB, frame []byte) (Message, ElicitParams, RequestMeta, bool, error) {
	var msg Message
	if err := json.Unmarshal(frame, &msg); err != nil {
		return msg, ElicitParams{}, RequestMeta{}, false, err
	}
	var p ElicitParams
	if err := json.Unmarshal(msg.Params, &p); err != nil {
		return msg, p, RequestMeta{}, false, err
	}
	m, ok := p.RequestMeta()
	return msg, p, m, ok, nil
}

func TestReadFrameMatchesEncodingJSON(t *testing.T) {
	for i, params := range readTestParams {
		frame := bridgeFrame(t, "r-"+string(rune('a'+i)), params)
		msg, wantP, wantMeta, wantOK, err := decodeOld(t, frame)
		if err != nil {
			t.Fatal(err)
		}
		f, err := ReadFrame(frame)
		if err != nil {
			t.Fatalf("ReadFrame(%s): %v", frame, err)
		}
		if f.Method != msg.Method || string(f.ID) != string(msg.ID) || !f.IsRequest() {
			t.Errorf("frame %d: method %q id %s, want %q %s", i, f.Method, f.ID, msg.Method, msg.ID)
		}
		if id, _ := f.StringID(); id != "r-"+string(rune('a'+i)) {
			t.Errorf("frame %d: StringID = %q", i, id)
		}
		p, meta, ok, err := f.ElicitParams()
		if err != nil || !ok || !wantOK {
			t.Fatalf("frame %d: ElicitParams ok %v err %v; encoding/json ok %v", i, ok, err, wantOK)
		}
		wantP.RequestedSchema, wantP.Meta = nil, nil
		if diff := cmp.Diff(wantP, p); diff != "" {
			t.Errorf("frame %d: params (-encoding/json +ReadFrame):\n%s", i, diff)
		}
		if diff := cmp.Diff(wantMeta, meta, compareFields); diff != "" {
			t.Errorf("frame %d: meta (-encoding/json +ReadFrame):\n%s", i, diff)
		}
	}
}

func TestReadFrameOtherFrames(t *testing.T) {
	hello, _ := NewResult(json.RawMessage(`"hello"`), HelloResult{Channel: "ops", ServerInfo: Implementation{Name: "formbridge", Version: "1.0"}, Pending: 3})
	settled, _ := NewNotification(MethodSettled, SettledParams{RequestID: "r1", Outcome: OutcomeRejected, Errors: []elicit.FieldError{{Field: "age", Code: elicit.CodeTooSmall, Message: "Enter 18 or more."}}})
	complete, _ := NewNotification(MethodComplete, CompleteParams{ElicitationID: "e1"})
	gone := NewError(json.RawMessage(`"r9"`), CodeUnknownRequest, "no such request", map[string]any{"id": "r9", "n": 1.5})
	frames := map[string]*Message{"hello": hello, "settled": settled, "complete": complete, "gone": gone}
	for name, msg := range frames {
		b, _ := json.Marshal(msg)
		f, err := ReadFrame(b)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if f.IsRequest() != msg.IsRequest() || f.IsResponse() != msg.IsResponse() || f.IsNotification() != msg.IsNotification() {
			t.Errorf("%s: kind differs from encoding/json's reading", name)
		}
		if diff := cmp.Diff(msg.Error, f.Error); diff != "" {
			t.Errorf("%s: error (-encoding/json +ReadFrame):\n%s", name, diff)
		}
		var got, want any
		var err2 error
		switch name {
		case "hello":
			got, err2 = f.HelloResult()
			var h HelloResult
			json.Unmarshal(msg.Result, &h)
			want = h
		case "settled":
			got, err2 = f.SettledParams()
			var s SettledParams
			json.Unmarshal(msg.Params, &s)
			want = s
		case "complete":
			got, err2 = f.CompleteParams()
			var c CompleteParams
			json.Unmarshal(msg.Params, &c)
			want = c
		default:
			continue
		}
		if err2 != nil {
			t.Fatalf("%s: %v", name, err2)
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("%s (-encoding/json +ReadFrame):\n%s", name, diff)
		}
	}
}

func TestReadFrameIDs(t *testing.T) {
	for frame, want := range map[string]string{
		`{"jsonrpc":"2.0","id":"a\"b<c>","method":"x"}`:                        `"a\"b\u003cc\u003e"`,
		`{"jsonrpc":"2.0","id":7,"method":"x"}`:                                `7`,
		`{"jsonrpc":"2.0","id":1e21,"method":"x"}`:                             `1e+21`,
		`{"jsonrpc":"2.0","id":true,"method":"x"}`:                             `true`,
		`{"jsonrpc":"2.0","id":null,"error":{"code":-32001,"message":"late"}}`: ``,
		`{"jsonrpc":"2.0","method":"notifications/x"}`:                         ``,
	} {
		f, err := ReadFrame([]byte(frame))
		if err != nil {
			t.Fatalf("ReadFrame(%s): %v", frame, err)
		}
		if string(f.ID) != want {
			t.Errorf("ReadFrame(%s).ID = %s, want %s", frame, f.ID, want)
		}
	}
}

// A frame or a value of the wrong shape is refused, as json.Unmarshal
// refuses it; a bridge reading that cannot be used is reported absent.
func TestReadFrameRefuses(t *testing.T) {
	for _, frame := range []string{
		``, `{`, `[]`, `"x"`, `null`, `{"id":"a","method":5}`, `{"id":"a","error":"bad"}`,
		`{"id":"a","error":{"code":"x"}}`, `{"id":"a","error":{"code":1.5}}`, `{"id":"a"} {}`,
	} {
		if f, err := ReadFrame([]byte(frame)); err == nil {
			t.Errorf("ReadFrame(%s) = %+v, want an error", frame, f)
		}
	}
	params := func(p string) *Frame {
		f, err := ReadFrame([]byte(`{"jsonrpc":"2.0","id":"r","method":"elicitation/create","params":` + p + `}`))
		if err != nil {
			t.Fatal(err)
		}
		return f
	}
	for _, p := range []string{`"x"`, `[]`, `{"message":5}`, `{"mode":true}`, `{"_meta":"x"}`, `{"_meta":[]}`} {
		if _, _, _, err := params(p).ElicitParams(); err == nil {
			t.Errorf("ElicitParams(%s): no error", p)
		}
	}
	for _, meta := range []string{
		`5`, `{"requester":"x"}`, `{"createdAt":"yesterday"}`, `{"createdAt":5}`,
		`{"form":{"fields":[{"kind":"string","label":"No key"}]}}`,
		`{"form":{"fields":[{"key":"k","kind":"colour","label":"K"}]}}`,
		`{"form":{"fields":[{"key":"k","kind":"boolean","label":"K","default":"yes"}]}}`,
		`{"form":{"fields":[{"key":"k","kind":"select","label":"K"}]}}`,
		`{"form":{"fields":[{"key":"k","kind":"string","label":"K","pattern":"("}]}}`,
		`{"form":{"fields":[{"key":"k","kind":"string","label":"K","maxLength":2.5}]}}`,
		`{"form":{"fields":{}}}`, `{"sensitive":{}}`, `{"link":{"warnings":"x"}}`,
	} {
		p, m, ok, err := params(`{"message":"m","_meta":{"` + MetaKey + `":` + meta + `}}`).ElicitParams()
		if err != nil || ok || m.Form != nil || p.Message != "m" {
			t.Errorf("ElicitParams with meta %s = %+v, %v, %v; want the params without a reading", meta, m, ok, err)
		}
		var old ElicitParams
		json.Unmarshal([]byte(`{"_meta":{"`+MetaKey+`":`+meta+`}}`), &old)
		if _, oldOK := old.RequestMeta(); oldOK {
			t.Errorf("encoding/json reads meta %s: the cases above should be ones it refuses too", meta)
		}
	}
	for _, p := range []string{`{"requestId":5}`, `{"requestId":"r","errors":{}}`, `{"requestId":"r","errors":[{"code":1}]}`} {
		if _, err := params(p).SettledParams(); err == nil {
			t.Errorf("SettledParams(%s): no error", p)
		}
	}
	f, _ := ReadFrame([]byte(`{"id":"hello","result":{"pending":"2"}}`))
	if _, err := f.HelloResult(); err == nil {
		t.Error("HelloResult with a string pending: no error")
	}
}

func TestQuote(t *testing.T) {
	for _, s := range []string{"", "tok_123-ABC.~", "sp ace", `q"uote`, `back\slash`, "<&>", "tab\t", "nul\x00", "del\x7f", "é", "\u2028", "bad \xff utf-8"} {
		want, _ := json.Marshal(s)
		if got := Quote(s); got != string(want) {
			t.Errorf("Quote(%q) = %s, want %s", s, got, want)
		}
	}
}

// knownKeys are the keys the readers look for.
var knownKeys = strings.Fields(`jsonrpc id method params result error code message data channel serverInfo
	name title version pending mode requestedSchema elicitationId url _meta requester createdAt expiresAt
	form fields sensitive link key kind label description required format minLength maxLength pattern
	minimum maximum options value minItems maxItems default field what reason scheme host domain asciiHost
	port warnings requestId outcome errors formbridge/request`)

// foldedKey reports whether v holds a key encoding/json would take for a
// known one while ReadFrame would not: the same but for letter case.
func foldedKey(v any) bool {
	switch v := v.(type) {
	case map[string]any:
		for k, e := range v {
			for _, known := range knownKeys {
				if k != known && strings.EqualFold(k, known) {
					return true
				}
			}
			if foldedKey(e) {
				return true
			}
		}
	case []any:
		for _, e := range v {
			if foldedKey(e) {
				return true
			}
		}
	}
	return false
}

// Whatever the frame, ReadFrame does not panic, and whenever encoding/json
// reads a frame into the protocol's types, ReadFrame reads the same.
func FuzzReadFrame(f *testing.F) {
	for i, p := range readTestParams {
		f.Add(bridgeFrame(f, "r"+string(rune('0'+i)), p))
	}
	f.Add([]byte(`{"jsonrpc":"2.0","id":"hello","result":{"channel":"c","serverInfo":{"name":"b"},"pending":2}}`))
	f.Add([]byte(`{"jsonrpc":"2.0","method":"notifications/formbridge/settled","params":{"requestId":"r","outcome":"rejected","errors":[{"field":"a","code":"c","message":"m"}]}}`))
	f.Fuzz(func(t *testing.T, frame []byte) {
		fr, err := ReadFrame(frame)
		var any any
		if json.Unmarshal(frame, &any) != nil || foldedKey(any) {
			return
		}
		msg, oldP, oldMeta, oldOK, oldErr := decodeOld(t, frame)
		if err != nil {
			if oldErr == nil && msg.Method == MethodElicit {
				// encoding/json read the whole frame: so must ReadFrame,
				// unless a number it took for an int was written 1.0.
				t.Logf("ReadFrame refused a frame encoding/json reads: %v", err)
			}
			return
		}
		if fr.Method != msg.Method {
			t.Fatalf("method %q, encoding/json %q", fr.Method, msg.Method)
		}
		if !fr.id.isNull() && (fr.IsRequest() != msg.IsRequest() || fr.IsResponse() != msg.IsResponse() || fr.IsNotification() != msg.IsNotification()) {
			t.Fatalf("frame kind differs from encoding/json's reading")
		}
		p, meta, ok, err := fr.ElicitParams()
		if err != nil || oldErr != nil {
			return
		}
		oldP.RequestedSchema, oldP.Meta = nil, nil
		if diff := cmp.Diff(oldP, p); diff != "" {
			t.Fatalf("params (-encoding/json +ReadFrame):\n%s", diff)
		}
		if ok && oldOK {
			if diff := cmp.Diff(oldMeta, meta, compareFields); diff != "" {
				t.Fatalf("meta (-encoding/json +ReadFrame):\n%s", diff)
			}
		} else if ok != oldOK && !ok {
			t.Fatalf("ReadFrame found no reading where encoding/json found %+v", oldMeta)
		}
	})
}
