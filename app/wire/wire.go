// Package wire defines formbridge.v1, the protocol between the widget and
// the bridge: JSON-RPC 2.0 text frames over a WebSocket whose subprotocol
// is [Subprotocol]. The bridge speaks MCP's own shapes to the widget, so a
// widget that understands elicitation/create needs little else.
//
// The protocol is documented as a transcript in docs/PROTOCOL.md; the
// golden transcripts under server/gateway/testdata check it.
package wire

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/formbridge/formbridge/app/elicit"
)

// Subprotocol is the WebSocket subprotocol both sides must agree on.
// A new, incompatible protocol gets a new name (formbridge.v2).
const Subprotocol = "formbridge.v1"

// Path is where the bridge serves the WebSocket endpoint.
const Path = "/ws"

// Method names.
const (
	// MethodHello is the widget's first frame: it authenticates and
	// announces the widget's capabilities.
	MethodHello = "formbridge/hello"
	// MethodElicit carries one pending elicitation to the widget.
	MethodElicit = "elicitation/create"
	// MethodSettled tells the widget a request it holds has left the queue.
	MethodSettled = "notifications/formbridge/settled"
	// MethodComplete is MCP's URL-mode completion, forwarded as is.
	MethodComplete = "notifications/elicitation/complete"
	// MethodHeartbeat is sent by the bridge at HeartbeatInterval. Browsers
	// cannot send or observe WebSocket pings, so the widget times out on
	// this instead.
	MethodHeartbeat = "notifications/formbridge/heartbeat"
)

// HeartbeatInterval is how often the bridge sends MethodHeartbeat. A widget
// that hears nothing for HeartbeatTimeout treats the connection as dead.
const (
	HeartbeatInterval = 10 * time.Second
	HeartbeatTimeout  = 30 * time.Second
)

// JSON-RPC error codes used on this wire. The standard ones are from the
// JSON-RPC 2.0 specification, section 5.1; -32042 is MCP's.
const (
	CodeParseError             = -32700
	CodeInvalidRequest         = -32600
	CodeMethodNotFound         = -32601
	CodeInvalidParams          = -32602
	CodeInternalError          = -32603
	CodeTooManyPending         = -32000 // the channel holds its limit of pending requests
	CodeUnauthorized           = -32001 // bad or missing token in hello
	CodeRateLimited            = -32002 // too many new elicitations per minute on a channel
	CodeUnknownRequest         = -32003 // an answer for a request that is not pending
	CodeURLElicitationRequired = -32042
)

// Outcomes carried by MethodSettled.
const (
	OutcomeAnswered          = "answered"           // your answer was delivered
	OutcomeAnsweredElsewhere = "answered-elsewhere" // another widget answered first
	OutcomeRejected          = "rejected"           // content invalid; still pending
	OutcomeCancelled         = "cancelled"          // the server withdrew it
	OutcomeExpired           = "expired"            // nobody answered in time
	// OutcomeUnknown follows error -32003: the widget answered a request
	// this bridge does not hold (it restarted, or forgot it long ago), so
	// the widget withdraws that form. Added after formbridge.v1 first
	// shipped: widgets that do not know it should read any unknown
	// outcome as "no longer waiting".
	OutcomeUnknown = "unknown"
)

// Actions of an ElicitResult.
const (
	ActionAccept  = "accept"
	ActionDecline = "decline"
	ActionCancel  = "cancel"
)

// MaxFrameBytes is the largest frame the bridge sends a widget, and so
// the least a widget must accept. A request is at most 512 KiB of params
// (elicit.MaxRequestBytes), and the bridge's reading of it (RequestView)
// repeats its fields, labels and choices: a schema made of a thousand
// short choices per field reads about five times its size. The bridge
// refuses a request whose frame would be larger.
const MaxFrameBytes = 4 << 20

// MaxAnswerBytes is the largest frame a widget may send once its hello
// is answered: an answer, with what the person typed or chose. A text
// field with no maxLength takes a pasted log, and a multi-select of a
// request's every choice repeats up to its 512 KiB. The bridge closes a
// connection that sends more (1009); the widget refuses to send it, and
// says so, instead of losing the answer to a reconnect that sends it
// again.
const MaxAnswerBytes = 1 << 20

// MetaKey is the _meta key under which the bridge adds RequestMeta to the
// params of each elicitation/create it sends to a widget.
const MetaKey = "formbridge/request"

