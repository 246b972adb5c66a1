package hub

import (
	"bytes"
	"fmt"
	"hash/maphash"
	"sync"
	"time"

	"github.com/formbridge/formbridge/app/elicit"
	"github.com/formbridge/formbridge/app/wire"
	"github.com/formbridge/formbridge/server/internal/later"
)

// A server asks the same questions again and again: the same params, or
// the same schema with another message. Parsing them is most of what an
// elicitation costs the bridge, so the hub keeps the parsed requests of
// the params it saw last, keyed by their exact bytes, with the view sent
// to widgets already encoded. A parsed request is only read after parsing
// (Form.Validate, the view), so requests share it.

// Bounds of the parse cache: params larger than maxCachedParams are
// parsed each time (they are rare, and large); at most
// maxCachedBytes of params text, views and compiled patterns is kept in
// all, and a parse that alone would pass it is not kept.
const (
	maxCachedParams = 16 << 10
	maxCachedBytes  = 2 << 20
)

// cacheSweep is how often the cache forgets the params not asked again
// since the last sweep: their message and defaults may be a person's
// details, which the bridge keeps no longer than the question needs
// them. An entry goes between one and two sweeps after its last use.
const cacheSweep = 10 * time.Minute

type parseCache struct {
	seed maphash.Seed

	mu      sync.Mutex
	entries map[uint64]*parsedEntry
	bytes   int
	// sweepAt is when the sweep that forgets idle entries is due; zero
	// when none is set.
	sweepAt time.Time
}

// parsedEntry is one parsed params text; only used changes once stored.
type parsedEntry struct {
	params []byte
	p      *parsed
	used   bool // asked again since the last sweep; guarded by parseCache.mu
}

// size is what the entry counts against maxCachedBytes.
func (e *parsedEntry) size() int { return len(e.params) + len(e.p.view) + e.p.patternBytes }

// parse returns params parsed, from the cache when the same bytes were
// parsed before. Refused params are not cached: a server that sends a
// bad schema learns so at once and rarely repeats it.
func (pc *parseCache) parse(params []byte) (*parsed, error) {
	if len(params) > maxCachedParams {
		return parseRequest(params)
	}
	key := maphash.Bytes(pc.seed, params)
	pc.mu.Lock()
	e := pc.entries[key]
	if e != nil {
		e.used = true
	}
	pc.mu.Unlock()
	if e != nil && bytes.Equal(e.params, params) {
		return e.p, nil
	}
	return pc.parseAndKeep(key, params)
}

// parseAndKeep is parse's miss, out of line so that a hit, the usual case,
// keeps a caller's stack small (TestElicitStack).
//
//go:noinline
func (pc *parseCache) parseAndKeep(key uint64, params []byte) (*parsed, error) {
	p, err := parseRequest(params)
	if err != nil {
		return nil, err
	}
	e := &parsedEntry{params: bytes.Clone(params), p: p, used: true}
	if e.size() > maxCachedBytes {
		return p, nil
	}
	pc.mu.Lock()
	defer pc.mu.Unlock()
	if pc.entries == nil {
		pc.entries = make(map[uint64]*parsedEntry)
	}
	if old := pc.entries[key]; old != nil { // a collision, or a race to parse
		delete(pc.entries, key)
		pc.bytes -= old.size()
	}
	// Full: forget entries in map order (random enough that a server
	// cycling through many schemas cannot keep evicting one it needs).
	for k, old := range pc.entries {
		if pc.bytes+e.size() <= maxCachedBytes {
			break
		}
		delete(pc.entries, k)
		pc.bytes -= old.size()
	}
	pc.entries[key] = e
	pc.bytes += e.size()
	pc.armLocked()
	return p, nil
}

// armLocked sets the sweep while the cache holds entries.
func (pc *parseCache) armLocked() {
	if len(pc.entries) > 0 {
		now := time.Now()
		later.Sweep(&pc.sweepAt, now, now.Add(cacheSweep), pc, (*parseCache).sweepNow)
	}
}

// sweepNow forgets the entries not asked again since the last sweep.
func (pc *parseCache) sweepNow() {
	pc.mu.Lock()
	defer pc.mu.Unlock()
	pc.sweepAt = time.Time{}
	for k, e := range pc.entries {
		if !e.used {
			delete(pc.entries, k)
			pc.bytes -= e.size()
			continue
		}
		e.used = false
	}
	pc.armLocked()
}

// parseRequest parses and checks params and computes their view.
func parseRequest(params []byte) (*parsed, error) {
	req, err := elicit.ParseRequest(params)
	if err != nil {
		return nil, err
	}
	p, err := newParsed(req)
	if err != nil {
		return nil, err
	}
	// A frame a widget cannot read would cut it off each time it
	// reconnects, for as long as the request waits.
	if len(params)+len(p.view) > wire.MaxFrameBytes-maxStampBytes {
		return nil, fmt.Errorf("the form is too large to send to a widget (%d bytes with its fields read; at most %d)",
			len(params)+len(p.view), wire.MaxFrameBytes-maxStampBytes)
	}
	return p, nil
}

// maxStampBytes bounds the rest of a frame: the JSON-RPC envelope, the
// request id and times, and the requester (three fields of at most
// maxRequesterText characters, each escaped at worst to 6 bytes).
const maxStampBytes = 3*maxRequesterText*6 + 1024
