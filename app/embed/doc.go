// Package embed is the widget's side of being embedded in another web
// page by web/embed.js, and of being hosted as a static site.
//
// Embedded, the widget runs in a sandboxed iframe on the bridge's (or
// the static site's) origin. The iframe's URL names the host page's
// origin in its fragment (#host=https://chat.example.com); the bridge's
// Content-Security-Policy frame-ancestors decides which origins may frame
// it at all. The two pages then talk only by postMessage, with JSON text
// messages, each side checking the other's origin and window:
//
//	widget → host: ready, height {height}, pending {count},
//	               settled {id, outcome}, connection {state}
//	host → widget: init {token, bridge?, theme?}, theme {theme}, focus
//
// The token travels in init, never in the iframe's URL, so it is in no
// history entry, log or Referer. The host learns counts, ids, outcomes
// and the connection state, never what a person typed.
//
// A static site has no bridge on its own origin: a config.json next to
// its page (its URL path in the FORMBRIDGE_CONFIG variable, set by
// `formbridge static`) may name one when the link does not.
package embed
