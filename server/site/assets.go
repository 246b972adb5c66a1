package site

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"io/fs"
	"mime"
	"net/http"
	"os"
	"path"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/formbridge/formbridge/web"
)

// rawLengthHeader carries an asset's decompressed length next to a
// compressed body: go-app's loader computes its percentage from the
// wasm's length and would otherwise compare compressed bytes read to the
// compressed Content-Length but count decompressed bytes.
const rawLengthHeader = "X-Uncompressed-Content-Length"

// Cache lifetimes. Versioned URLs carry the content hash, so they never
// change meaning; unversioned ones (embed.js, linked by host pages) must
// be revalidated.
const (
	cacheImmutable  = "public, max-age=31536000, immutable"
	cacheRevalidate = "no-cache"
)

// Content codings served from precompressed files (foo.br, foo.gz).
const (
	encodingBrotli = "br"
	encodingGzip   = "gzip"
)

// brotliSlack is how much older than its file a brotli copy may be: the
// brotli tool stamps its output with the input's time cut to whole
// seconds, and a folder copied without keeping times can write the copy
// a moment before the file; a rebuild comes later than that.
const brotliSlack = 2 * time.Second

// asset is one file of the web folder, held in memory with its
// precompressed copies when the folder has them.
type asset struct {
	name        string
	contentType string
	hash        string            // hex sha-256 of the raw bytes
	modTime     time.Time         // zero in an embedded folder
	variants    map[string][]byte // "" (raw), "br", "gzip"
}

// assets is the whole web folder, read once at start.
type assets struct {
	files map[string]*asset // by path inside the folder, e.g. "icons/icon.svg"
	hash  string            // of every file's path and hash: the content version
}

// webFolder is the folder dir, or the built-in one when dir is "".
func webFolder(dir string) (fs.FS, error) {
	if dir == "" {
		return web.FS, nil
	}
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		return nil, fmt.Errorf("the web folder %s cannot be read: it does not exist or is not a folder", dir)
	}
	return os.DirFS(dir), nil
}

// HasWidget reports whether the web folder (webDir, "" for the one
// embedded in the binary) holds the widget's app.wasm, without which the
// page cannot start: it is built by make wasm, not committed.
func HasWidget(webDir string) bool {
	fsys, err := webFolder(webDir)
	if err != nil {
		return false
	}
	_, err = fs.Stat(fsys, "app.wasm")
	return err == nil
}

