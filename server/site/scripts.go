package site

import (
	"crypto/sha256"
	"encoding/base64"
	"strings"
	"unicode/utf8"
)

// DemoScript is the web folder's file with the demo's panel, which only
// the demo's page loads (Options.Scripts); a static site has no demo and
// leaves it out.
const DemoScript = "demo.js"

// WarmupScript is the web folder's file that lays out a hidden sample
// form while the wasm loads, so the first real form does not pay a tab's
// first layout of form controls. Pages link it when the folder has it.
const WarmupScript = "warmup.js"

// ConnectScript is the web folder's file that connects to the bridge and
// says hello while the wasm loads, for the widget to take over. The
// bridge's own page and a static site's run it, as the page is parsed
// (see widgetScripts), when the folder has it; on a static site it reads
// config.json first, named by the page's formbridge-config meta element.
const ConnectScript = "connect.js"

// StorageScript is the web folder's file that stands in for the page's
// storage when the browser blocks it (go-app stops at start without).
// Pages run it as they are parsed, before go-app's loader, when the
// folder has it.
const StorageScript = "storage.js"

// pageScripts are a page's scripts from the web folder.
type pageScripts struct {
	linked []string // for go-app's Handler.Scripts: "/web/<name>[ defer]"
	inline []string // <script> elements, for go-app's Handler.RawHeaders
	hashes []string // 'sha256-…' sources that allow the inline ones
}

// widgetScripts are the scripts of the web folder a widget page runs,
// when the folder has them (a folder for some other go-app program, like
// the benchmarks' floors, does not): first, as the page is parsed, the
// ones named in parsing (connect.js, storage.js); then, deferred after
// go-app's loader, the warm-up.
//
// The ones run as the page is parsed go into the page itself, allowed by
// their hash in the Content-Security-Policy. Linked, each held the parser
// until the browser had it, even from its cache, and go-app's loader,
// deferred behind them, started the wasm's download ~50 ms later on a
// warm load (docs/TEAM.md). A script whose text would end or confuse an
// HTML script element is linked instead, as a plain script.
func widgetScripts(files *assets, parsing ...string) pageScripts {
	var s pageScripts
	for _, name := range parsing {
		f := files.files[name]
		if f == nil {
			continue
		}
		text, ok := inlineText(f.variants[""])
		if !ok {
			s.linked = append(s.linked, "/web/"+name)
			continue
		}
		// Named in stack traces and the browser's tools as the file.
		text += "\n//# sourceURL=" + name + "\n"
		sum := sha256.Sum256([]byte(text))
		s.inline = append(s.inline, "<script>"+text+"</script>")
		s.hashes = append(s.hashes, "'sha256-"+base64.StdEncoding.EncodeToString(sum[:])+"'")
	}
	if files.files[WarmupScript] != nil {
		s.linked = append(s.linked, "/web/"+WarmupScript+" defer")
	}
	return s
}

// inlineText is a script's text as the browser will read it inside a
// script element, the text its hash must be taken of: the HTML parser
// turns "\r\n" and "\r" into "\n". It reports false for text that cannot
// go into the element as it is: "</script" ends the element, "<!--" and
// "<script" change how the parser reads on, and the parser replaces NUL
// and bytes that are not UTF-8, so the hash would no longer match.
func inlineText(b []byte) (string, bool) {
	text := strings.ReplaceAll(strings.ReplaceAll(string(b), "\r\n", "\n"), "\r", "\n")
	if !utf8.ValidString(text) || strings.ContainsRune(text, 0) {
		return "", false
	}
	lower := strings.ToLower(text)
	for _, bad := range []string{"</script", "<!--", "<script"} {
		if strings.Contains(lower, bad) {
			return "", false
		}
	}
	return text, true
}

// scriptSrc is the policy's script-src: the site's own files, compiling
// the wasm, and the page's inline scripts by their hashes.
func scriptSrc(hashes []string) string {
	return strings.Join(append([]string{"script-src 'self' 'wasm-unsafe-eval'"}, hashes...), " ")
}
