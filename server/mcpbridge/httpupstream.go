package mcpbridge

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The go-sdk's Streamable HTTP client connection learns the negotiated
// protocol, and opens the standalone SSE stream (the GET that carries
// what a server sends outside any request: list-changed, resource
// updates), only when a go-sdk ClientSession tells it, through an
// unexported method. The relay is not a ClientSession, so httpUpstream
// does those two things itself around the go-sdk connection: it sets the
// MCP-Protocol-Version header once the initialize answer names the
// version, and opens the GET stream after notifications/initialized.

// dialHTTPUpstream connects the relay to a Streamable HTTP server.
func dialHTTPUpstream(ctx context.Context, endpoint string, log *slog.Logger) (mcp.Connection, error) {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	ctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	u := &httpUpstream{endpoint: endpoint, ctx: ctx, cancel: cancel, log: log, merged: make(chan readResult, 16)}
	t := &mcp.StreamableClientTransport{Endpoint: endpoint, HTTPClient: &http.Client{Transport: headerKeeper{u}}}
	conn, err := t.Connect(ctx)
	if err != nil {
		cancel()
		return nil, err
	}
	u.Connection = conn
	go u.pump()
	return u, nil
}

type readResult struct {
	msg jsonrpc.Message
	err error
}

type httpUpstream struct {
	mcp.Connection
	endpoint string
	ctx      context.Context // ends at Close
	cancel   context.CancelFunc
	log      *slog.Logger
	merged   chan readResult // POST answers (from the go-sdk) and the GET stream

	mu        sync.Mutex
	sessionID string
	protocol  string
	initID    any // id of the initialize request in flight
	streaming bool
}

// pump moves what the go-sdk connection reads into merged.
func (u *httpUpstream) pump() {
	for {
		msg, err := u.Connection.Read(u.ctx)
		if err == nil {
			u.noteInitialize(msg)
		}
		select {
		case u.merged <- readResult{msg, err}:
		case <-u.ctx.Done():
			return
		}
		if err != nil {
			return
		}
	}
}

func (u *httpUpstream) Read(ctx context.Context) (jsonrpc.Message, error) {
	select {
	case r := <-u.merged:
		return r.msg, r.err
	case <-ctx.Done():
		return nil, ctx.Err()
	case <-u.ctx.Done():
		return nil, mcp.ErrConnectionClosed
	}
}

func (u *httpUpstream) Write(ctx context.Context, msg jsonrpc.Message) error {
	req, isReq := msg.(*jsonrpc.Request)
	if isReq && req.Method == methodInitialize {
		u.mu.Lock()
		u.initID = req.ID.Raw()
		u.mu.Unlock()
	}
	if err := u.Connection.Write(ctx, msg); err != nil {
		return err
	}
	if isReq && req.Method == "notifications/initialized" {
		u.openStream()
	}
	return nil
}

func (u *httpUpstream) Close() error {
	u.cancel()
	return u.Connection.Close()
}

// noteInitialize reads the negotiated version from initialize's answer.
func (u *httpUpstream) noteInitialize(msg jsonrpc.Message) {
	resp, ok := msg.(*jsonrpc.Response)
	if !ok || resp.Error != nil {
		return
	}
	u.mu.Lock()
	defer u.mu.Unlock()
	if u.initID == nil || resp.ID.Raw() != u.initID {
		return
	}
	u.initID = nil
	var r struct {
		ProtocolVersion string `json:"protocolVersion"`
	}
	if json.Unmarshal(resp.Result, &r) == nil {
		u.protocol = r.ProtocolVersion
	}
}

// openStream starts the standalone SSE stream once, for the protocols
// that have it (2026-07-28 removed it).
func (u *httpUpstream) openStream() {
	u.mu.Lock()
	defer u.mu.Unlock()
	if u.streaming || u.protocol == "" || u.protocol >= "2026-07-28" {
		return
	}
	u.streaming = true
	go u.stream()
}

// stream keeps the GET stream open, resuming after drops, until Close.
// A server without one (405, or another 4xx) is fine: it then has
// nothing to send there. A server that stops answering at all, or forgot
// the session (404 to a request that named one), is gone:
// the go-sdk only notices that at the next POST, and until then a
// question it asked would wait in the widget for nothing, so the
// connection fails here and the relay withdraws what is pending.
func (u *httpUpstream) stream() {
	lastID := ""
	for failures := 0; u.ctx.Err() == nil; {
		gotSome, status, err := u.streamOnce(&lastID)
		u.mu.Lock()
		hasSession := u.sessionID != ""
		u.mu.Unlock()
		switch {
		case u.ctx.Err() != nil:
			return
		case status == http.StatusNotFound && hasSession:
			u.fail(errors.New("the upstream MCP server ended the session"))
			return
		case status != 0 && status != http.StatusOK:
			// 405 is the spec's "no stream here"; stateless servers
			// answer 400 or 404 as well.
			u.log.Debug("the upstream has no standalone SSE stream", "status", status)
			return
		case status == 0 && !gotSome:
			failures++ // not even an HTTP answer
		default:
			failures = 0
		}
		if failures >= maxStreamFailures {
			u.fail(fmt.Errorf("the upstream MCP server at %s stopped answering: %w", u.endpoint, err))
			return
		}
		u.log.Debug("upstream SSE stream ended; reopening", "err", err)
		select {
		case <-u.ctx.Done():
			return
		case <-time.After(streamRetry):
		}
	}
}

