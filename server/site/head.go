package site

import (
	"html"
	"regexp"
)

// versionMetaName names the page's meta element that holds the page's version
// (Handler.Version). The widget and web/connect.js both read it there and
// send it as clientInfo.version in hello, so the bridge's log says which
// widget build each connection runs: tabs and static sites keep an old
// page open for days after an upgrade. Both must write the same hello,
// byte for byte, for the widget to take the page's early connection, so
// they read one element rather than each its own copy.
const versionMetaName = "formbridge-version"

// plainVersion is a version both JSON encoders (Go's, which escapes <, >
// and &, and the browser's, which does not) write alike, short enough
// for a log line: what `git describe` and contentVersion give.
var plainVersion = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._+-]{0,99}$`)

// versionMeta is the page's version meta element, none for a
// version that is not plain: the widget then sends no version.
func versionMeta(version string) []string {
	if !plainVersion.MatchString(version) {
		return nil
	}
	return []string{`<meta name="` + versionMetaName + `" content="` + html.EscapeString(version) + `">`}
}

// wasmPreload has the browser fetch the wasm (url, the loader's own) as
// soon as it reads the page's head, rather than once go-app's loader has
// been fetched and run, after the page is parsed: on a first visit over
// a real network the download, most of the wait, starts that much
// sooner. as=fetch with crossorigin is what the loader's fetch(url) asks
// for (mode cors, credentials same-origin), so the browser hands it the
// preloaded answer and downloads the wasm once.
func wasmPreload(url string) string {
	return `<link rel="preload" href="` + html.EscapeString(url) + `" as="fetch" crossorigin>`
}
