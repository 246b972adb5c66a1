package hub

import (
	"bytes"
	"hash/maphash"
	"sync"

	"github.com/formbridge/formbridge/app/elicit"
)

// A server asks the same questions again and again: the same params, or
// the same schema with another message. Parsing them is most of what an
// elicitation costs the bridge, so the hub keeps the parsed requests of
// the params it saw last, keyed by their exact bytes. A parsed request is
// only read after parsing (Form.Validate), so requests share it.

// Bounds of the parse cache: params larger than maxCachedParams are
// parsed each time (they are rare, and large); at most
// maxCachedBytes of params text is kept in all.
const (
	maxCachedParams = 16 << 10
	maxCachedBytes  = 2 << 20
)

type parseCache struct {
	seed maphash.Seed

	mu      sync.Mutex
	entries map[uint64]*parsedEntry
	bytes   int
}

// parsedEntry is one parsed params text; it never changes once stored.
type parsedEntry struct {
	params []byte
	req    *elicit.Request
}

// parse returns params parsed, from the cache when the same bytes were
// parsed before. Refused params are not cached: a server that sends a
// bad schema learns so at once and rarely repeats it.
func (pc *parseCache) parse(params []byte) (*elicit.Request, error) {
	if len(params) > maxCachedParams {
		return elicit.ParseRequest(params)
	}
	key := maphash.Bytes(pc.seed, params)
	pc.mu.Lock()
	e := pc.entries[key]
	pc.mu.Unlock()
	if e != nil && bytes.Equal(e.params, params) {
		return e.req, nil
	}
	req, err := elicit.ParseRequest(params)
	if err != nil {
		return nil, err
	}
	e = &parsedEntry{params: bytes.Clone(params), req: req}
	pc.mu.Lock()
	defer pc.mu.Unlock()
	if pc.entries == nil {
		pc.entries = make(map[uint64]*parsedEntry)
	}
	if old := pc.entries[key]; old != nil { // a collision, or a race to parse
		delete(pc.entries, key)
		pc.bytes -= len(old.params)
	}
	// Full: forget entries in map order (random enough that a server
	// cycling through many schemas cannot keep evicting one it needs).
	for k, old := range pc.entries {
		if pc.bytes+len(params) <= maxCachedBytes {
			break
		}
		delete(pc.entries, k)
		pc.bytes -= len(old.params)
	}
	pc.entries[key] = e
	pc.bytes += len(params)
	return req, nil
}
