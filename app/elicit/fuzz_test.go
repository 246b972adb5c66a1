package elicit

import (
	"bytes"
	"encoding/json"
	"errors"
	"reflect"
	"regexp"
	"strings"
	"testing"
	"time"
)

// seedSchemas are the fuzz seeds: every kind, the spec's examples, and
// schemas refused for each reason.
var seedSchemas = []string{
	allKinds, sep1330, sep1034,
	`{"type":"object"}`,
	`{"type":"object","properties":{"a":{"type":"object"}}}`,
	`{"type":"object","properties":{"a":{"type":"string","pattern":"^(a|b)*c$","minLength":1}},"required":["a","b"]}`,
	`{"type":"object","properties":{"a":{"type":"string","pattern":"^[A-Z]{2,4}-\\d{3}(x\\d+)?$","maxLength":8}}}`,
	`{"type":"object","properties":{"d":{"type":"string","format":"date-time","default":"2026-01-01T00:00:00Z"}}}`,
	`{"type":"object","properties":{"n":{"type":"integer","minimum":0.5,"maximum":1.5,"default":1}}}`,
	`{"type":"object","properties":{"m":{"type":"array","items":{"enum":["a","b"]},"minItems":0,"maxItems":1,"default":["b"]}}}`,
	`{"type":"object","properties":{"s":{"type":"string","enum":["a"],"enumNames":["A","B"]}}}`,
	`{"type":"object","properties":{"a~/b":{"type":"boolean","default":false}},"required":["a~/b"]}`,
	`[1,{"a":null}]`, `{"type":"object","properties":{"x":{"$ref":"#"}}}`, ``, `{`,
}

func FuzzParse(f *testing.F) {
	for _, s := range seedSchemas {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, schema []byte) {
		form, err := Parse(schema)
		// The same schema inside a request must meet the same verdict.
		params := append(append([]byte(`{"message":"m","requestedSchema":`), schema...), '}')
		req, reqErr := ParseRequest(params)
		if err != nil {
			var se *SchemaError
			if !errors.As(err, &se) || len(se.Problems) == 0 || err.Error() == "" {
				t.Fatalf("Parse error %v (%T) lists no problems", err, err)
			}
			// A schema that breaks the request's JSON may parse as another
			// request; only a well-formed refusal must carry over.
			if reqErr == nil && json.Valid(schema) {
				t.Fatalf("ParseRequest accepted a schema Parse refused: %v", err)
			}
			return
		}
		if reqErr != nil {
			t.Fatalf("ParseRequest refused a schema Parse accepted: %v", reqErr)
		}
		if len(req.Form.Fields) != len(form.Fields) {
			t.Fatalf("ParseRequest gave %d fields, Parse %d", len(req.Form.Fields), len(form.Fields))
		}
		for _, fd := range form.Fields {
			if fd.Label == "" && strings.TrimSpace(fd.Key) != "" && len(words(fd.Key)) > 0 {
				t.Errorf("field %q has no label", fd.Key)
			}
			// The sample shown to the person is one the bridge accepts.
			if fd.Example != "" {
				for _, e := range form.Validate(map[string]any{fd.Key: fd.Example}) {
					if e.Field == fd.Key {
						t.Errorf("field %q: its example %q is refused: %+v", fd.Key, fd.Example, e)
					}
				}
			}
		}
		form.Sensitive()
		checkRoundTrip(t, form)
	})
}

// fuzzForm parses schema, or when the fuzzer has broken it, one of the
// seed schemas, so that answers keep meeting real forms.
func fuzzForm(schema string, pick uint8) *Form {
	if form, err := Parse([]byte(schema)); err == nil {
		return form
	}
	form, err := Parse([]byte(seedSchemas[int(pick)%len(seedSchemas)]))
	if err != nil {
		return nil
	}
	return form
}

