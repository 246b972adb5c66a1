package mcpbridge

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"
	"io"
	"net/http"
	"slices"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/formbridge/formbridge/app/elicit"
	"github.com/formbridge/formbridge/server/internal/later"
)

// The go-sdk decodes a requestedSchema into a map, which loses the order
// of its properties, and that order is the order a person should see the
// fields in. The raw text is only visible on the transport, and the
// handler gets no request id to match it by, so Transport remembers each
// schema text under a key that ignores order (its re-encoding with sorted
// keys) and the handler looks the map it got up by the same key.

// Transport wraps t so that the elicitation handler built by
// [ClientOptions] sees requested schemas in the server's property order.
// It understands the go-sdk's Streamable HTTP client transport (by
// watching its HTTP responses) and every transport whose connection is
// plain JSON-RPC (command, stdio, in-memory, io); any other transport is
// returned as it is.
func Transport(t mcp.Transport) mcp.Transport {
	switch t := t.(type) {
	case *mcp.StreamableClientTransport:
		cp := *t
		base := http.DefaultClient
		if cp.HTTPClient != nil {
			base = cp.HTTPClient
		}
		hc := *base
		rt := hc.Transport
		if rt == nil {
			rt = http.DefaultTransport
		}
		hc.Transport = schemaRoundTripper{rt}
		cp.HTTPClient = &hc
		return &cp
	case *commandTransport, *mcp.CommandTransport, *mcp.InMemoryTransport, *mcp.IOTransport, *mcp.StdioTransport:
		return schemaTransport{t}
	}
	return t
}

type schemaTransport struct{ mcp.Transport }

func (t schemaTransport) Connect(ctx context.Context) (mcp.Connection, error) {
	c, err := t.Transport.Connect(ctx)
	if err != nil {
		return nil, err
	}
	return schemaConn{c}, nil
}

type schemaConn struct{ mcp.Connection }

func (c schemaConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	msg, err := c.Connection.Read(ctx)
	if err == nil {
		noteMessage(msg)
	}
	return msg, err
}

// noteMessage remembers the schemas a server sends: in elicitation/create
// requests, and in the input requests of a 2026-07-28 result.
func noteMessage(msg jsonrpc.Message) {
	switch m := msg.(type) {
	case *jsonrpc.Request:
		if m.Method == "elicitation/create" {
			noteParams(m.Params)
		}
	case *jsonrpc.Response:
		noteResult(m.Result)
	}
}

func noteParams(params json.RawMessage) {
	var p struct {
		RequestedSchema json.RawMessage `json:"requestedSchema"`
	}
	if json.Unmarshal(params, &p) == nil && len(p.RequestedSchema) > 0 {
		schemas.remember(p.RequestedSchema)
	}
}

func noteResult(result json.RawMessage) {
	if !bytes.Contains(result, []byte(`"inputRequests"`)) {
		return
	}
	var r struct {
		InputRequests map[string]struct {
			Method string          `json:"method"`
			Params json.RawMessage `json:"params"`
		} `json:"inputRequests"`
	}
	if json.Unmarshal(result, &r) != nil {
		return
	}
	for _, ir := range r.InputRequests {
		if ir.Method == "elicitation/create" {
			noteParams(ir.Params)
		}
	}
}

// noteFrame handles one frame seen on HTTP: a JSON-RPC message or batch,
// possibly as an SSE data line.
func noteFrame(line []byte) {
	line = bytes.TrimSpace(line)
	line = bytes.TrimSpace(bytes.TrimPrefix(line, []byte("data:")))
	if len(line) == 0 || !bytes.Contains(line, []byte(`"requestedSchema"`)) {
		return
	}
	if line[0] == '[' {
		var batch []json.RawMessage
		if json.Unmarshal(line, &batch) == nil {
			for _, m := range batch {
				noteFrame(m)
			}
		}
		return
	}
	if msg, err := jsonrpc.DecodeMessage(line); err == nil {
		noteMessage(msg)
	}
}

type schemaRoundTripper struct{ next http.RoundTripper }

func (rt schemaRoundTripper) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := rt.next.RoundTrip(req)
	if err == nil && resp.Body != nil {
		resp.Body = &lineWatcher{ReadCloser: resp.Body}
	}
	return resp, err
}

// maxWatchedLine bounds what lineWatcher buffers; a longer line is not
// inspected (its fields then show sorted by key, nothing worse).
const maxWatchedLine = 4 << 20

// lineWatcher passes a body through unchanged and hands each complete line
// (and the tail at EOF) to noteFrame.
type lineWatcher struct {
	io.ReadCloser
	buf      []byte
	overflow bool
}

func (w *lineWatcher) Read(p []byte) (int, error) {
	n, err := w.ReadCloser.Read(p)
	for chunk := p[:n]; len(chunk) > 0; {
		i := bytes.IndexByte(chunk, '\n')
		if i < 0 {
			w.add(chunk)
			break
		}
		w.add(chunk[:i])
		w.flush()
		chunk = chunk[i+1:]
	}
	if err == io.EOF {
		w.flush()
	}
	return n, err
}

