package main

import (
	"context"
	"fmt"
	"io"
	"net/url"
	"os"
	"strings"
	"time"
)

func init() {
	register(command{
		name:    "serve",
		summary: "run the bridge: MCP servers and apps send questions, people answer them in the widget",
		run: func(ctx context.Context, args []string) error {
			fs := newFlagSet("serve", "", `
Runs the formbridge bridge. It holds each question (an MCP elicitation)
until a person answers it in the widget, a web page it serves, and sends
the answer back to whoever asked.

Questions come from Go programs using the go-sdk adapter, from any
program through the HTTP API (turn it on with --api-key), or through
'formbridge proxy'. On start it prints the link that opens the widget.

Example:
  formbridge serve --addr 127.0.0.1:8080 --api-key "$(openssl rand -hex 16)"`)
			cfg := addBridgeFlags(fs)
			if err := fs.parse(args); err != nil {
				return err
			}
			return serve(ctx, cfg, os.Stderr, nil)
		},
	})
}

// bridgeFlags are the options every command that runs a bridge takes.
type bridgeFlags struct {
	addr, token, apiKey, origins, logFormat, webDir, publicURL *string
	timeout                                                    *time.Duration
}

func addBridgeFlags(fs *flagSet) *bridgeFlags {
	return &bridgeFlags{
		addr:  fs.String("addr", "FORMBRIDGE_ADDR", "127.0.0.1:8080", "the `host:port` to listen on; 0.0.0.0:8080 to accept other machines"),
		token: fs.String("token", "FORMBRIDGE_TOKEN", "", "the `secret` in the widget link (channel \"default\"); a new random one at each start if empty"),
		apiKey: fs.String("api-key", "FORMBRIDGE_API_KEY", "",
			"the `key` programs must send to use the HTTP API (/api/v1/); the API is off without one"),
		origins: fs.String("allowed-origins", "FORMBRIDGE_ALLOWED_ORIGINS", "",
			"comma-separated `origins` of web pages that may embed the widget, e.g. https://chat.example.com"),
		timeout: fs.Duration("timeout", "FORMBRIDGE_TIMEOUT", 10*time.Minute,
			"how long a question waits for an answer before it is cancelled"),
		logFormat: fs.String("log-format", "FORMBRIDGE_LOG_FORMAT", "text", "how log lines look: `text` or json"),
		webDir:    fs.String("web-dir", "FORMBRIDGE_WEB_DIR", "", "serve the widget's files from this `folder` instead of the built-in ones"),
		publicURL: fs.String("public-url", "FORMBRIDGE_PUBLIC_URL", "",
			"the `URL` people use to reach this bridge, when it differs from --addr (behind a proxy)"),
	}
}

// splitList reads a comma-separated flag, ignoring blanks.
func splitList(s string) []string {
	var out []string
	for _, part := range strings.Split(s, ",") {
		if part = strings.TrimSpace(part); part != "" {
			out = append(out, part)
		}
	}
	return out
}

// extras let a command add to the bridge it serves (the demo mounts its
// panel and runs its MCP server).
type extras struct {
	siteEnv map[string]string // passed to the widget
	intro   string            // first line above the link; "" = the usual one
	// extend runs after the bridge is built and before it serves; its
	// cleanup runs after shutdown.
	extend func(*bridge) (cleanup func(), err error)
}

// serve runs a bridge until ctx ends.
func serve(ctx context.Context, f *bridgeFlags, stderr io.Writer, x *extras) error {
	if x == nil {
		x = &extras{}
	}
	r, cleanup, err := startBridge(f, stderr, x)
	if err != nil {
		return err
	}
	defer cleanup()
	printWidgetURL(stderr, x.intro, r.WidgetURL(r.Hub.DefaultToken()))
	return r.wait(ctx)
}

// startBridge listens, builds and starts a bridge from flags.
func startBridge(f *bridgeFlags, stderr io.Writer, x *extras) (*running, func(), error) {
	if x == nil {
		x = &extras{}
	}
	log, err := newLogger(*f.logFormat, stderr)
	if err != nil {
		return nil, nil, err
	}
	if *f.timeout <= 0 {
		return nil, nil, &usageError{"--timeout must be longer than zero"}
	}
	ln, err := listen(*f.addr)
	if err != nil {
		return nil, nil, err
	}
	base := baseURL(ln)
	if *f.publicURL != "" {
		if base, err = checkPublicURL(*f.publicURL); err != nil {
			ln.Close()
			return nil, nil, err
		}
	}
	b, err := newBridge(&bridgeOptions{
		BaseURL:        base,
		Token:          *f.token,
		APIKey:         *f.apiKey,
		AllowedOrigins: splitList(*f.origins),
		Timeout:        *f.timeout,
		WebDir:         *f.webDir,
		SiteEnv:        x.siteEnv,
		Logger:         log,
	})
	if err != nil {
		ln.Close()
		return nil, nil, err
	}
	cleanup := func() {}
	if x.extend != nil {
		if cleanup, err = x.extend(b); err != nil {
			b.Close()
			ln.Close()
			return nil, nil, err
		}
	}
	log.Info("formbridge is listening", "addr", ln.Addr().String(), "version", version)
	if !b.APIOn() {
		log.Info("the HTTP API (/api/v1/) is off: start with --api-key or FORMBRIDGE_API_KEY to turn it on")
	}
	return start(b, ln, log), cleanup, nil
}

// checkPublicURL accepts an http(s) URL with a host and no fragment.
func checkPublicURL(s string) (string, error) {
	u, err := url.Parse(s)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.Fragment != "" || u.RawQuery != "" {
		return "", &usageError{fmt.Sprintf("--public-url must be an http:// or https:// address such as https://approvals.example.com, not %q", s)}
	}
	return strings.TrimRight(u.String(), "/"), nil
}