// fuzzInputs spreads the lines of raw over the form's fields, in turn,
// so that fuzzed text reaches every field whatever its key.
func fuzzInputs(form *Form, raw string) Inputs {
	in := Inputs{}
	if len(form.Fields) == 0 {
		return in
	}
	for i, line := range strings.Split(raw, "\n") {
		k := form.Fields[i%len(form.Fields)].Key
		in[k] = append(in[k], line)
	}
	return in
}

var knownCodes = setOf(CodeRequired, CodeTooShort, CodeTooLong, CodePattern, CodeFormat, CodeNotInteger,
	CodeNotANumber, CodeTooSmall, CodeTooLarge, CodeNotAnOption, CodeTooFew, CodeTooMany,
	CodeWrongType, CodeUnknownKey, CodeDuplicate)

func checkFieldErrors(t *testing.T, form *Form, errs []FieldError) {
	t.Helper()
	for _, e := range errs {
		if !knownCodes[e.Code] || e.Message == "" {
			t.Errorf("error %+v: unknown code or no message", e)
		}
		if e.Code != CodeUnknownKey && form.Field(e.Field) == nil {
			t.Errorf("error %+v names no field", e)
		}
	}
}

func FuzzCollect(f *testing.F) {
	f.Add(allKinds, uint8(0), "Ann\nann@example.com\nhttps://x.y\n2026-01-01\n2026-01-01T10:00\nABC\n5\n0.5\ntrue\nred\ns\na\nb", int64(60))
	f.Add(sep1330, uint8(1), "option1\nvalue1\nopt2\noption3\nvalue2\noption1", int64(-330))
	f.Add(sep1034, uint8(2), "\n\n\n\n", int64(0))
	f.Add(`{"type":"object","properties":{"n":{"type":"number"}}}`, uint8(0), "-0", int64(0))
	f.Add(`{"type":"object","properties":{"n":{"type":"integer"}}}`, uint8(0), "1e400", int64(0))
	f.Add(`{"type":"object","properties":{"d":{"type":"string","format":"date-time"}}}`, uint8(0), "2026-12-02 10:30:59.123", int64(24*60))
	f.Fuzz(func(t *testing.T, schema string, pick uint8, raw string, offsetMinutes int64) {
		form := fuzzForm(schema, pick)
		if form == nil {
			return
		}
		in := fuzzInputs(form, raw)
		offset := time.Duration(offsetMinutes) * time.Minute
		content, errs := form.Collect(in, &CollectOptions{UTCOffset: func(time.Time) time.Duration { return offset }})
		checkFieldErrors(t, form, errs)
		if errs != nil {
			if content != nil {
				t.Fatalf("content %v alongside errors", content)
			}
			return
		}
		// Whatever a person can send, the bridge accepts, also after JSON.
		if verrs := form.Validate(content); verrs != nil {
			t.Fatalf("Validate(Collect(%q)) = %+v (content %#v)", raw, verrs, content)
		}
		b, err := json.Marshal(content)
		if err != nil {
			t.Fatalf("content does not marshal: %v", err)
		}
		var decoded map[string]any
		if err := json.Unmarshal(b, &decoded); err != nil {
			t.Fatal(err)
		}
		if verrs := form.Validate(decoded); verrs != nil {
			t.Fatalf("Validate(JSON %s) = %+v", b, verrs)
		}
		for k, v := range content {
			switch v := v.(type) {
			case string:
				if v == "" {
					t.Errorf("%s sent as an empty string", k)
				}
			case []string:
				// Option order, each once, never empty.
				fd := form.Field(k)
				last := -1
				for _, x := range v {
					i := fd.optionIndex(x)
					if i <= last {
						t.Errorf("%s sent %q, not in option order", k, v)
					}
					last = i
				}
				if len(v) == 0 {
					t.Errorf("%s sent as an empty list", k)
				}
			}
		}
	})
}

