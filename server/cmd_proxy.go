package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/formbridge/formbridge/server/mcpbridge"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func init() {
	register(command{
		name:    "proxy",
		summary: "stand between an MCP host and an MCP server, and show the server's questions in the widget",
		run: func(ctx context.Context, args []string) error {
			return runProxy(ctx, args, os.Stdin, os.Stdout, os.Stderr)
		},
	})
}

func runProxy(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	fs := newFlagSet("proxy", "[--upstream URL | -- COMMAND ARGS...]", `
Puts formbridge in front of an MCP server for a host (a chat app, an
agent, an IDE) that cannot show elicitations itself. Everything the host
and the server send passes through unchanged, except the server's
questions: those appear in the widget, and the person's answer goes back
to the server.

The host talks to the proxy over stdio (stdin and stdout carry only MCP;
logs and the widget link go to stderr). The server is either a command
the proxy starts, given after --, or a Streamable HTTP address given with
--upstream; in that case the proxy also offers the host Streamable HTTP
at /mcp on its own address (to this machine only, unless --api-key is
set: then to any host that sends it as "Authorization: Bearer <key>").

Even when the host can show elicitations, formbridge answers them (that
is the point: the browser). Use --pass-through to leave them to the host.

Examples:
  formbridge proxy -- npx -y @modelcontextprotocol/server-everything
  formbridge proxy --upstream https://mcp.example.com/mcp`)
	cfg := addBridgeFlags(fs)
	upstreamURL := fs.String("upstream", "FORMBRIDGE_UPSTREAM", "", "the Streamable HTTP `URL` of the MCP server (instead of a command after --)")
	passThrough := fs.Bool("pass-through", "FORMBRIDGE_PASS_THROUGH", false, "leave elicitations to the host instead of the widget")
	noStdio := fs.Bool("no-stdio", "", false, "with --upstream: serve hosts only over HTTP at /mcp, not on stdin and stdout")
	if err := fs.parse(args); err != nil {
		return err
	}
	up := mcpbridge.Upstream{URL: *upstreamURL, Command: fs.args(), Stderr: stderr}
	if err := up.Check(); err != nil {
		return &usageError{err.Error()}
	}
	if *noStdio && up.URL == "" {
		return &usageError{"--no-stdio needs --upstream: a command upstream serves one host, on stdio"}
	}
	log, err := newLogger(*cfg.logFormat, stderr)
	if err != nil {
		return err
	}
	up.Log = log.With("part", "upstream")

	ctx, cancel := context.WithCancel(ctx)
	proxy := &mcpbridge.Proxy{
		Channel:     "default",
		PassThrough: *passThrough,
		Timeout:     *cfg.timeout,
		Logger:      log.With("part", "proxy"),
	}
	var httpHost *mcpbridge.HTTPHost
	x := &extras{
		intro: "formbridge proxy is ready. Open this link to answer the MCP server's questions:",
		extend: func(b *bridge) (func(), error) {
			proxy.Eliciter = b.Hub
			if up.URL != "" {
				httpHost = mcpbridge.NewHTTPHost(ctx, proxy, up.Dial)
				httpHost.APIKey = *cfg.apiKey
				b.Handle("/mcp", httpHost)
			}
			return func() {
				if httpHost != nil {
					httpHost.Wait()
				}
			}, nil
		},
	}
	r, cleanup, err := startBridge(cfg, stderr, x)
	if err != nil {
		cancel()
		return err
	}
	defer func() {
		cancel() // ends the HTTP sessions before cleanup waits for them
		cleanup()
	}()
	printWidgetURL(stderr, x.intro, r.WidgetURL(r.Hub.DefaultToken()))
	if httpHost != nil {
		log.Info("MCP hosts can also connect over Streamable HTTP", "url", r.baseURL+"/mcp")
	}

	relayErr := make(chan error, 1)
	if !*noStdio {
		go func() { relayErr <- proxyStdio(ctx, proxy, up, stdin, stdout) }()
	}
	var result error
	relayDone := false
	select {
	case err := <-relayErr:
		relayDone = true
		// The host hung up (done) or the server died (an error): either
		// way this proxy has nothing left to do.
		if err != nil && !errors.Is(err, context.Canceled) {
			result = err
		}
		cancel()
	case <-ctx.Done():
	}
	if err := r.wait(ctx); err != nil && result == nil {
		result = err
	}
	if !*noStdio && !relayDone {
		// Stopped by a signal: the relay is still ending the server (its
		// stdin closed, then SIGTERM): returning now would exit and leave
		// it running, orphaned.
		cancel()
		<-relayErr
	}
	return result
}

// proxyStdio relays between this process's stdio (the host) and up.
func proxyStdio(ctx context.Context, p *mcpbridge.Proxy, up mcpbridge.Upstream, stdin io.Reader, stdout io.Writer) error {
	upConn, err := up.Dial(ctx)
	if err != nil {
		return err
	}
	host, err := (&mcp.IOTransport{Reader: io.NopCloser(stdin), Writer: nopWriteCloser{stdout}}).Connect(ctx)
	if err != nil {
		upConn.Close()
		return err
	}
	if err := p.Serve(ctx, host, upConn); err != nil {
		switch {
		case !errors.Is(err, mcpbridge.ErrUpstreamClosed):
		case errors.Is(err, io.EOF) || errors.Is(err, mcp.ErrConnectionClosed) || errors.Is(err, mcpbridge.ErrServerExited):
			return fmt.Errorf("the MCP server stopped, so the proxy stops too: %w", err)
		case len(up.Command) > 0:
			return fmt.Errorf("the MCP server wrote something that is not an MCP message, so the proxy stops (a server on stdio must write only MCP messages to its standard output, and logs to standard error): %w", err)
		default:
			return fmt.Errorf("the connection to the MCP server failed, so the proxy stops: %w", err)
		}
		return err
	}
	return nil
}

type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }
