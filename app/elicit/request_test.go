package elicit

import (
	"fmt"
	"reflect"
	"strings"
	"testing"
)

func TestParseRequestURL(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, params string
		paths        []string // nil: accepted
	}{
		{"valid", `{"mode":"url","message":"Sign in","elicitationId":"e-1","url":"https://auth.example.com/x","_meta":{"a":1},"task":{}}`, nil},
		{"schema ignored in url mode", `{"mode":"url","message":"Sign in","elicitationId":"e-1","url":"https://example.com","requestedSchema":{"type":"array"}}`, nil},
		{"javascript", `{"mode":"url","message":"m","elicitationId":"e","url":"javascript:alert(1)"}`, []string{"/url"}},
		{"plain http", `{"mode":"url","message":"m","elicitationId":"e","url":"http://example.com"}`, []string{"/url"}},
		{"url not a string", `{"mode":"url","message":"m","elicitationId":"e","url":5}`, []string{"/url"}},
		{"no url", `{"mode":"url","message":"m","elicitationId":"e"}`, []string{"/url"}},
		{"no id", `{"mode":"url","message":"m","url":"https://example.com"}`, []string{"/elicitationId"}},
		{"empty id", `{"mode":"url","message":"m","elicitationId":"","url":"https://example.com"}`, []string{"/elicitationId"}},
		{"message not a string", `{"mode":"url","message":["m"],"elicitationId":"e","url":"https://example.com"}`, []string{"/message"}},
		{"duplicate key", `{"mode":"url","message":"m","message":"n","elicitationId":"e","url":"https://example.com"}`, []string{"/message"}},
		{"duplicate key after many", `{"a":0` + manyMembers(70) + `,"url":"https://example.com","mode":"url","message":"m","elicitationId":"e","url":"https://evil.example"}`, []string{"/url"}},
		{"key in other case", `{"mode":"url","message":"m","elicitationId":"e","url":"https://example.com","URL":"https://evil.example"}`, []string{"/URL"}},
		{"meta in other case", `{"mode":"url","message":"m","elicitationId":"e","url":"https://example.com","_META":{}}`, []string{"/_META"}},
		{"key folded by Unicode", `{"mode":"url","message":"m","elicitationId":"e","url":"https://example.com","meſſage":"n"}`, []string{"/meſſage"}},
		{"message reversed", `{"mode":"url","message":"account \u202eRU-0042\u202c","elicitationId":"e","url":"https://example.com"}`, []string{"/message"}},
		{"message too long", `{"mode":"url","message":"` + strings.Repeat("m", MaxTextRunes+1) + `","elicitationId":"e","url":"https://example.com"}`, []string{"/message"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			req, err := ParseRequest([]byte(tt.params))
			if tt.paths == nil {
				if err != nil {
					t.Fatal(err)
				}
				if req.Mode != ModeURL || req.ElicitationID != "e-1" || req.URL == nil || req.URL.Scheme != "https" || req.Form != nil {
					t.Errorf("got %+v", req)
				}
				return
			}
			if err == nil {
				t.Fatalf("accepted: %+v", req)
			}
			if got := problemPaths(t, err); !reflect.DeepEqual(got, tt.paths) {
				t.Errorf("problem paths = %q, want %q (%v)", got, tt.paths, err)
			}
		})
	}
}

func TestParseRequestSize(t *testing.T) {
	t.Parallel()
	big := `{"message":"m","_meta":{"x":"` + strings.Repeat("a", MaxRequestBytes) + `"},"requestedSchema":{"type":"object"}}`
	if _, err := ParseRequest([]byte(big)); err == nil {
		t.Error("a request over MaxRequestBytes was accepted")
	}
	schema := `{"message":"m","requestedSchema":{"type":"object","description":"` + strings.Repeat("a", MaxSchemaBytes) + `"}}`
	_, err := ParseRequest([]byte(schema))
	if err == nil {
		t.Fatal("a schema over MaxSchemaBytes was accepted inside a request")
	}
	if got := problemPaths(t, err); !reflect.DeepEqual(got, []string{"/requestedSchema"}) {
		t.Errorf("paths %q", got)
	}
}

// manyMembers is n distinct members, each after a comma.
func manyMembers(n int) string {
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, `,"k%d":1`, i)
	}
	return b.String()
}

// Isolates, which localization tools put around inserted words, are
// not direction overrides: such a message is taken.
func TestParseRequestIsolates(t *testing.T) {
	t.Parallel()
	if _, err := ParseRequest([]byte(`{"message":"Invite \u2068Ada\u2069?","requestedSchema":{"type":"object","properties":{}}}`)); err != nil {
		t.Fatal(err)
	}
}
