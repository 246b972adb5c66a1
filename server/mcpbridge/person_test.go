package mcpbridge

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"sync"

	"github.com/formbridge/formbridge/app/wire"
	"github.com/formbridge/formbridge/server/hub"
)

// person is a fake Eliciter that answers the way someone at the widget
// would: it reads the params the bridge would show and picks an answer
// with the test's answer func. It records what it was shown.
type person struct {
	answer func(ctx context.Context, p wire.ElicitParams) (*wire.ElicitResult, error)

	mu        sync.Mutex
	asked     []shown
	completed []string
}

type shown struct {
	Channel   string
	Requester wire.Implementation
	Params    wire.ElicitParams
	Keys      []string // requestedSchema property keys, in the order received
}

func (p *person) Elicit(ctx context.Context, channel string, requester wire.Implementation, params json.RawMessage, _ *hub.ElicitOptions) (*wire.ElicitResult, error) {
	var ep wire.ElicitParams
	if err := json.Unmarshal(params, &ep); err != nil {
		return nil, &wire.Error{Code: wire.CodeInvalidParams, Message: err.Error()}
	}
	keys, err := propertyKeys(ep.RequestedSchema)
	if err != nil {
		return nil, &wire.Error{Code: wire.CodeInvalidParams, Message: err.Error()}
	}
	p.mu.Lock()
	p.asked = append(p.asked, shown{channel, requester, ep, keys})
	p.mu.Unlock()
	return p.answer(ctx, ep)
}

func (p *person) Complete(channel, id string) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.completed = append(p.completed, channel+"/"+id)
	return nil
}

func (p *person) seen() []shown {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]shown(nil), p.asked...)
}

func (p *person) done() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]string(nil), p.completed...)
}

// propertyKeys lists the keys of schema.properties in text order, the way
// the widget reads them.
func propertyKeys(schema json.RawMessage) ([]string, error) {
	if len(schema) == 0 {
		return nil, nil
	}
	var s struct {
		Properties json.RawMessage `json:"properties"`
	}
	if err := json.Unmarshal(schema, &s); err != nil || len(s.Properties) == 0 {
		return nil, err
	}
	dec := json.NewDecoder(bytes.NewReader(s.Properties))
	if _, err := dec.Token(); err != nil {
		return nil, err
	}
	var keys []string
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, err
		}
		k, ok := tok.(string)
		if !ok {
			return nil, fmt.Errorf("property key %v is not a string", tok)
		}
		keys = append(keys, k)
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			return nil, err
		}
	}
	return keys, nil
}

// accepting answers every form with the given content and every URL
// request with accept (the person clicked open).
func accepting(content map[string]any) func(context.Context, wire.ElicitParams) (*wire.ElicitResult, error) {
	return func(_ context.Context, p wire.ElicitParams) (*wire.ElicitResult, error) {
		if p.IsURL() {
			return &wire.ElicitResult{Action: wire.ActionAccept}, nil
		}
		return &wire.ElicitResult{Action: wire.ActionAccept, Content: content}, nil
	}
}

// waitingPerson never answers; withdrawn closes when their question is
// taken away.
func waitingPerson() (p *person, withdrawn <-chan struct{}) {
	ch := make(chan struct{})
	return &person{answer: func(ctx context.Context, _ wire.ElicitParams) (*wire.ElicitResult, error) {
		<-ctx.Done()
		close(ch)
		return nil, ctx.Err()
	}}, ch
}