// loadAssets reads fsys. foo.br and foo.gz become encodings of foo rather
// than files of their own; Go sources (the embedding package) are left out.
func loadAssets(fsys fs.FS) (*assets, error) {
	a := &assets{files: map[string]*asset{}}
	type copyFile struct {
		b       []byte
		modTime time.Time
	}
	compressed := map[string]copyFile{}
	err := fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || strings.HasSuffix(p, ".go") {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		b, err := fs.ReadFile(fsys, p)
		if err != nil {
			return err
		}
		if strings.HasSuffix(p, ".br") || strings.HasSuffix(p, ".gz") {
			compressed[p] = copyFile{b, info.ModTime()}
			return nil
		}
		sum := sha256.Sum256(b)
		a.files[p] = &asset{
			name:        p,
			contentType: contentType(p),
			hash:        hex.EncodeToString(sum[:]),
			modTime:     info.ModTime(),
			variants:    map[string][]byte{"": b},
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("failed to read the web folder: %w", err)
	}
	for p, c := range compressed {
		base, enc := strings.TrimSuffix(p, ".br"), encodingBrotli
		if strings.HasSuffix(p, ".gz") {
			base, enc = strings.TrimSuffix(p, ".gz"), encodingGzip
		}
		if f := a.files[base]; f != nil && fresh(f, enc, c.b, c.modTime) {
			f.variants[enc] = c.b
		}
	}
	for _, f := range a.files {
		if _, ok := f.variants[encodingGzip]; !ok && compressible(f.contentType) {
			if gz := gzipped(f.variants[""]); gz != nil {
				f.variants[encodingGzip] = gz
			}
		}
	}
	names := make([]string, 0, len(a.files))
	for n := range a.files {
		names = append(names, n)
	}
	sort.Strings(names)
	h := sha256.New()
	for _, n := range names {
		fmt.Fprintf(h, "%s %s\n", n, a.files[n].hash)
	}
	a.hash = hex.EncodeToString(h.Sum(nil))
	return a, nil
}

// fresh reports whether a precompressed copy can stand for f: not empty
// (a compressor still running), and not left over from an older build.
// A gzip copy, which the standard library reads, must decode to exactly
// f's bytes. A brotli copy, which it cannot read, must not be older than
// f by more than brotliSlack (a wasm rebuilt with go build after make
// wasm). A stale copy is dropped and another coding served instead.
func fresh(f *asset, enc string, b []byte, modTime time.Time) bool {
	if len(b) == 0 {
		return false
	}
	if enc != encodingGzip {
		return !modTime.Before(f.modTime.Add(-brotliSlack))
	}
	zr, err := gzip.NewReader(bytes.NewReader(b))
	if err != nil {
		return false
	}
	h := sha256.New()
	if _, err := io.Copy(h, zr); err != nil {
		return false
	}
	return hex.EncodeToString(h.Sum(nil)) == f.hash
}

// compressible reports whether a response of this Content-Type is text,
// which gzip shrinks by two thirds: on a phone's network the page, its
// stylesheets and scripts come before the wasm is even asked for.
func compressible(contentType string) bool {
	for _, prefix := range []string{"text/", "application/javascript", "application/json", "application/manifest+json", "image/svg+xml"} {
		if strings.HasPrefix(contentType, prefix) {
			return true
		}
	}
	return false
}

// minGzip is the smallest body worth compressing: below it the saving is
// a few bytes of a packet that goes anyway.
const minGzip = 512

// gzipWriters are kept for reuse: the page is compressed at each request,
// and a new writer allocates ~800 KB of compressor state.
var gzipWriters = sync.Pool{New: func() any {
	zw, _ := gzip.NewWriterLevel(nil, gzip.BestCompression) // a valid level: no error
	return zw
}}

// gzipped is b compressed, or nil when that would not make it smaller.
func gzipped(b []byte) []byte {
	if len(b) < minGzip {
		return nil
	}
	var out bytes.Buffer
	zw := gzipWriters.Get().(*gzip.Writer)
	zw.Reset(&out)
	zw.Write(b)
	zw.Close()
	gzipWriters.Put(zw)
	if out.Len() >= len(b) {
		return nil
	}
	return out.Bytes()
}

func contentType(name string) string {
	switch path.Ext(name) {
	case ".wasm":
		// Required by WebAssembly.instantiateStreaming; some systems'
		// MIME tables lack it.
		return "application/wasm"
	case ".js":
		return "text/javascript; charset=utf-8"
	}
	if t := mime.TypeByExtension(path.Ext(name)); t != "" {
		return t
	}
	return "application/octet-stream"
}

// serve writes the asset, picking a precompressed copy the client accepts.
func (f *asset) serve(w http.ResponseWriter, r *http.Request, immutable bool) {
	h := w.Header()
	enc := f.encoding(r.Header.Get("Accept-Encoding"))
	body := f.variants[enc]
	if len(f.variants) > 1 {
		h.Add("Vary", "Accept-Encoding")
		h.Set(rawLengthHeader, strconv.Itoa(len(f.variants[""])))
	}
	if enc != "" {
		h.Set("Content-Encoding", enc)
	}
	h.Set("Content-Type", f.contentType)
	if immutable {
		h.Set("Cache-Control", cacheImmutable)
	} else {
		h.Set("Cache-Control", cacheRevalidate)
	}
	// One ETag per encoding: the bytes differ, so a cache must not
	// answer a gzip request with a brotli body.
	etag := `"` + f.hash[:32]
	if enc != "" {
		etag += "-" + enc
	}
	h.Set("ETag", etag+`"`)
	http.ServeContent(w, r, f.name, time.Time{}, bytes.NewReader(body))
}

// encoding chooses brotli, then gzip, then the raw bytes, among those the
// request accepts (a q=0 parameter refuses a coding, RFC 9110 section 12.5.3).
func (f *asset) encoding(acceptEncoding string) string {
	accepted := map[string]bool{}
	for _, part := range strings.Split(acceptEncoding, ",") {
		name, params, _ := strings.Cut(strings.TrimSpace(part), ";")
		q := strings.ReplaceAll(strings.TrimSpace(params), " ", "")
		if q == "q=0" || q == "q=0.0" || q == "q=0.00" || q == "q=0.000" {
			continue
		}
		accepted[strings.ToLower(strings.TrimSpace(name))] = true
	}
	for _, enc := range []string{encodingBrotli, encodingGzip} {
		if _, ok := f.variants[enc]; ok && (accepted[enc] || accepted["*"]) {
			return enc
		}
	}
	return ""
}
