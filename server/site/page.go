package site

import (
	"bytes"
	"net/http"
	"strconv"
	"strings"
)

// go-app v9 writes a viewport that forbids zooming ("maximum-scale=1,
// user-scalable=0"), which fails WCAG 1.4.4 (resize text) for people who
// need to enlarge the form. It has no option for it, so the page is
// rewritten on its way out.
const (
	goappViewport = `content="width=device-width, initial-scale=1, maximum-scale=1, user-scalable=0, viewport-fit=cover"`
	viewport      = `content="width=device-width, initial-scale=1, viewport-fit=cover"`
)

// servePage runs go-app's handler into a buffer and fixes its HTML pages:
// the viewport, and the loader's files linked under the version. go-app's
// responses are small (the page and a few generated scripts). immutable
// serves one of loaderFiles under its versioned URL.
func (s *site) servePage(w http.ResponseWriter, r *http.Request, immutable bool) {
	rec := &pageRecorder{header: w.Header(), code: http.StatusOK}
	gz := acceptsGzip(r.Header.Get("Accept-Encoding"))
	heldZipped := false // the client revalidates the compressed bytes
	if inm := r.Header.Get("If-None-Match"); inm != "" {
		// go-app compares If-None-Match with its one ETag as a whole
		// string. A cache holding both encodings sends both tags in one
		// list (RFC 9111 section 4.3.1), and a tag may come weak: the
		// list is read here, and go-app is given its own tag when one
		// listed stands for the bytes this request would get.
		if plain, zipped, ok := s.currentTag(inm, gz); ok {
			heldZipped = zipped
			r = r.Clone(r.Context())
			r.Header.Set("If-None-Match", plain)
		}
	}
	s.app.ServeHTTP(rec, r)
	if immutable {
		w.Header().Set("Cache-Control", cacheImmutable)
	}
	body := rec.body.Bytes()
	h := w.Header()
	ct := h.Get("Content-Type")
	if strings.HasPrefix(ct, "text/html") {
		body = bytes.Replace(body, []byte(goappViewport), []byte(viewport), 1)
		body = s.versionLoader(body)
		body = rawHeadersFirst(body, s.app.RawHeaders)
		h.Set("Content-Type", "text/html; charset=utf-8")
		h.Set("Content-Length", strconv.Itoa(len(body)))
	}
	if compressible(ct) {
		// The page and go-app's scripts and stylesheet (2-17 KB each)
		// are text. The compressed bytes get an ETag of their own
		// (Apache's way), taken back off a revalidation above.
		h.Add("Vary", "Accept-Encoding")
		zipped := false
		if rec.code == http.StatusOK && gz {
			if b := gzipped(body); b != nil {
				body, zipped = b, true
				h.Set("Content-Encoding", encodingGzip)
				h.Set("Content-Length", strconv.Itoa(len(body)))
			}
		}
		if tag := h.Get("ETag"); zipped && strings.HasSuffix(tag, `"`) {
			h.Set("ETag", strings.TrimSuffix(tag, `"`)+gzipTag)
		}
	}
	if rec.code == http.StatusNotModified {
		// A 304 carries the Vary of the 200 it stands for (RFC 9110
		// section 15.4.5); go-app's say nothing of the content type, and
		// all of them are text.
		h.Add("Vary", "Accept-Encoding")
		if tag := h.Get("ETag"); heldZipped && strings.HasSuffix(tag, `"`) {
			h.Set("ETag", strings.TrimSuffix(tag, `"`)+gzipTag)
		}
	}
	w.WriteHeader(rec.code)
	if r.Method != http.MethodHead {
		w.Write(body)
	}
}

// gzipTag ends the ETag of a compressed response of go-app's.
const gzipTag = `-gzip"`

// currentTag reads an If-None-Match list (weak comparison, RFC 9110
// section 13.1.2) for go-app's current ETag, or its compressed form when
// the request takes gzip; ok when one is there. zipped: the compressed
// form was, so the 304 names it. go-app gives every response the one
// ETag, its version.
func (s *site) currentTag(ifNoneMatch string, gz bool) (plain string, zipped, ok bool) {
	plain = `"` + s.app.Version + `"`
	zipTag := strings.TrimSuffix(plain, `"`) + gzipTag
	for _, t := range strings.Split(ifNoneMatch, ",") {
		switch strings.TrimPrefix(strings.TrimSpace(t), "W/") {
		case zipTag:
			if gz {
				return plain, true, true
			}
		case plain:
			ok = true
		}
	}
	return plain, false, ok
}

// acceptsGzip reports whether a request with this Accept-Encoding takes
// gzip.
func acceptsGzip(acceptEncoding string) bool {
	return (&asset{variants: map[string][]byte{encodingGzip: nil}}).encoding(acceptEncoding) == encodingGzip
}

// pageRecorder holds a response until it is complete; headers go straight
// to the real response's header map.
type pageRecorder struct {
	header http.Header
	code   int
	wrote  bool
	body   bytes.Buffer
}

func (p *pageRecorder) Header() http.Header { return p.header }

func (p *pageRecorder) WriteHeader(code int) {
	if !p.wrote {
		p.code, p.wrote = code, true
	}
}

func (p *pageRecorder) Write(b []byte) (int, error) {
	p.WriteHeader(http.StatusOK)
	return p.body.Write(b)
}

// versionLoader links go-app's loader files under the version in the
// page's head, where go-app writes them as src and href attributes. The
// rewrite stops at the page's own inline scripts (the first attribute-less
// <script>), whose text must stay as hashed, or else at </head>.
func (s *site) versionLoader(page []byte) []byte {
	end := bytes.Index(page, []byte("<script>"))
	if head := bytes.Index(page, []byte("</head>")); end < 0 || (head >= 0 && head < end) {
		end = head
	}
	if end < 0 {
		return page
	}
	head := page[:end]
	for _, f := range loaderFiles {
		for _, attr := range []string{` src="`, ` href="`} {
			head = bytes.ReplaceAll(head, []byte(attr+f+`"`), []byte(attr+s.static+f+`"`))
		}
	}
	return append(head[:len(head):len(head)], page[end:]...)
}

// rawHeadersFirst moves the page's own head elements (go-app's
// RawHeaders, which it writes last in the head) to the head's start,
// right after the charset. An inline script after a stylesheet link
// waits for the stylesheet: on a first visit that held connect.js, and
// with it the connection it opens while the wasm loads, and the parser,
// until both stylesheets had come. A policy in a meta tag (the static
// site's) rules only what follows it, so it belongs first as well.
func rawHeadersFirst(page []byte, raw []string) []byte {
	if len(raw) == 0 {
		return page
	}
	// The elements exactly as go-app writes them, one per line, last in
	// the head: nothing else is moved, whatever else the page holds.
	block := []byte(strings.Join(raw, "\n"))
	start := bytes.Index(page, append(block[:len(block):len(block)], "\n</head>"...))
	charset := bytes.Index(page, []byte(charsetMeta))
	if start < 0 || charset < 0 || charset > start {
		return page
	}
	at, end := charset+len(charsetMeta), start+len(block)
	moved := make([]byte, 0, len(page)+1)
	moved = append(moved, page[:at]...)
	moved = append(moved, '\n')
	moved = append(moved, block...)
	moved = append(moved, page[at:start]...)
	return append(moved, page[end+1:]...)
}

// charsetMeta is how go-app opens every page's head.
const charsetMeta = `<meta charset="UTF-8">`
