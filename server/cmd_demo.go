package main

import (
	"context"
	"fmt"
	"log/slog"
	"net"
	"net/url"
	"os"
	"strings"

	"github.com/formbridge/formbridge/server/demo"
	"github.com/formbridge/formbridge/server/hub"
	"github.com/formbridge/formbridge/server/mcpbridge"
	"github.com/formbridge/formbridge/server/site"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func init() {
	register(command{
		name:    "demo",
		summary: "try formbridge: the bridge plus demo questions you fire from the widget page",
		run: func(ctx context.Context, args []string) error {
			fs := newFlagSet("demo", "", `
Runs the bridge (as 'formbridge serve' does) together with a demo
assistant, "Acme Office Assistant". Open the printed link: the widget page
shows a demo panel with a button per question (confirm a deletion, pick
a customer, a travel form, a form that wrongly asks for a password, and
connecting an account through a link). Press one and answer the question
that appears. Nothing the demo says it does really happens.

Example:
  formbridge demo --addr 127.0.0.1:9000`)
			cfg := addBridgeFlags(fs)
			if err := fs.parse(args); err != nil {
				return err
			}
			return serve(ctx, cfg, os.Stderr, demoExtras())
		},
	})
}

// demoExtras turn a bridge into the demo: the widget page loads the demo
// panel (web/demo.js) and the bridge serves the panel's API.
func demoExtras() *extras {
	return &extras{
		siteScripts: []string{"/web/" + site.DemoScript},
		intro:       "The formbridge demo is ready. Open this link in your browser and press a demo button:",
		outro:       chatExampleLink,
		extend:      startDemo,
	}
}

// chatExampleLink points at the same widget embedded in the example chat
// page, the demo for people who will embed formbridge in their own UI.
func chatExampleLink(widgetURL string) string {
	chat := strings.Replace(widgetURL, "/#", "/examples/chat.html#", 1)
	return "  To see it embedded in a chat page instead, open:\n\n      " + chat + "\n\n"
}

// startDemo connects the demo MCP server to the bridge the way a Go host
// would: a go-sdk client whose elicitations go to channel "default"
// through the mcpbridge adapter. Both ends run in this process over
// in-memory transports. The demo's routes are mounted under /demo/.
func startDemo(b *bridge) (func(), error) {
	d := demo.New(&demo.Options{BaseURL: demoLinkBase(b.baseURL), Logger: atLeast(b.log.With("part", "demo"), slog.LevelWarn)})
	ctx := context.Background()
	ct, st := mcp.NewInMemoryTransports()
	ss, err := d.MCP().Connect(ctx, st, nil)
	if err != nil {
		return nil, fmt.Errorf("failed to start the demo MCP server: %w", err)
	}
	client := mcp.NewClient(
		&mcp.Implementation{Name: "formbridge-demo-host", Title: "formbridge demo", Version: version},
		mcpbridge.ClientOptions(b.Hub, hub.DefaultChannel, &mcp.ClientOptions{Logger: atLeast(b.log.With("part", "demo-client"), slog.LevelWarn)}),
	)
	// 2025-11-25, where the server sends its questions itself and can
	// tell the widget when a link's page has been visited
	// (notifications/elicitation/complete, gone in 2026-07-28).
	cs, err := client.Connect(ctx, mcpbridge.Transport(ct), &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	if err != nil {
		ss.Close()
		return nil, fmt.Errorf("failed to connect to the demo MCP server: %w", err)
	}
	b.Handle("/demo/", d.Handler(&demo.PanelOptions{
		Client: cs,
		Authorize: func(token string) bool {
			ch, ok := b.Hub.Authenticate(token)
			return ok && ch == hub.DefaultChannel
		},
	}))
	return func() {
		cs.Close()
		ss.Close()
	}, nil
}

// demoLinkBase names this machine "localhost" in the demo's account link
// instead of 127.0.0.1: a person reads a name more easily than a number,
// and the widget need not warn about a numeric address. Both reach the
// same listener.
func demoLinkBase(base string) string {
	u, err := url.Parse(base)
	if err != nil || u.Hostname() != "127.0.0.1" {
		return base
	}
	u.Host = net.JoinHostPort("localhost", u.Port())
	if u.Port() == "" {
		u.Host = "localhost"
	}
	return u.String()
}
