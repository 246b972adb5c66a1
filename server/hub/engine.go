package hub

import (
	"context"
	"encoding/json"

	"github.com/formbridge/formbridge/app/wire"
)

// Engine is what the transports (the gateway, the HTTP API, the MCP
// adapter) need from a hub. *Hub keeps every channel in this process.
// ARCHITECTURE section 7 plans a second engine on NATS, so that several
// bridges share channels: a request is held by the node its caller
// reached, widgets attach on any node as Sessions, and answers travel to
// the holding node, which alone settles, so answer-once holds across
// nodes. The transports hold an Engine inside, so that engine can replace
// this one without touching their code; their constructors (gateway.New,
// api.New) still take a *Hub, so an Engine of your own (a *Hub wrapped
// for metrics, say) cannot be passed to them yet.
type Engine interface {
	Elicit(ctx context.Context, channel string, requester wire.Implementation, params json.RawMessage, opts *ElicitOptions) (*wire.ElicitResult, error)
	Submit(ctx context.Context, channel string, requester wire.Implementation, params json.RawMessage, opts *ElicitOptions, done func(*wire.ElicitResult, error))
	Complete(channel, elicitationID string) error
	Attach(channel string, opts *AttachOptions) (*Session, error)
	Authenticate(token string) (channel string, ok bool)
	CreateChannel(name string) (Channel, error)
	DeleteChannel(name string) error
	Status(channel string) (ChannelStatus, error)
	ServerInfo() wire.Implementation
}

var _ Engine = (*Hub)(nil)