// How often and how long to try reopening the GET stream.
const (
	maxStreamFailures = 3
	streamRetry       = 500 * time.Millisecond
)

// fail makes the relay's next Read return err, as a closed connection.
func (u *httpUpstream) fail(err error) {
	select {
	case u.merged <- readResult{err: err}:
	case <-u.ctx.Done():
	}
}

// maxSSEMessage bounds one message on the upstream's GET stream, whose
// data lines are held until its event ends; tool results with
// images can be megabytes.
const maxSSEMessage = 16 << 20

func (u *httpUpstream) streamOnce(lastID *string) (gotSome bool, status int, err error) {
	req, err := http.NewRequestWithContext(u.ctx, http.MethodGet, u.endpoint, nil)
	if err != nil {
		return false, 0, err
	}
	req.Header.Set("Accept", "text/event-stream")
	if *lastID != "" {
		req.Header.Set("Last-Event-ID", *lastID)
	}
	u.setHeaders(req)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return false, 0, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return false, resp.StatusCode, fmt.Errorf("GET answered %s", resp.Status)
	}
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 64<<10), maxSSEMessage)
	var data bytes.Buffer
	tooLarge := false
	for sc.Scan() {
		line := sc.Text()
		switch {
		case line == "":
			if tooLarge {
				u.log.Warn("dropping a message from the upstream's SSE stream: it is larger than the proxy reads", "limit", maxSSEMessage)
				tooLarge = false
				continue
			}
			if data.Len() > 0 {
				msg, derr := jsonrpc.DecodeMessage(data.Bytes())
				data.Reset()
				if derr != nil {
					u.log.Warn("dropping an unreadable message from the upstream's SSE stream", "err", derr)
					continue
				}
				gotSome = true
				select {
				case u.merged <- readResult{msg: msg}:
				case <-u.ctx.Done():
					return gotSome, resp.StatusCode, u.ctx.Err()
				}
			}
		case strings.HasPrefix(line, "data:"):
			part := strings.TrimPrefix(strings.TrimPrefix(line, "data:"), " ")
			if tooLarge || data.Len()+len(part)+1 > maxSSEMessage {
				// An event's lines are held until it ends: a server that
				// never ends one must not fill the proxy's memory.
				tooLarge = true
				data.Reset()
				continue
			}
			if data.Len() > 0 {
				data.WriteByte('\n') // SSE joins an event's data lines with a newline
			}
			data.WriteString(part)
		case strings.HasPrefix(line, "id:"):
			*lastID = strings.TrimSpace(strings.TrimPrefix(line, "id:"))
		}
	}
	if err := sc.Err(); err != nil {
		return gotSome, resp.StatusCode, err
	}
	return gotSome, resp.StatusCode, errors.New("the stream ended")
}

// setHeaders adds the session and protocol headers the upstream expects.
func (u *httpUpstream) setHeaders(req *http.Request) {
	u.mu.Lock()
	defer u.mu.Unlock()
	if u.sessionID != "" && req.Header.Get("Mcp-Session-Id") == "" {
		req.Header.Set("Mcp-Session-Id", u.sessionID)
	}
	if u.protocol != "" && req.Header.Get("Mcp-Protocol-Version") == "" {
		req.Header.Set("Mcp-Protocol-Version", u.protocol)
	}
}

// headerKeeper is the go-sdk connection's HTTP transport: it learns the
// session id from answers and adds the protocol header the go-sdk leaves
// out without a ClientSession.
type headerKeeper struct{ u *httpUpstream }

func (h headerKeeper) RoundTrip(req *http.Request) (*http.Response, error) {
	req = req.Clone(req.Context())
	h.u.setHeaders(req)
	resp, err := http.DefaultTransport.RoundTrip(req)
	if err == nil {
		if id := resp.Header.Get("Mcp-Session-Id"); id != "" {
			h.u.mu.Lock()
			h.u.sessionID = id
			h.u.mu.Unlock()
		}
	}
	return resp, err
}
