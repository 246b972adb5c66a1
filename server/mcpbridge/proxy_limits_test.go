package mcpbridge

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// TestProxyBoundsRequestsWaitingOnHost: a host that answers nothing does
// not make the proxy remember every request an upstream puts to it. Past
// the bound the upstream is told at once; once the host answers one,
// the next is relayed again.
func TestProxyBoundsRequestsWaitingOnHost(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 2*patience)
	defer cancel()
	hostEnd, proxyHost := connPair(t, ctx)
	upEnd, proxyUp := connPair(t, ctx)
	done := make(chan error, 1)
	go func() { done <- (&Proxy{Eliciter: &person{}, Channel: "default"}).Serve(ctx, proxyHost, proxyUp) }()
	defer func() {
		hostEnd.Close()
		<-done
	}()

	ping := func(id int) string { return fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"ping"}`, id) }
	for id := range maxHostRequests {
		send(t, ctx, upEnd, ping(id))
		expect(t, ctx, hostEnd, "host", ping(id))
	}
	send(t, ctx, upEnd, ping(maxHostRequests))
	rctx, rcancel := context.WithTimeout(ctx, patience)
	defer rcancel()
	msg, err := upEnd.Read(rctx)
	resp, ok := msg.(*jsonrpc.Response)
	if err != nil || !ok || resp.ID.Raw() != int64(maxHostRequests) || resp.Error == nil {
		t.Fatalf("the upstream got %#v (%v), want an error for request %d", msg, err, maxHostRequests)
	}
	if we, ok := resp.Error.(*jsonrpc.Error); !ok || we.Code != jsonrpc.CodeInternalError || !strings.Contains(we.Message, "has not answered") {
		t.Errorf("error %v, want -32603 saying the host has not answered", resp.Error)
	}

	send(t, ctx, hostEnd, `{"jsonrpc":"2.0","id":7,"result":{}}`)
	expect(t, ctx, upEnd, "upstream", `{"jsonrpc":"2.0","id":7,"result":{}}`)
	send(t, ctx, upEnd, ping(maxHostRequests+1))
	expect(t, ctx, hostEnd, "host", ping(maxHostRequests+1))
}
