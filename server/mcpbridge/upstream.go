package mcpbridge

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/url"
	"os/exec"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Upstream says how to reach an MCP server: exactly one of URL (Streamable
// HTTP) or Command (a subprocess speaking stdio).
type Upstream struct {
	URL     string
	Command []string
	// Stderr receives the subprocess's stderr (its logs); nil discards.
	Stderr io.Writer
	// Log gets a warning for each line the subprocess writes to its
	// stdout that is not an MCP message (which is skipped); nil discards.
	Log *slog.Logger
}

// Check reports a clear error for an upstream that cannot work.
func (u Upstream) Check() error {
	switch {
	case u.URL != "" && len(u.Command) > 0:
		return errors.New("give either a server URL or a command after --, not both")
	case u.URL == "" && len(u.Command) == 0:
		return errors.New("say which MCP server to use: a URL, or a command after --")
	case u.URL != "":
		p, err := url.Parse(u.URL)
		if err != nil || (p.Scheme != "http" && p.Scheme != "https") || p.Host == "" {
			return fmt.Errorf("the server URL must be an http:// or https:// address, not %q", u.URL)
		}
	}
	return nil
}

// Transport is the go-sdk client transport for u.
func (u Upstream) Transport() (mcp.Transport, error) {
	if err := u.Check(); err != nil {
		return nil, err
	}
	if u.URL != "" {
		return &mcp.StreamableClientTransport{Endpoint: u.URL}, nil
	}
	cmd := exec.Command(u.Command[0], u.Command[1:]...)
	cmd.Stderr = u.Stderr
	return &commandTransport{cmd: cmd, log: u.Log}, nil
}

// Dial connects to u at the JSON-RPC level, for the proxy.
func (u Upstream) Dial(ctx context.Context) (mcp.Connection, error) {
	if err := u.Check(); err != nil {
		return nil, err
	}
	if u.URL != "" {
		conn, err := dialHTTPUpstream(ctx, u.URL, nil)
		if err != nil {
			return nil, fmt.Errorf("failed to connect to the upstream MCP server: %w", err)
		}
		return conn, nil
	}
	t, err := u.Transport()
	if err != nil {
		return nil, err
	}
	conn, err := t.Connect(ctx)
	if err != nil {
		return nil, fmt.Errorf("failed to start the upstream MCP server: %w", err)
	}
	return conn, nil
}