// Version is the JSON-RPC version string every frame carries.
const Version = "2.0"

// Message is one JSON-RPC 2.0 frame: a request (ID and Method), a
// notification (Method only) or a response (ID with Result or Error).
type Message struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id,omitempty"`
	Method  string          `json:"method,omitempty"`
	Params  json.RawMessage `json:"params,omitempty"`
	Result  json.RawMessage `json:"result,omitempty"`
	Error   *Error          `json:"error,omitempty"`
}

// IsRequest reports whether m is a request (it expects a response).
func (m *Message) IsRequest() bool { return m.Method != "" && len(m.ID) > 0 }

// IsNotification reports whether m is a notification.
func (m *Message) IsNotification() bool { return m.Method != "" && len(m.ID) == 0 }

// IsResponse reports whether m is a response to an earlier request.
func (m *Message) IsResponse() bool { return m.Method == "" && len(m.ID) > 0 }

// Error is a JSON-RPC error object.
type Error struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
	Data    any    `json:"data,omitempty"`
}

func (e *Error) Error() string { return fmt.Sprintf("%s (code %d)", e.Message, e.Code) }

// Implementation names a piece of software: the widget, the bridge, or the
// MCP server asking the question. It is MCP's Implementation shape.
type Implementation struct {
	Name    string `json:"name"`
	Title   string `json:"title,omitempty"`
	Version string `json:"version,omitempty"`
}

// DisplayName is what a person should read: the title when there is one.
func (i Implementation) DisplayName() string {
	if i.Title != "" {
		return i.Title
	}
	return i.Name
}

// Capabilities is what the widget declares in hello, in MCP's shape.
type Capabilities struct {
	Elicitation *ElicitationCapabilities `json:"elicitation,omitempty"`
}

// ElicitationCapabilities lists the elicitation modes a client renders.
// MCP reads an empty object as form only.
type ElicitationCapabilities struct {
	Form *struct{} `json:"form,omitempty"`
	URL  *struct{} `json:"url,omitempty"`
}

// HelloParams are the params of MethodHello.
type HelloParams struct {
	Token        string         `json:"token"`
	ClientInfo   Implementation `json:"clientInfo"`
	Capabilities Capabilities   `json:"capabilities"`
}

// HelloResult is the result of MethodHello. Pending is how many requests
// are waiting; each follows as its own elicitation/create.
type HelloResult struct {
	Channel    string         `json:"channel"`
	ServerInfo Implementation `json:"serverInfo"`
	Pending    int            `json:"pending"`
	// Time is the bridge's clock as it answered: createdAt and expiresAt
	// are read on it, and a device's clock may be minutes off.
	Time time.Time `json:"time,omitzero"`
}

// RequestMeta is what the bridge adds under _meta[MetaKey]: who asks,
// the request's lifetime, so the widget can show a countdown, and the
// bridge's reading of the params (RequestView).
type RequestMeta struct {
	Requester Implementation `json:"requester"`
	CreatedAt time.Time      `json:"createdAt"`
	ExpiresAt time.Time      `json:"expiresAt"`
	RequestView
}

// RequestView is the request as the bridge parsed and checked it, which
// the widget renders from: the bridge must parse every request anyway
// (to refuse bad ones and check answers), so it is the one reader of
// requestedSchema and url, and the widget does not ship a schema parser.
// Added to formbridge.v1 after it first shipped; the params themselves
// are still sent exactly as the server wrote them.
type RequestView struct {
	// Form mode: the fields in schema order, each with its kind, label,
	// limits, choices and typed default.
	Form *elicit.Form `json:"form,omitempty"`
	// Form mode: the fields that look like they ask for a secret, in
	// field order; absent when none does.
	Sensitive []elicit.Sensitivity `json:"sensitive,omitempty"`
	// URL mode: the link, checked (only https, or http to the bridge's
	// own machine), with its host, domain and warnings.
	Link *elicit.URLInfo `json:"link,omitempty"`
}

