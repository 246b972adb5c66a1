package ui

import (
	"net/url"
	"strings"
)

// link is what the widget reads from its URL fragment: the channel's
// token and, for a widget hosted apart from its bridge, the bridge's
// WebSocket URL. The fragment is used because browsers never send it to
// the server, so the token stays out of access logs and Referer headers.
type link struct {
	Token  string `json:"token"`
	Bridge string `json:"bridge,omitempty"`
	// Refused is what the tab keeps in place of a link the bridge
	// refused (refusedLink), so a reload says that, not "no access key".
	Refused bool `json:"refused,omitempty"`
}

// refusedLink is kept for a reload in place of a refused link: never
// its token, which must not be tried again.
const refusedLink = `{"refused":true}`

// parseFragment reads "#token=…&bridge=…" (the leading "#" is optional).
// Unknown keys are ignored; a fragment that is not a query is no link.
// Not inlined: each of its three callers' copies cost ~700 bytes of wasm.
//
//go:noinline
func parseFragment(fragment string) link {
	fragment = strings.TrimPrefix(fragment, "#")
	q, err := url.ParseQuery(fragment)
	if err != nil {
		return link{}
	}
	// The bridge is checked by client.BridgeURL, which refuses (rather
	// than guesses) a URL it cannot dial.
	return link{Token: strings.TrimSpace(q.Get("token")), Bridge: strings.TrimSpace(q.Get("bridge"))}
}
