package site

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// A shared cache (a CDN or a proxy in front of the bridge) that holds
// both encodings of one of go-app's responses revalidates them together:
// RFC 9111 section 4.3.1 has it send every stored variant's entity tag in
// one If-None-Match. The compressed bytes got an ETag of their own, so
// such a cache now holds two; the bridge must answer 304 when one of them
// is current, and name the one it selected.
func TestRevalidateTagList(t *testing.T) {
	h := newSite(t, &Options{WebDir: webDir(t, ""), Version: "v1.2.3"})
	for _, p := range []string{"/", "/app.js", "/manifest.webmanifest"} {
		plainTag := get(t, h, p).header.Get("ETag")
		zipTag := get(t, h, p, "Accept-Encoding", "gzip").header.Get("ETag")
		if plainTag == zipTag {
			t.Fatalf("%s: one ETag %s for both encodings", p, plainTag)
		}
		for _, inm := range []string{plainTag + ", " + zipTag, zipTag + ", " + plainTag, `"other", ` + zipTag, "W/" + zipTag} {
			again := get(t, h, p, "Accept-Encoding", "gzip", "If-None-Match", inm)
			if again.code != http.StatusNotModified || again.header.Get("ETag") != zipTag {
				t.Errorf("%s, gzip accepted, If-None-Match %s: %d, ETag %q; want 304 with %s", p, inm, again.code, again.header.Get("ETag"), zipTag)
			}
		}
		again := get(t, h, p, "If-None-Match", plainTag+", "+zipTag)
		if again.code != http.StatusNotModified || again.header.Get("ETag") != plainTag {
			t.Errorf("%s, no gzip, If-None-Match %s, %s: %d, ETag %q; want 304 with %s", p, plainTag, zipTag, again.code, again.header.Get("ETag"), plainTag)
		}
	}
}

// RFC 9110 section 15.4.5: a 304 carries the Vary a 200 to the same
// request would have. A cache that revalidates its uncompressed copy
// (ETag without -gzip) for a client that takes gzip gets a 304 that says
// nothing of Vary, though the 200 it stands for varies by Accept-Encoding.
func TestNotModifiedKeepsVary(t *testing.T) {
	h := newSite(t, &Options{WebDir: webDir(t, ""), Version: "v1.2.3"})
	for _, p := range []string{"/", "/app.js"} {
		plain := get(t, h, p)
		if !strings.Contains(strings.Join(plain.header.Values("Vary"), ","), "Accept-Encoding") {
			t.Fatalf("%s: the 200 has no Vary: Accept-Encoding", p)
		}
		for _, ae := range []string{"", "gzip"} {
			again := get(t, h, p, "Accept-Encoding", ae, "If-None-Match", plain.header.Get("ETag"))
			if again.code != http.StatusNotModified || !strings.Contains(strings.Join(again.header.Values("Vary"), ","), "Accept-Encoding") {
				t.Errorf("%s, Accept-Encoding %q, revalidated with %s: %d, Vary %q; want 304 with Vary: Accept-Encoding",
					p, ae, plain.header.Get("ETag"), again.code, again.header.Values("Vary"))
			}
		}
	}
}

// The If-None-Match list is read on a copy of the request: a handler must
// not change the request it was given (a middleware or log after it reads
// what the client sent).
func TestRevalidateLeavesRequestAlone(t *testing.T) {
	h := newSite(t, &Options{WebDir: webDir(t, ""), Version: "v1.2.3"})
	tag := get(t, h, "/").header.Get("ETag")
	inm := `"other", W/` + tag
	r := httptest.NewRequest(http.MethodGet, "/", nil)
	r.Header.Set("If-None-Match", inm)
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	if w.Code != http.StatusNotModified {
		t.Fatalf("If-None-Match %s: %d, want 304", inm, w.Code)
	}
	if got := r.Header.Get("If-None-Match"); got != inm {
		t.Errorf("the caller's request now has If-None-Match %s, want %s as sent", got, inm)
	}
}
