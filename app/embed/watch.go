package embed

import (
	"net/url"

	"github.com/maxence-charriere/go-app/v9/pkg/app"
)

// Watch words a connection that never came up, for a widget whose bridge
// is on another origin than its page (a static site). The browser tells
// a page nothing about why a WebSocket failed: a bridge that is down and
// one that refuses this page's origin (--allowed-origins) look the same,
// so the message names both.
type Watch struct {
	bridge string // host of the bridge, as the person may read it
	origin string // this page's origin, to put in --allowed-origins
	online bool   // was online once: later drops are ordinary ones
	shown  bool
}

// NewWatch watches this page's connections to bridgeURL (a ws:// or
// wss:// URL).
func NewWatch(bridgeURL string) *Watch {
	origin := ""
	if app.IsClient {
		origin = app.Window().Get("location").Get("origin").String()
	}
	return newWatch(bridgeURL, origin)
}

func newWatch(bridgeURL, pageOrigin string) *Watch {
	host := bridgeURL
	if u, err := url.Parse(bridgeURL); err == nil && u.Host != "" {
		host = u.Host
	}
	return &Watch{bridge: host, origin: pageOrigin}
}

// Problem takes each connection state ("connecting", "online",
// "offline") and returns what to show the person instead of the queue,
// or "" for nothing. Once shown, the problem stays until the bridge
// answers, rather than flickering with each retry.
func (w *Watch) Problem(state string) string {
	if w == nil {
		return ""
	}
	switch {
	case state == "online":
		w.online, w.shown = true, false
	case state == "offline" && !w.online && !w.shown:
		w.shown = true
		// The fix is for whoever runs the bridge, in their words: on the
		// console, where they look, not on the approver's screen.
		warn(w.Hint())
	}
	if !w.shown {
		return ""
	}
	return "Cannot reach the service that sends your requests; still trying. " +
		"It may be stopped, or not set up for this page yet. If this goes on, tell whoever sent you the link."
}

// Hint is the technical side of Problem, for whoever runs the bridge.
func (w *Watch) Hint() string {
	return "formbridge: cannot reach the bridge at " + w.bridge + ". It may be stopped, or its --allowed-origins may lack " + w.origin + "."
}
