package hub

import (
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/formbridge/formbridge/app/wire"
)

// Channel names a channel and its secret. Whoever holds Token can answer
// the channel's requests, so it travels only in a URL fragment and in hello.
type Channel struct {
	Name  string `json:"channel"`
	Token string `json:"token"`
}

// tokenKey is the SHA-256 of a token. Channels are found by it so a lookup
// costs the same whatever the token, and the final comparison of the
// token itself is constant time.
type tokenKey [sha256.Size]byte

// newToken returns 130 random bits as 26 base32 characters.
func newToken() string { return rand.Text() }

// channel is one queue of pending requests and the widgets attached to it.
// Lock order: channel.mu before Session.mu.
type channel struct {
	h     *Hub
	name  string
	token string

	mu       sync.Mutex
	gone     error // set once deleted or shut down
	head     *request
	tail     *request // arrival order, for widgets that attach later
	pending  map[string]*request
	sessions map[*Session]struct{}
	widgets  atomic.Int32 // len(sessions), read without mu
	rate     bucket
	recent   recentRing           // settled requests, to answer late duplicates
	urls     map[string]*urlState // URL-mode elicitation ids awaiting complete
	urlSeq   uint64
	expiry   []*request // pending requests, a min-heap by deadline (expiry.go)
	timers   []int64    // deadlines of the expiry timers not fired yet, on the hub's clock
}

func (h *Hub) addChannelLocked(name, token string) *channel {
	c := &channel{
		h:        h,
		name:     name,
		token:    token,
		pending:  make(map[string]*request),
		sessions: make(map[*Session]struct{}),
		urls:     make(map[string]*urlState),
	}
	h.channels[name] = c
	h.byToken[sha256.Sum256([]byte(token))] = c
	return c
}

// validChannelName reports whether name is safe in a URL path and a log.
func validChannelName(name string) bool {
	if len(name) == 0 || len(name) > 64 {
		return false
	}
	for _, r := range name {
		if !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '-' || r == '_') {
			return false
		}
	}
	return true
}

// CreateChannel makes a channel with a fresh token. name "" picks a
// random name. It fails with ErrBadChannelName, ErrChannelExists,
// ErrTooManyChannels or ErrClosed.
func (h *Hub) CreateChannel(name string) (Channel, error) {
	if name == "" {
		name = "c-" + strings.ToLower(rand.Text()[:12])
	}
	if !validChannelName(name) {
		return Channel{}, ErrBadChannelName
	}
	token := newToken()
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.closed {
		return Channel{}, ErrClosed
	}
	if h.channels[name] != nil {
		return Channel{}, ErrChannelExists
	}
	if len(h.channels) > h.opts.MaxChannels { // "default" is not counted
		return Channel{}, ErrTooManyChannels
	}
	h.addChannelLocked(name, token)
	h.log.Info("channel created", "channel", name)
	return Channel{Name: name, Token: token}, nil
}

// DeleteChannel removes a channel: its pending requests settle as cancel
// (widgets told "cancelled") and its widgets are detached with
// ErrChannelDeleted. Channel "default" cannot be deleted.
func (h *Hub) DeleteChannel(name string) error {
	if name == DefaultChannel {
		return ErrDefaultChannel
	}
	h.mu.Lock()
	c := h.channels[name]
	if c == nil {
		h.mu.Unlock()
		return ErrNoChannel
	}
	delete(h.channels, name)
	delete(h.byToken, sha256.Sum256([]byte(c.token)))
	h.mu.Unlock()
	c.shutdown(ErrChannelDeleted)
	h.log.Info("channel deleted", "channel", name)
	return nil
}

// Authenticate returns the channel a token opens. The token is compared
// in constant time; an empty token never matches. A closed hub still
// knows its tokens, so a widget arriving during shutdown learns the
// bridge is going away (Attach fails with ErrClosed), not that its token
// is wrong.
func (h *Hub) Authenticate(token string) (channel string, ok bool) {
	if token == "" {
		return "", false
	}
	key := sha256.Sum256([]byte(token))
	h.mu.RLock()
	c := h.byToken[key]
	h.mu.RUnlock()
	if c == nil {
		return "", false
	}
	if subtle.ConstantTimeCompare([]byte(c.token), []byte(token)) != 1 {
		return "", false
	}
	return c.name, true
}

// shutdown settles every pending request as cancel and detaches every
// widget with reason. Widgets get their "cancelled" notices before the
// reason, so they can withdraw the forms before the connection closes.
func (c *channel) shutdown(reason error) {
	c.mu.Lock()
	if c.gone != nil {
		c.mu.Unlock()
		return
	}
	c.gone = reason
	var settled []*request
	for r := c.head; r != nil; r = c.head {
		if c.settleLocked(r, cancelResult, nil, "", wire.OutcomeCancelled) {
			settled = append(settled, r)
		}
	}
	for s := range c.sessions {
		s.detach(reason)
		delete(c.sessions, s)
	}
	c.widgets.Store(0)
	c.mu.Unlock()
	for _, r := range settled {
		r.finish()
	}
}
