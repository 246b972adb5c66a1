package mcpbridge

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptrace"
	"net/url"
	"strings"
	"sync/atomic"
	"time"

	"github.com/formbridge/formbridge/app/wire"
	"github.com/formbridge/formbridge/server/hub"
)

// APIEliciter is an Eliciter that uses a running bridge's HTTP API
// (/api/v1/), so a process can send its questions to a bridge it does not
// host (formbridge call --bridge). It is safe for concurrent use once its
// fields are set.
type APIEliciter struct {
	BaseURL    string // the bridge, e.g. http://127.0.0.1:8080
	APIKey     string
	HTTPClient *http.Client // nil = a client without timeout (answers take minutes)
}

func (a *APIEliciter) client() *http.Client {
	if a.HTTPClient != nil {
		return a.HTTPClient
	}
	return &http.Client{}
}

// Elicit posts the question and waits for the person's answer. API errors
// come back as *wire.Error with the hub's JSON-RPC codes, so they reach
// the MCP server as the hub would have reported them.
//
// A person may take minutes, and a connection held that long can break
// (a proxy's idle timeout, which may also answer 502 or 504, a network
// change). So the question is asked with an Idempotency-Key: the bridge
// keeps it on the person's screen when the wait breaks, and the wait is
// taken up again with the same key, which gets that question's answer
// instead of asking again. (A bridge that restarted has forgotten the
// key and the question: the retry asks again.) With no connection's end
// to withdraw it, the question is withdrawn by its key when ctx ends
// first, or when the bridge stays out of reach.
func (a *APIEliciter) Elicit(ctx context.Context, channel string, requester wire.Implementation, params json.RawMessage, opts *hub.ElicitOptions) (*wire.ElicitResult, error) {
	body := map[string]any{"params": params, "requester": requester}
	if opts != nil && opts.Timeout > 0 {
		body["timeoutSeconds"] = opts.Timeout.Seconds()
	}
	if channel == "" {
		return nil, noChannel(nil, channel)
	}
	key := newIdempotencyKey()
	path := "/api/v1/channels/" + url.PathEscape(channel) + "/elicitations"
	pause := retryFirst
	var failing time.Time // when the failures in a row began; zero when none
	for {
		var res wire.ElicitResult
		var reached atomic.Bool // the request was written to the bridge, or to a proxy
		trace := &httptrace.ClientTrace{WroteRequest: func(w httptrace.WroteRequestInfo) { reached.Store(w.Err == nil) }}
		began := time.Now()
		err := a.do(httptrace.WithClientTrace(ctx, trace), http.MethodPost, path, key, body, &res)
		switch {
		case err == nil:
			return &res, nil
		case ctx.Err() != nil:
			a.withdraw(path, key)
			return nil, ctx.Err()
		case errors.Is(err, hub.ErrNoChannel):
			return nil, noChannel(err, channel)
		case !errors.Is(err, errUnreachable):
			return nil, err // the API's own answer: asking again gets the same
		}
		if reached.Load() && time.Since(began) >= brokenWait {
			// A wait that had gone on a while broke: take it up again.
			failing, pause = time.Time{}, retryFirst
		} else if failing.IsZero() {
			failing = began
		} else if time.Since(failing) > giveUpAfter {
			a.withdraw(path, key)
			return nil, err
		}
		select {
		case <-time.After(pause):
		case <-ctx.Done():
			a.withdraw(path, key)
			return nil, ctx.Err()
		}
		pause = min(2*pause, retryMax)
	}
}

// Taking a wait up again: an attempt that reached the bridge (or its
// proxy) and lasted brokenWait was a wait that broke, and never counts
// against giving up; attempts that fail sooner, or never reach it, back
// off from retryFirst to retryMax, and end after giveUpAfter of them in
// a row (0.5+1+2+4+8+15+15+15 s when each fails at once).
const (
	brokenWait  = 2 * time.Second
	retryFirst  = 500 * time.Millisecond
	retryMax    = 15 * time.Second
	giveUpAfter = time.Minute
)

// maxAnswerRead bounds the API's answer read: the person's answer, up to
// wire.MaxAnswerBytes as the widget sent it, encoded again by the API,
// where each of < > & takes six bytes.
const maxAnswerRead = 6*wire.MaxAnswerBytes + 64<<10

// errUnreachable marks a failure to reach the bridge or to read its
// answer, or a proxy's 502, 503 or 504 (also the bridge's own 503 as it
// shuts down), after which the same request may go again.
var errUnreachable = errors.New("the bridge could not be reached")

// newIdempotencyKey names one question for its retries.
func newIdempotencyKey() string {
	return "formbridge-call-" + rand.Text()
}

// withdrawTimeout bounds withdrawing a question whose caller has gone.
const withdrawTimeout = 10 * time.Second

// withdraw takes back the question asked with key, once its caller no
// longer waits for it. Best effort: a bridge that cannot be reached lets
// it expire instead.
func (a *APIEliciter) withdraw(path, key string) {
	ctx, cancel := context.WithTimeout(context.Background(), withdrawTimeout)
	defer cancel()
	_ = a.do(ctx, http.MethodDelete, path, key, nil, nil)
}

