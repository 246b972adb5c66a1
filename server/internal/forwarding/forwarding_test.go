package forwarding

import (
	"net/http"
	"strings"
	"testing"
)

func TestRemote(t *testing.T) {
	for _, tc := range []struct {
		headers [][2]string
		want    string
	}{
		{nil, "127.0.0.1:5000"},
		// The nearest proxy's entry is the last one: earlier ones are
		// whatever the client sent.
		{[][2]string{{"X-Forwarded-For", "10.9.9.9, 203.0.113.7"}}, "127.0.0.1:5000 for 203.0.113.7"},
		{[][2]string{{"X-Forwarded-For", ""}, {"X-Forwarded-For", "203.0.113.7"}}, "127.0.0.1:5000 for 203.0.113.7"},
		{[][2]string{{"Forwarded", `for=10.0.0.1, for="[2001:db8::1]:4711";proto=https`}}, "127.0.0.1:5000 for [2001:db8::1]:4711"},
		{[][2]string{{"X-Real-Ip", " 203.0.113.8 "}}, "127.0.0.1:5000 for 203.0.113.8"},
		{[][2]string{{"Via", "1.1 proxy"}}, "127.0.0.1:5000"},
		{[][2]string{{"X-Forwarded-For", strings.Repeat("9", 500)}}, "127.0.0.1:5000 for " + strings.Repeat("9", 64) + "…"},
	} {
		r := &http.Request{RemoteAddr: "127.0.0.1:5000", Header: http.Header{}}
		for _, h := range tc.headers {
			r.Header.Add(h[0], h[1])
		}
		if got := Remote(r); got != tc.want {
			t.Errorf("headers %q: %q; want %q", tc.headers, got, tc.want)
		}
		if want := len(tc.headers) > 0; Present(r) != want {
			t.Errorf("headers %q: Present %v; want %v", tc.headers, !want, want)
		}
	}
}