func FuzzValidate(f *testing.F) {
	f.Add(allKinds, uint8(0), `{"name":"Ann","ok":true,"age":5,"tags":["a"]}`)
	f.Add(allKinds, uint8(0), `{"name":1,"ok":"true","age":1.5,"tags":[1],"x":null}`)
	f.Add(sep1330, uint8(1), `{"untitledSingle":"option1","titledMulti":["value2","value2"]}`)
	f.Add(sep1034, uint8(2), `{"age":1e400,"score":-0}`)
	f.Fuzz(func(t *testing.T, schema string, pick uint8, content string) {
		form := fuzzForm(schema, pick)
		if form == nil {
			return
		}
		checkRoundTrip(t, form)
		var asFloat map[string]any
		if json.Unmarshal([]byte(content), &asFloat) != nil {
			return
		}
		errs := form.Validate(asFloat)
		checkFieldErrors(t, form, errs)
		// Decoding numbers as json.Number must not change the verdict.
		dec := json.NewDecoder(bytes.NewReader([]byte(content)))
		dec.UseNumber()
		var asNumber map[string]any
		if dec.Decode(&asNumber) != nil {
			t.Fatalf("UseNumber decode failed where plain decode worked")
		}
		if a, b := codes(errs), codes(form.Validate(asNumber)); !reflect.DeepEqual(a, b) {
			t.Fatalf("float64 gives %q, json.Number gives %q", a, b)
		}
	})
}

func FuzzCheckURL(f *testing.F) {
	for _, s := range []string{"https://example.com", "http://localhost:1/", "javascript:alert(1)", "https://xn--mnchen-3ya.de",
		"https://u:p@[::1]:8/", "https://0x7f.1", "https://pаypal.com"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		info, err := CheckURL(raw)
		if err != nil {
			if info != nil || err.Error() == "" {
				t.Fatalf("error %v with info %+v", err, info)
			}
			return
		}
		switch info.Scheme {
		case "https":
		case "http":
			if len(info.Warnings) == 0 {
				t.Fatalf("http link %q without a warning", raw)
			}
		default:
			t.Fatalf("scheme %q accepted", info.Scheme)
		}
		if info.Host == "" || info.Domain == "" {
			t.Fatalf("host %q, domain %q", info.Host, info.Domain)
		}
		// The domain is that of the name the browser opens: the host's
		// end, unless the host is written with characters read as others
		// ("ϰ" opens κ, full-width letters their plain ones), which a
		// warning says, and the widget then shows the real name; or the
		// host is an address in an old form, which its warning names.
		if !strings.HasSuffix(info.Host, info.Domain) {
			disguised, address := false, false
			for _, w := range info.Warnings {
				disguised = disguised || w.Code == "disguised"
				address = address || w.Code == "ip_address" && strings.Contains(w.Message, " "+info.Domain+",")
			}
			if !address && (!disguised || info.ASCIIHost == "" || !info.Lookalike()) {
				t.Fatalf("host %q, domain %q, real name %q, warnings %+v: the domain is not the host's and nothing says why", info.Host, info.Domain, info.ASCIIHost, info.Warnings)
			}
		}
	})
}

func setOf(keys ...string) map[string]bool {
	m := make(map[string]bool, len(keys))
	for _, k := range keys {
		m[k] = true
	}
	return m
}

// FuzzECMAPattern: reading any text as a JSON Schema pattern never
// panics, and what it gives is RE2 that compiles or is refused cleanly.
func FuzzECMAPattern(f *testing.F) {
	for _, s := range []string{`^\w+\s\w+$`, `[\s\S]`, `\u{1F600}`, `\uD83D\uDE00`, `[^]`, `\d{06}`, `(?<n>a)`, `[\b\cJ]`, `\p{Script=Greek}`, `a{1,}?`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, src string) {
		re2, err := ecmaToRE2(src)
		if err != nil {
			if re2 != "" || err.Error() == "" {
				t.Fatalf("refused with %q and %v", re2, err)
			}
			return
		}
		if len(re2) > maxRE2Pattern {
			t.Fatalf("%d bytes of RE2", len(re2))
		}
		if _, err := regexp.Compile(re2); err != nil && err.Error() == "" {
			t.Fatal("an empty compile error")
		}
	})
}