// completeTimeout bounds Complete, which has no caller's context: the
// go-sdk calls it from the session's notification handling, and a bridge
// that stops answering must not hold that up for good.
const completeTimeout = 30 * time.Second

// Complete forwards URL-mode completion.
func (a *APIEliciter) Complete(channel, elicitationID string) error {
	if channel == "" {
		return noChannel(nil, channel)
	}
	ctx, cancel := context.WithTimeout(context.Background(), completeTimeout)
	defer cancel()
	return a.do(ctx, http.MethodPost, "/api/v1/channels/"+url.PathEscape(channel)+"/elicitations/complete", "",
		map[string]string{"elicitationId": elicitationID}, nil)
}

// Check asks the bridge how channel is doing (GET on the channel, which
// changes nothing), so that a wrong address or key is found before a
// tool runs, not when it first asks something.
func (a *APIEliciter) Check(ctx context.Context, channel string) (hub.ChannelStatus, error) {
	if channel == "" {
		return hub.ChannelStatus{}, noChannel(nil, channel)
	}
	var st struct {
		Widgets int `json:"widgets"`
		Pending int `json:"pending"`
	}
	if err := a.do(ctx, http.MethodGet, "/api/v1/channels/"+url.PathEscape(channel), "", nil, &st); err != nil {
		if errors.Is(err, hub.ErrNoChannel) {
			err = noChannel(err, channel)
		}
		return hub.ChannelStatus{}, err
	}
	return hub.ChannelStatus{Widgets: st.Widgets, Pending: st.Pending}, nil
}

// do sends one API request, with an Idempotency-Key unless key is "",
// and reads its JSON answer into out.
func (a *APIEliciter) do(ctx context.Context, method, path, key string, body, out any) error {
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return err
		}
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, strings.TrimRight(a.BaseURL, "/")+path, rd)
	if err != nil {
		return fmt.Errorf("bad bridge URL %q: %w", a.BaseURL, err)
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	req.Header.Set("Authorization", "Bearer "+a.APIKey)
	if key != "" {
		req.Header.Set("Idempotency-Key", key)
	}
	resp, err := a.client().Do(req)
	if err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return fmt.Errorf("%w: failed to reach its HTTP API: %w", errUnreachable, err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, maxAnswerRead+1))
	if err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return fmt.Errorf("%w: failed to read its answer: %w", errUnreachable, err)
	}
	if len(data) > maxAnswerRead {
		return fmt.Errorf("the bridge's answer is over %d bytes", maxAnswerRead)
	}
	switch resp.StatusCode {
	case http.StatusBadGateway, http.StatusServiceUnavailable, http.StatusGatewayTimeout:
		if apiOff(data) {
			break // the bridge's own answer: its API is off, and stays off
		}
		return fmt.Errorf("%w: %w", errUnreachable, apiError(resp.StatusCode, data))
	}
	if resp.StatusCode/100 != 2 {
		return apiError(resp.StatusCode, data)
	}
	if out == nil {
		return nil
	}
	if err := json.Unmarshal(data, out); err != nil {
		return fmt.Errorf("the bridge's answer is not the JSON expected: %w", err)
	}
	return nil
}

// noChannel names the channel in err, the API's unknown_channel (nil for
// a channel no bridge can have: "" would make a path of another route),
// as the hub does: a host whose Channel was left "" learns that.
func noChannel(err error, channel string) error {
	if err == nil {
		err = hub.ErrNoChannel
	}
	return fmt.Errorf("%w: %q", err, channel)
}

// apiOff reports the API's answer of a bridge started without an API
// key (503 api_off), which no retry changes.
func apiOff(data []byte) bool {
	var body struct {
		Error struct {
			Code string `json:"code"`
		} `json:"error"`
	}
	return json.Unmarshal(data, &body) == nil && body.Error.Code == "api_off"
}

// apiError turns an API error body into the hub error it stands for.
func apiError(status int, data []byte) error {
	var body struct {
		Error struct {
			Code    string          `json:"code"`
			Message string          `json:"message"`
			Data    json.RawMessage `json:"data"`
		} `json:"error"`
	}
	_ = json.Unmarshal(data, &body)
	msg := body.Error.Message
	if msg == "" {
		msg = http.StatusText(status)
	}
	var errData any
	if len(body.Error.Data) > 0 {
		errData = body.Error.Data
	}
	switch body.Error.Code {
	case "invalid_params":
		return &wire.Error{Code: wire.CodeInvalidParams, Message: msg, Data: errData}
	case "too_many_pending":
		return &wire.Error{Code: wire.CodeTooManyPending, Message: msg}
	case "rate_limited":
		return &wire.Error{Code: wire.CodeRateLimited, Message: msg, Data: errData}
	case "unknown_channel":
		return fmt.Errorf("the bridge's HTTP API answered %d: %w", status, hub.ErrNoChannel)
	}
	return fmt.Errorf("the bridge's HTTP API answered %d: %s", status, msg)
}
