package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"

	"github.com/formbridge/formbridge/server/mcpbridge"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func init() {
	register(command{
		name:    "call",
		summary: "call one tool of an MCP server, with its questions answered by a person in the widget",
		run: func(ctx context.Context, args []string) error {
			return runCall(ctx, args, os.Stdout, os.Stderr)
		},
	})
}

func runCall(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("call", "(--server URL | -- COMMAND ARGS...) --tool NAME [--args JSON]", `
Calls one tool of an MCP server and prints its result as JSON on stdout.
When the tool asks a question (an MCP elicitation), the question waits
in the widget: open the link printed on stderr and answer it there.

For scripts and CI jobs that need a person's approval. The exit status
is 0 when the tool succeeded, 1 when it reported an error, the call
failed, or the person declined or cancelled, and 2 for a wrong command
line.

The server is a Streamable HTTP address (--server, or the only argument
when it starts with http:// or https://) or a command after --.

Examples:
  formbridge call --server http://127.0.0.1:3000/mcp --tool deploy --args '{"env":"prod"}'
  formbridge call --tool deploy -- ./my-mcp-server --stdio`)
	cfg := addBridgeFlags(fs)
	server := fs.String("server", "FORMBRIDGE_SERVER", "", "the Streamable HTTP `URL` of the MCP server (instead of a command after --)")
	tool := fs.String("tool", "", "", "the `name` of the tool to call")
	toolArgs := fs.String("args", "", "{}", "the tool's arguments as a `JSON` object")
	protocol := fs.String("protocol", "", "", "ask for this MCP protocol `version` instead of the newest")
	if err := fs.parse(args); err != nil {
		return err
	}
	up := mcpbridge.Upstream{URL: *server, Command: fs.args(), Stderr: stderr}
	if up.URL == "" && len(up.Command) == 1 && (strings.HasPrefix(up.Command[0], "http://") || strings.HasPrefix(up.Command[0], "https://")) {
		up = mcpbridge.Upstream{URL: up.Command[0], Stderr: stderr}
	}
	if err := up.Check(); err != nil {
		return &usageError{err.Error()}
	}
	if *tool == "" {
		return &usageError{"say which tool to call with --tool NAME"}
	}
	if !json.Valid([]byte(*toolArgs)) || !strings.HasPrefix(strings.TrimSpace(*toolArgs), "{") {
		return &usageError{fmt.Sprintf("--args must be a JSON object such as '{\"name\":\"value\"}', not %s", *toolArgs)}
	}
	log, err := newLogger(*cfg.logFormat, stderr)
	if err != nil {
		return err
	}

	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	r, cleanup, err := startBridge(cfg, stderr, &extras{})
	if err != nil {
		return err
	}
	defer cleanup()
	printWidgetURL(stderr, "formbridge call: the tool may ask questions. Open this link to answer them:", r.WidgetURL(r.Hub.DefaultToken()))

	res, callErr := mcpbridge.Call(ctx, mcpbridge.CallOptions{
		Upstream:        up,
		Tool:            *tool,
		Arguments:       json.RawMessage(*toolArgs),
		Eliciter:        r.Hub,
		Channel:         "default",
		ProtocolVersion: *protocol,
		ClientInfo:      &mcp.Implementation{Name: "formbridge", Title: "formbridge call", Version: version},
		Logger:          atLeast(log, slog.LevelWarn), // the go-sdk's session chatter stays out
	})
	if res != nil {
		out, err := json.MarshalIndent(res, "", "  ")
		if err != nil {
			return fmt.Errorf("failed to print the tool's result: %w", err)
		}
		fmt.Fprintf(stdout, "%s\n", out)
	}
	cancel()
	if err := r.wait(ctx); err != nil && callErr == nil {
		callErr = err
	}
	return callErr
}
