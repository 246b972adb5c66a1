package client

import (
	"net/url"
	"strings"

	"github.com/formbridge/formbridge/app/wire"
)

// BridgeURL gives the WebSocket URL to dial. fragmentBridge is the page's
// #bridge= value, for a widget hosted apart from its bridge; it may be a
// ws(s):// or http(s):// URL, and gets wire.Path when it has no path.
// Without it, the bridge is the page's own origin at wire.Path, http
// mapped to ws and https to wss. It returns "" when neither gives a usable
// URL (Run then reports a Fatal event rather than dialing something else).
func BridgeURL(pageURL string, fragmentBridge string) string {
	if fragmentBridge != "" {
		u, ok := wsURL(fragmentBridge)
		if !ok {
			return ""
		}
		if u.Path == "" || u.Path == "/" {
			u.Path = wire.Path
		}
		return u.String()
	}
	u, ok := wsURL(pageURL)
	if !ok {
		return ""
	}
	u.Path, u.RawPath, u.RawQuery = wire.Path, "", ""
	return u.String()
}

// wsURL parses raw and maps its scheme to ws/wss, dropping the parts a
// WebSocket URL must not carry (user info, fragment).
func wsURL(raw string) (*url.URL, bool) {
	u, err := url.Parse(strings.TrimSpace(raw))
	if err != nil || u.Host == "" {
		return nil, false
	}
	switch strings.ToLower(u.Scheme) {
	case "http", "ws":
		u.Scheme = "ws"
	case "https", "wss":
		u.Scheme = "wss"
	default:
		return nil, false
	}
	u.User, u.Fragment, u.RawFragment = nil, "", ""
	return u, true
}
