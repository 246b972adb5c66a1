package main

import (
	"context"
	"encoding/json"
	"errors"
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
	fs := newFlagSet("call", "(--server URL | -- COMMAND ARGS...) (--tool NAME [--args JSON] | --list-tools)", `
Calls one tool of an MCP server and prints its result as JSON on stdout.
When the tool asks a question (an MCP elicitation), the question waits
in the widget: open the link printed on stderr and answer it there.

For scripts and CI jobs that need a person's approval. The exit status
is 0 when the tool succeeded, 1 when it reported an error, the call
failed, or the person declined or cancelled, and 2 for a wrong command
line.

The server is a Streamable HTTP address (--server, or the only argument
when it starts with http:// or https://) or a command after --.

By default call runs its own bridge for the widget. With --bridge it
sends the questions to a bridge that is already running instead (through
its HTTP API, so --api-key must be that bridge's key), and the person
answers in that bridge's widget.

Examples:
  formbridge call --server http://127.0.0.1:3000/mcp --tool deploy --args '{"env":"prod"}'
  formbridge call --tool deploy -- ./my-mcp-server --stdio
  formbridge call --bridge http://127.0.0.1:8080 --api-key "$KEY" --list-tools http://127.0.0.1:3000/mcp`)
	cfg := addBridgeFlags(fs)
	server := fs.String("server", "FORMBRIDGE_SERVER", "", "the Streamable HTTP `URL` of the MCP server (instead of a command after --)")
	tool := fs.String("tool", "", "", "the `name` of the tool to call")
	toolArgs := fs.String("args", "", "{}", "the tool's arguments as a `JSON` object")
	protocol := fs.String("protocol", "", "", "ask for this MCP protocol `version` instead of the newest")
	listTools := fs.Bool("list-tools", "", false, "print the server's tools (tools/list) instead of calling one")
	bridgeURL := fs.String("bridge", "FORMBRIDGE_BRIDGE", "", "send the questions to the running bridge at this `URL` (its HTTP API) instead of starting one")
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
	switch {
	case *tool == "" && !*listTools:
		return &usageError{"say which tool to call with --tool NAME (or use --list-tools)"}
	case *tool != "" && *listTools:
		return &usageError{"--tool and --list-tools do not go together"}
	case *bridgeURL != "" && *cfg.apiKey == "":
		return &usageError{"--bridge needs --api-key (or FORMBRIDGE_API_KEY): the running bridge's HTTP API key"}
	}
	if !json.Valid([]byte(*toolArgs)) || !strings.HasPrefix(strings.TrimSpace(*toolArgs), "{") {
		return &usageError{fmt.Sprintf("--args must be a JSON object such as '{\"name\":\"value\"}', not %s", *toolArgs)}
	}
	log, err := newLogger(*cfg.logFormat, stderr)
	if err != nil {
		return err
	}
	up.Log = log.With("part", "upstream")

	opts := mcpbridge.CallOptions{
		Upstream:        up,
		Tool:            *tool,
		Arguments:       json.RawMessage(*toolArgs),
		Channel:         "default",
		ProtocolVersion: *protocol,
		Timeout:         *cfg.timeout,
		ClientInfo:      &mcp.Implementation{Name: "formbridge", Title: "formbridge call", Version: version},
		Logger:          atLeast(log, slog.LevelWarn), // the go-sdk's session chatter stays out
	}
	if *bridgeURL != "" {
		el := &mcpbridge.APIEliciter{BaseURL: *bridgeURL, APIKey: *cfg.apiKey}
		// Before the tool runs: a wrong address or key found when it
		// first asks would leave its work half done.
		st, err := el.Check(ctx, opts.Channel)
		if err != nil {
			return fmt.Errorf("cannot send questions to the bridge at %s (--bridge is its address, --api-key its HTTP API key): %w", *bridgeURL, err)
		}
		opts.Eliciter = el
		fmt.Fprintf(stderr, "formbridge call: questions go to the bridge at %s; answer them in its widget.\n", *bridgeURL)
		if st.Widgets == 0 {
			fmt.Fprintln(stderr, "formbridge call: nobody has that widget open right now; a question waits there until someone does.")
		}
		return callAndPrint(ctx, opts, *listTools, stdout)
	}

	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	r, cleanup, err := startBridge(cfg, stderr, &extras{})
	if inUse := (*addrInUseError)(nil); errors.As(err, &inUse) {
		return fmt.Errorf("%w; or, if a formbridge bridge runs there, send the questions to it: --bridge http://%s --api-key <its key>", err, inUse.addr)
	}
	if err != nil {
		return err
	}
	defer cleanup()
	printWidgetURL(stderr, "formbridge call: the tool may ask questions. Open this link to answer them:", r.WidgetURL(r.Hub.DefaultToken()))
	opts.Eliciter = r.Hub
	callErr := callAndPrint(ctx, opts, *listTools, stdout)
	cancel()
	if err := r.wait(ctx); err != nil && callErr == nil {
		callErr = err
	}
	return callErr
}

// callAndPrint calls the tool (or lists the tools) and prints the result
// as JSON on stdout, also when the tool reported an error.
func callAndPrint(ctx context.Context, o mcpbridge.CallOptions, list bool, stdout io.Writer) error {
	var res any
	var err error
	if list {
		var r *mcp.ListToolsResult
		r, err = mcpbridge.ListTools(ctx, o)
		if r != nil {
			res = r
		}
	} else {
		var r *mcp.CallToolResult
		r, err = mcpbridge.Call(ctx, o)
		if r != nil {
			res = r
		}
	}
	if res != nil {
		out, merr := json.MarshalIndent(res, "", "  ")
		if merr != nil {
			return fmt.Errorf("failed to print the result: %w", merr)
		}
		fmt.Fprintf(stdout, "%s\n", out)
	}
	return err
}
