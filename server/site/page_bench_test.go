package site

import (
	"net/http"
	"net/http/httptest"
	"testing"
)

// BenchmarkPage serves the widget's page, as a browser asks for it
// (gzip) and as a client without gzip: each request renders the page and
// compresses it anew (go-app writes its attributes in no set order, so
// the bytes differ from one request to the next).
func BenchmarkPage(b *testing.B) {
	h, err := New(&Options{Version: "bench"})
	if err != nil {
		b.Fatal(err)
	}
	for _, enc := range []string{"gzip", "identity"} {
		b.Run(enc, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				r := httptest.NewRequest(http.MethodGet, "/", nil)
				r.Header.Set("Accept-Encoding", enc)
				w := httptest.NewRecorder()
				h.ServeHTTP(w, r)
				if w.Code != http.StatusOK {
					b.Fatalf("GET / = %d", w.Code)
				}
			}
		})
	}
}
