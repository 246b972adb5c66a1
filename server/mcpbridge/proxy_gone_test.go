package mcpbridge

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// dyingOnCall is an upstream connection whose server dies the moment it
// reads a call: the connection ends while Write has not yet returned,
// and Write waits (boundedly) for the proxy to close the host, so a
// proxy that does not count the call as in flight before sending it
// closes the host with the call unanswered.
type dyingOnCall struct {
	mcp.Connection
	hostClosed <-chan struct{}
}

func (c *dyingOnCall) Write(ctx context.Context, m jsonrpc.Message) error {
	if r, ok := m.(*jsonrpc.Request); ok && r.IsCall() {
		c.Connection.Close()
		select {
		case <-c.hostClosed:
		case <-time.After(300 * time.Millisecond):
		}
		return nil
	}
	return c.Connection.Write(ctx, m)
}

// noticesClose is a host connection that says when the proxy closed it.
type noticesClose struct {
	mcp.Connection
	once   sync.Once
	closed chan struct{}
}

func (c *noticesClose) Close() error {
	c.once.Do(func() { close(c.closed) })
	return c.Connection.Close()
}

// A server that dies on reading a call still gets the host its error
// answer, however the proxy's goroutines are scheduled.
func TestProxyAnswersCallTheUpstreamDiedOn(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), patience)
	defer cancel()
	host, hostSide := connPair(t, ctx)
	upSide, _ := connPair(t, ctx)
	hs := &noticesClose{Connection: hostSide, closed: make(chan struct{})}
	serve := make(chan error, 1)
	go func() {
		serve <- (&Proxy{Eliciter: &person{}, Channel: "default"}).Serve(ctx, hs, &dyingOnCall{Connection: upSide, hostClosed: hs.closed})
	}()
	send(t, ctx, host, `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"crash"}}`)
	msg, err := host.Read(ctx)
	if err != nil {
		t.Fatalf("host got %v, want an error answer to its call", err)
	}
	if r, ok := msg.(*jsonrpc.Response); !ok || r.Error == nil || !strings.Contains(r.Error.Error(), ErrUpstreamClosed.Error()) {
		t.Errorf("host got %+v, want an error answer naming the upstream's end", msg)
	}
	if err := <-serve; !errors.Is(err, ErrUpstreamClosed) {
		t.Errorf("Serve returned %v, want ErrUpstreamClosed", err)
	}
}
