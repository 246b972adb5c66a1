package mcpbridge

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/formbridge/formbridge/app/wire"
	"github.com/formbridge/formbridge/server/hub"
)

// APIEliciter is an Eliciter that uses a running bridge's HTTP API
// (/api/v1/), so a process can send its questions to a bridge it does not
// host (formbridge call --bridge).
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
func (a *APIEliciter) Elicit(ctx context.Context, channel string, requester wire.Implementation, params json.RawMessage, opts *hub.ElicitOptions) (*wire.ElicitResult, error) {
	body := map[string]any{"params": params, "requester": requester}
	if opts != nil && opts.Timeout > 0 {
		body["timeoutSeconds"] = opts.Timeout.Seconds()
	}
	var res wire.ElicitResult
	if err := a.post(ctx, "/api/v1/channels/"+url.PathEscape(channel)+"/elicitations", body, &res); err != nil {
		return nil, err
	}
	return &res, nil
}

// completeTimeout bounds Complete, which has no caller's context: the
// go-sdk calls it from the session's notification handling, and a bridge
// that stops answering must not hold that up for good.
const completeTimeout = 30 * time.Second

// Complete forwards URL-mode completion.
func (a *APIEliciter) Complete(channel, elicitationID string) error {
	ctx, cancel := context.WithTimeout(context.Background(), completeTimeout)
	defer cancel()
	return a.post(ctx, "/api/v1/channels/"+url.PathEscape(channel)+"/elicitations/complete",
		map[string]string{"elicitationId": elicitationID}, nil)
}

// Check asks the bridge how channel is doing (GET on the channel, which
// changes nothing), so that a wrong address or key is found before a
// tool runs, not when it first asks something.
func (a *APIEliciter) Check(ctx context.Context, channel string) (hub.ChannelStatus, error) {
	var st struct {
		Widgets int `json:"widgets"`
		Pending int `json:"pending"`
	}
	if err := a.do(ctx, http.MethodGet, "/api/v1/channels/"+url.PathEscape(channel), nil, &st); err != nil {
		return hub.ChannelStatus{}, err
	}
	return hub.ChannelStatus{Widgets: st.Widgets, Pending: st.Pending}, nil
}

func (a *APIEliciter) post(ctx context.Context, path string, body, out any) error {
	return a.do(ctx, http.MethodPost, path, body, out)
}

func (a *APIEliciter) do(ctx context.Context, method, path string, body, out any) error {
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
	resp, err := a.client().Do(req)
	if err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return fmt.Errorf("failed to reach the bridge's HTTP API: %w", err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil {
		return fmt.Errorf("failed to read the bridge's answer: %w", err)
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
	}
	return fmt.Errorf("the bridge's HTTP API answered %d: %s", status, msg)
}
