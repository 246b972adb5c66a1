package embed

import (
	"encoding/json"
	"errors"
	"strings"
)

// Protocol is the value of every message's "formbridge" member: a page
// can tell formbridge's messages from others on the same window, and a
// later, incompatible version from this one.
const Protocol = "embed.v1"

// maxMessage bounds what the widget reads from a host page; an init with
// a theme is well under 4 KiB.
const maxMessage = 16 << 10

// Message types, host → widget.
const (
	TypeInit  = "init"  // the link to connect with, and an optional theme
	TypeTheme = "theme" // a new theme
	TypeFocus = "focus" // move keyboard focus into the widget
)

// Message types, widget → host.
const (
	TypeReady      = "ready"      // the widget listens; send init
	TypeHeight     = "height"     // the content's height in CSS pixels
	TypePending    = "pending"    // how many requests wait for the person
	TypeSettled    = "settled"    // a request left: its id and outcome
	TypeConnection = "connection" // "connecting", "online" or "offline"
)

// inbound is a message from the host page.
type inbound struct {
	Protocol string `json:"formbridge"`
	Type     string `json:"type"`
	Token    string `json:"token,omitempty"`
	Bridge   string `json:"bridge,omitempty"`
	Theme    *Theme `json:"theme,omitempty"`
}

var errNotOurs = errors.New("not a formbridge message")

// parseInbound reads a host page's message. Messages of other protocols
// (other scripts post on the same window) give errNotOurs; malformed
// ones of ours give a reason to log.
func parseInbound(text string) (inbound, error) {
	var m inbound
	if len(text) > maxMessage {
		return m, errors.New("message too large")
	}
	if !strings.Contains(text, `"formbridge"`) {
		return m, errNotOurs
	}
	if err := json.Unmarshal([]byte(text), &m); err != nil {
		return m, errNotOurs
	}
	if m.Protocol != Protocol {
		return m, errNotOurs
	}
	switch m.Type {
	case TypeInit:
		m.Token, m.Bridge = strings.TrimSpace(m.Token), strings.TrimSpace(m.Bridge)
	case TypeTheme:
		if m.Theme == nil {
			return m, errors.New("theme message without a theme")
		}
	case TypeFocus:
	default:
		return m, errors.New("unknown message type " + quote(m.Type))
	}
	return m, nil
}

// outbound builds a message to the host page as JSON text.
func outbound(typ string, fields map[string]any) string {
	m := map[string]any{"formbridge": Protocol, "type": typ}
	for k, v := range fields {
		m[k] = v
	}
	b, _ := json.Marshal(m) // strings and numbers only: cannot fail
	return string(b)
}

// quote shows untrusted text in a log line, shortened and escaped.
func quote(s string) string {
	if len(s) > 40 {
		s = s[:40] + "…"
	}
	b, _ := json.Marshal(s)
	return string(b)
}