// ElicitParams is MCP's ElicitRequestParams for both modes. Mode "" means
// form. RequestedSchema stays raw: property order matters, and the bridge
// passes it on as the server wrote it (the widget reads RequestView.Form).
type ElicitParams struct {
	Mode            string                     `json:"mode,omitempty"`
	Message         string                     `json:"message"`
	RequestedSchema json.RawMessage            `json:"requestedSchema,omitempty"`
	ElicitationID   string                     `json:"elicitationId,omitempty"`
	URL             string                     `json:"url,omitempty"`
	Meta            map[string]json.RawMessage `json:"_meta,omitempty"`
}

// Modes of ElicitParams.
const (
	ModeForm = "form"
	ModeURL  = "url"
)

// IsURL reports whether p asks the person to open a link.
func (p *ElicitParams) IsURL() bool { return p.Mode == ModeURL }

// RequestMeta returns the bridge's metadata from p, if present. A
// reading this widget cannot use (a field kind, or a default, from a
// bridge newer than it) is left out, and the widget says it cannot show
// the request; who asks and until when still stand, for the person to
// decide on Decline or Skip.
func (p *ElicitParams) RequestMeta() (RequestMeta, bool) {
	raw, ok := p.Meta[MetaKey]
	if !ok {
		return RequestMeta{}, false
	}
	var m RequestMeta
	if json.Unmarshal(raw, &m) == nil {
		return m, true
	}
	var head struct {
		Requester Implementation `json:"requester"`
		CreatedAt time.Time      `json:"createdAt"`
		ExpiresAt time.Time      `json:"expiresAt"`
	}
	if json.Unmarshal(raw, &head) != nil {
		return RequestMeta{}, false
	}
	return RequestMeta{Requester: head.Requester, CreatedAt: head.CreatedAt, ExpiresAt: head.ExpiresAt}, true
}

// ElicitResult is MCP's ElicitResult: the widget's response to an
// elicitation/create, and what the bridge returns to the caller.
type ElicitResult struct {
	Action  string         `json:"action"`
	Content map[string]any `json:"content,omitempty"`
}

// SettledParams are the params of MethodSettled.
type SettledParams struct {
	RequestID string              `json:"requestId"`
	Outcome   string              `json:"outcome"`
	Errors    []elicit.FieldError `json:"errors,omitempty"`
	// Action, with OutcomeAnsweredElsewhere, is the action of the answer
	// that won (ActionAccept, ActionDecline or ActionCancel): a person
	// should learn that a colleague declined, not that it was "answered".
	Action string `json:"action,omitempty"`
}

// CompleteParams are the params of MethodComplete.
type CompleteParams struct {
	ElicitationID string `json:"elicitationId"`
}

// HeartbeatParams are the params of MethodHeartbeat.
type HeartbeatParams struct {
	Time time.Time `json:"time"`
}

// NewRequest builds a request frame with a string id.
func NewRequest(id, method string, params any) (*Message, error) {
	idJSON, _ := json.Marshal(id)
	p, err := json.Marshal(params)
	if err != nil {
		return nil, fmt.Errorf("failed to encode %s params: %w", method, err)
	}
	return &Message{JSONRPC: Version, ID: idJSON, Method: method, Params: p}, nil
}

// NewNotification builds a notification frame.
func NewNotification(method string, params any) (*Message, error) {
	p, err := json.Marshal(params)
	if err != nil {
		return nil, fmt.Errorf("failed to encode %s params: %w", method, err)
	}
	return &Message{JSONRPC: Version, Method: method, Params: p}, nil
}

// NewResult builds a response frame carrying result.
func NewResult(id json.RawMessage, result any) (*Message, error) {
	r, err := json.Marshal(result)
	if err != nil {
		return nil, fmt.Errorf("failed to encode result: %w", err)
	}
	return &Message{JSONRPC: Version, ID: id, Result: r}, nil
}

// NewError builds an error response. A nil id is sent as JSON null, as
// JSON-RPC requires when the request's id could not be read.
func NewError(id json.RawMessage, code int, message string, data any) *Message {
	if len(id) == 0 {
		id = json.RawMessage("null")
	}
	return &Message{JSONRPC: Version, ID: id, Error: &Error{Code: code, Message: message, Data: data}}
}

// StringID decodes a string id; the bridge only ever uses string ids.
// A null id is not one, though encoding/json reads it into a string as "".
func StringID(id json.RawMessage) (string, bool) {
	if len(id) == 0 || id[0] != '"' {
		return "", false
	}
	var s string
	if json.Unmarshal(id, &s) != nil {
		return "", false
	}
	return s, true
}
