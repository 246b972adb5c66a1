package mcpbridge

import (
	"context"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// hostThrough serves p between up and a go-sdk host (named "h", with
// hostOpts) over in-memory transports, and returns the host's session and
// the channel Serve's result arrives on.
func hostThrough(t *testing.T, ctx context.Context, p *Proxy, up mcp.Connection, hostOpts *mcp.ClientOptions, opts *mcp.ClientSessionOptions) (*mcp.ClientSession, chan error) {
	t.Helper()
	return connectThrough(t, ctx, p, up, mcp.NewClient(&mcp.Implementation{Name: "h", Version: "1"}, hostOpts), opts)
}

// connectThrough is hostThrough for a host client the test built.
func connectThrough(t *testing.T, ctx context.Context, p *Proxy, up mcp.Connection, client *mcp.Client, opts *mcp.ClientSessionOptions) (*mcp.ClientSession, chan error) {
	t.Helper()
	ht, pt := mcp.NewInMemoryTransports()
	hostConn, err := pt.Connect(ctx)
	if err != nil {
		t.Fatal(err)
	}
	serve := make(chan error, 1)
	go func() { serve <- p.Serve(ctx, hostConn, up) }()
	cs, err := client.Connect(ctx, ht, opts)
	if err != nil {
		t.Fatalf("host connect through the proxy: %v", err)
	}
	return cs, serve
}

// patience is how long a test waits for something that must happen. It
// is generous: only a broken build waits it out, and a loaded machine is
// slow.
const patience = 20 * time.Second

// waitFor polls cond until it holds, for up to patience.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(patience)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// callAsync calls tool on cs in the background; the channel gets how the
// call ended.
func callAsync(ctx context.Context, cs *mcp.ClientSession, tool string) <-chan error {
	done := make(chan error, 1)
	go func() {
		_, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: tool})
		done <- err
	}()
	return done
}