func (w *lineWatcher) add(b []byte) {
	if w.overflow || len(w.buf)+len(b) > maxWatchedLine {
		w.overflow, w.buf = true, w.buf[:0]
		return
	}
	w.buf = append(w.buf, b...)
}

func (w *lineWatcher) flush() {
	if !w.overflow {
		noteFrame(w.buf)
	}
	w.buf, w.overflow = w.buf[:0], false
}

// schemaMemorySize and schemaMemoryBytes bound the memory; a schema is
// looked up moments after it arrives, so a small window is plenty. The
// bytes bound matters: schemas may be 256 KiB each (elicit.MaxSchemaBytes),
// and by count alone the last 256 stayed for the process's life
// (TestLeakSchemaMemory).
const (
	schemaMemorySize  = 256
	schemaMemoryBytes = 2 << 20
)

// schemaMemoryAge is how long a schema is kept at most. Its defaults may
// be a person's details (a prefilled email address), which must not stay
// for the process's life on a host that asks nothing more.
const schemaMemoryAge = 10 * time.Minute

var schemas = &schemaMemory{byKey: map[[sha256.Size]byte]json.RawMessage{}}

// schemaMemory keeps schema texts by the digest of their order-free
// encoding (the encoding itself would double what is kept).
type schemaMemory struct {
	mu    sync.Mutex
	byKey map[[sha256.Size]byte]json.RawMessage
	keys  [][sha256.Size]byte // oldest first
	at    []time.Time         // when each of keys was remembered
	bytes int                 // of the texts in byKey
	// sweepAt is when the sweep that forgets schemas past
	// schemaMemoryAge is due; zero when none is set.
	sweepAt time.Time
}

// orderFreeKey is the digest of v re-encoded with sorted keys; numbers go
// through float64 on both sides (as the go-sdk decodes them), so equal
// schemas get equal keys.
func orderFreeKey(v any) ([sha256.Size]byte, bool) {
	if raw, ok := v.(json.RawMessage); ok {
		if json.Unmarshal(raw, &v) != nil {
			return [sha256.Size]byte{}, false
		}
	}
	b, err := json.Marshal(v)
	if err != nil {
		return [sha256.Size]byte{}, false
	}
	return sha256.Sum256(b), true
}

func (m *schemaMemory) remember(raw json.RawMessage) {
	// The bridge measures the text paramsJSON sends, which encoding/json
	// compacts: a pretty-printed schema over the limit as sent may be
	// under it there. Kept compact, as it will be sent.
	var compact bytes.Buffer
	if json.Compact(&compact, raw) != nil || compact.Len() > elicit.MaxSchemaBytes {
		return // the bridge refuses it anyway
	}
	raw = compact.Bytes()
	key, ok := orderFreeKey(raw)
	if !ok {
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if old, seen := m.byKey[key]; seen {
		// Asked again: now the newest, so that it is the last to go.
		m.bytes -= len(old)
		i := slices.Index(m.keys, key)
		m.keys = slices.Delete(m.keys, i, i+1)
		m.at = slices.Delete(m.at, i, i+1)
	}
	now := time.Now()
	m.keys = append(m.keys, key)
	m.at = append(m.at, now)
	m.byKey[key] = bytes.Clone(raw)
	m.bytes += len(raw)
	for len(m.keys) > 1 && (len(m.keys) > schemaMemorySize || m.bytes > schemaMemoryBytes) {
		m.forgetOldestLocked()
	}
	m.armLocked(now)
}

func (m *schemaMemory) forgetOldestLocked() {
	m.bytes -= len(m.byKey[m.keys[0]])
	delete(m.byKey, m.keys[0])
	m.keys, m.at = m.keys[1:], m.at[1:]
}

// armLocked sets the sweep for the oldest schema kept.
func (m *schemaMemory) armLocked(now time.Time) {
	if len(m.keys) > 0 {
		later.Sweep(&m.sweepAt, now, m.at[0].Add(schemaMemoryAge), m, (*schemaMemory).sweep)
	}
}

// sweep forgets the schemas kept past schemaMemoryAge.
func (m *schemaMemory) sweep() {
	m.mu.Lock()
	defer m.mu.Unlock()
	now := time.Now()
	for len(m.keys) > 0 && !now.Before(m.at[0].Add(schemaMemoryAge)) {
		m.forgetOldestLocked()
	}
	m.sweepAt = time.Time{}
	m.armLocked(now)
}

func (m *schemaMemory) recall(v any) (json.RawMessage, bool) {
	key, ok := orderFreeKey(v)
	if !ok {
		return nil, false
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	raw, ok := m.byKey[key]
	return raw, ok
}
