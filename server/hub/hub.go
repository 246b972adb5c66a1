// Package hub holds pending elicitations and routes them to the widgets of
// their channel. A caller (the go-sdk adapter, the HTTP API, the proxy)
// blocks in Elicit until a person answers, the caller gives up, the request
// expires or the hub shuts down; widgets attach to a channel as Sessions
// whose outgoing frames the gateway drains.
//
// The hub speaks the wire protocol's frames (app/wire) but knows nothing of
// WebSockets: a Session is a bounded queue of encoded frames plus a method
// for the widget's answers, so a slow widget can never block the hub.
package hub

import (
	"crypto/rand"
	"errors"
	"fmt"
	"hash/maphash"
	"io"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/formbridge/formbridge/app/wire"
	"github.com/formbridge/formbridge/server/internal/ratelog"
)

// DefaultChannel is the channel that always exists.
const DefaultChannel = "default"

// OutcomeUnknown is the settled outcome the gateway sends, after error
// -32003, for an answer to a request this bridge does not hold (it
// restarted since, or forgot the request long ago): the widget withdraws
// that form. It belongs beside wire's other outcomes; widgets that do
// not know it treat it as any unknown outcome, "no longer waiting".
const OutcomeUnknown = "unknown"

// Defaults of Options.
const (
	DefaultTimeout       = 10 * time.Minute
	DefaultMaxPending    = 100
	DefaultMaxHeldBytes  = 256 << 20
	DefaultRatePerMinute = 120
	DefaultMaxWidgets    = 64
	DefaultMaxChannels   = 10_000
)

// Errors callers can test for with errors.Is.
var (
	ErrNoChannel       = errors.New("no such channel")
	ErrChannelExists   = errors.New("a channel with that name exists")
	ErrDefaultChannel  = errors.New(`channel "default" cannot be deleted`)
	ErrTooManyWidgets  = errors.New("too many widgets on this channel")
	ErrClosed          = errors.New("the bridge is shutting down")
	ErrChannelDeleted  = errors.New("the channel was deleted")
	ErrSlowWidget      = errors.New("the widget does not keep up: its send queue is full")
	ErrUnknownRequest  = errors.New("no such request on this channel")
	ErrBadChannelName  = errors.New("a channel name is 1 to 64 characters: a-z, 0-9, '-' and '_'")
	ErrTooManyChannels = errors.New("the bridge holds as many channels as it may; delete one first")
	errSessionDetached = errors.New("the widget left")
)

// Options configure a Hub. The zero value is usable.
type Options struct {
	DefaultToken  string              // token of channel "default"; generated (>=128 bits) if ""
	Timeout       time.Duration       // default expiry per request; 0 = 10 minutes
	MaxPending    int                 // per channel; 0 = 100
	RatePerMinute int                 // new elicitations per channel per minute; 0 = 120
	MaxWidgets    int                 // widget connections per channel; 0 = 64
	ServerInfo    wire.Implementation // what hello answers as serverInfo
	Logger        *slog.Logger        // nil = discard

	// MaxHeldBytes bounds the requests pending on all channels together,
	// counted as their params and the bridge's reading of them, so that
	// many channels of large requests cannot take the bridge's memory
	// (the parsed form and the frame take as much again, or twice); 0 = 256 MiB.
	MaxHeldBytes int64

	// MaxChannels bounds the channels besides "default", so that an API
	// key cannot fill the bridge's memory with them (an empty one takes
	// about 530 bytes, before its widgets and requests; one that has
	// settled 256 requests or more keeps ~23 KB of their outcomes, for
	// late answers); 0 = 10,000.
	MaxChannels int

	// MaxQueue bounds the frames waiting to be written to one widget;
	// beyond it the widget is disconnected (it reconnects and gets every
	// pending request again). 0 = MaxPending + 256, so a fresh widget
	// always has room for the whole backlog.
	MaxQueue int
}

// Hub is the in-memory engine: every channel lives in this process. It is
// safe for concurrent use.
type Hub struct {
	opts     Options
	log      *slog.Logger
	refusals ratelog.Limiter // bounds the log lines of refused requests
	idPrefix string          // random per hub, so ids from before a restart never match
	seq      atomic.Uint64   // request ids
	held     atomic.Int64    // request.size of every pending request
	epoch    time.Time       // zero of the hub's clock, for deadlines
	parsed   parseCache

	mu       sync.RWMutex
	channels map[string]*channel
	byToken  map[tokenKey]*channel
	closed   bool
}

// New returns a Hub with channel "default".
func New(opts *Options) *Hub {
	var o Options
	if opts != nil {
		o = *opts
	}
	if o.Timeout <= 0 {
		o.Timeout = DefaultTimeout
	}
	if o.MaxPending <= 0 {
		o.MaxPending = DefaultMaxPending
	}
	if o.MaxHeldBytes <= 0 {
		o.MaxHeldBytes = DefaultMaxHeldBytes
	}
	if o.RatePerMinute <= 0 {
		o.RatePerMinute = DefaultRatePerMinute
	}
	if o.MaxWidgets <= 0 {
		o.MaxWidgets = DefaultMaxWidgets
	}
	if o.MaxChannels <= 0 {
		o.MaxChannels = DefaultMaxChannels
	}
	if o.MaxQueue <= 0 {
		o.MaxQueue = o.MaxPending + 256
	}
	if o.ServerInfo.Name == "" {
		o.ServerInfo = wire.Implementation{Name: "formbridge"}
	}
	if o.DefaultToken == "" {
		o.DefaultToken = newToken()
	}
	log := o.Logger
	if log == nil {
		log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	h := &Hub{
		opts:     o,
		log:      log,
		idPrefix: strings.ToLower(rand.Text()[:6]),
		epoch:    time.Now(),
		parsed:   parseCache{seed: maphash.MakeSeed()},
		channels: make(map[string]*channel),
		byToken:  make(map[tokenKey]*channel),
	}
	h.addChannelLocked(DefaultChannel, o.DefaultToken)
	return h
}

// ServerInfo is what the bridge calls itself in hello.
func (h *Hub) ServerInfo() wire.Implementation { return h.opts.ServerInfo }

// DefaultToken returns the token of channel "default".
func (h *Hub) DefaultToken() string { return h.opts.DefaultToken }

// Close shuts the hub down: every pending caller gets action "cancel"
// at once, widgets are told "cancelled" and then detached with ErrClosed.
// Later Elicit calls return "cancel" too. Close is idempotent.
func (h *Hub) Close() {
	h.mu.Lock()
	if h.closed {
		h.mu.Unlock()
		return
	}
	h.closed = true
	chans := make([]*channel, 0, len(h.channels))
	for _, c := range h.channels {
		chans = append(chans, c)
	}
	h.mu.Unlock()
	for _, c := range chans {
		c.shutdown(ErrClosed)
	}
}

// channel returns the named channel, or ErrNoChannel.
func (h *Hub) channel(name string) (*channel, error) {
	h.mu.RLock()
	c := h.channels[name]
	h.mu.RUnlock()
	if c == nil {
		return nil, noChannel(name)
	}
	return c, nil
}

// noChannel is ErrNoChannel naming the channel, so that a host whose
// channel option was left "" learns that from the message. Out of line:
// its buffers stay off Elicit's stack (see submit).
//
//go:noinline
func noChannel(name string) error {
	return fmt.Errorf("%w: %q", ErrNoChannel, name)
}

func (h *Hub) isClosed() bool {
	h.mu.RLock()
	defer h.mu.RUnlock()
	return h.closed
}
