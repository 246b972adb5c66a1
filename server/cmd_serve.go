package main

import (
	"context"
	"os"
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
