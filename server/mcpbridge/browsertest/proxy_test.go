package browsertest

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/formbridge/formbridge/server/e2e"
)

// The formbridge command and the subprocess test server, built once.
var formbridgeBin, testServerBin string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "browsertest")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	formbridgeBin = filepath.Join(dir, "formbridge")
	testServerBin = filepath.Join(dir, "testserver")
	for out, pkg := range map[string]string{formbridgeBin: "../..", testServerBin: "../internal/testserver"} {
		if b, err := exec.Command("go", "build", "-o", out, pkg).CombinedOutput(); err != nil {
			fmt.Fprintf(os.Stderr, "building %s failed: %v\n%s", pkg, err, b)
			os.RemoveAll(dir)
			os.Exit(1)
		}
	}
	if os.Getenv("FORMBRIDGE_WEB_DIR") == "" {
		// e2e finds the widget relative to its own package; this one is
		// a level deeper.
		if web, err := filepath.Abs("../../../web"); err == nil {
			os.Setenv("FORMBRIDGE_WEB_DIR", web)
		}
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

const tripSchema = `{"type":"object","properties":{` +
	`"zeta":{"type":"string","title":"Destination"},` +
	`"alpha":{"type":"integer","title":"Nights","minimum":1},` +
	`"mid":{"type":"boolean","title":"Window seat","default":false}},` +
	`"required":["zeta","alpha"]}`

var widgetLink = regexp.MustCompile(`http://127\.0\.0\.1:\d+/#token=\S+`)

// watchLink reads cmd's stderr (set up before cmd starts) and sends the
// widget link formbridge prints there.
func watchLink(t *testing.T, cmd *exec.Cmd) <-chan string {
	t.Helper()
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	links := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			if l := widgetLink.FindString(sc.Text()); l != "" {
				select {
				case links <- l:
				default:
				}
			}
		}
		io.Copy(io.Discard, stderr)
	}()
	return links
}

func waitLink(t *testing.T, links <-chan string) string {
	t.Helper()
	select {
	case l := <-links:
		return l
	case <-time.After(30 * time.Second):
		t.Fatal("formbridge proxy printed no widget link on stderr")
		return ""
	}
}

// answerInBrowser opens the widget, waits for the trip form, types a
// destination and a number of nights, ticks nothing else (the window seat
// keeps its default), and presses Send.
func answerInBrowser(t *testing.T, browser context.Context, link string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(browser, 60*time.Second)
	defer cancel()
	steps := []struct {
		name string
		do   chromedp.Action[chromedp.Void]
	}{
		{"open the widget", chromedp.Navigate(link)},
		{"get online", chromedp.WaitVisible(chromedp.CSS(`[data-connection="online"]`))},
		{"see the form", chromedp.WaitVisible(chromedp.CSS(`form[data-elicitation-id]`))},
		{"type the destination", chromedp.SendKeys(chromedp.CSS(`[data-field="zeta"] textarea, [data-field="zeta"] input`), "Lisbon")},
		{"type the nights", chromedp.SendKeys(chromedp.CSS(`[data-field="alpha"] input`), "3")},
		{"press Send", chromedp.Click(chromedp.CSS(`button[data-action="accept"]`))},
		{"see it answered", chromedp.WaitVisible(chromedp.CSS(`[data-outcome="answered"]`))},
	}
	for _, step := range steps {
		sctx, scancel := context.WithTimeout(ctx, 20*time.Second)
		err := chromedp.Do(sctx, step.do)
		scancel()
		if err == nil {
			continue
		}
		text, _ := chromedp.Run(browser, chromedp.Evaluate[string](`document.body.innerText`))
		t.Fatalf("%s: %v; the page shows:\n%s", step.name, err, text)
	}
}

const wantAnswer = `{"action":"accept","content":{"alpha":3,"mid":false,"zeta":"Lisbon"}}`

func callText(t *testing.T, ctx context.Context, cs *mcp.ClientSession, tool string) string {
	t.Helper()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: tool})
	if err != nil {
		t.Fatalf("call %s: %v", tool, err)
	}
	if res.IsError || len(res.Content) != 1 {
		t.Fatalf("call %s: %+v", tool, res)
	}
	return res.Content[0].(*mcp.TextContent).Text
}

func TestProxyStdioInBrowser(t *testing.T) {
	browser := e2e.NewBrowser(t) // skips without Chromium or the widget
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	cmd := exec.Command(formbridgeBin, "proxy", "--addr", "127.0.0.1:0", "--", testServerBin)
	links := watchLink(t, cmd)
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "stdio-host", Version: "1"}, nil).
		Connect(ctx, &mcp.CommandTransport{Command: cmd}, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	if err != nil {
		t.Fatalf("host connect: %v", err)
	}
	defer cs.Close()
	link := waitLink(t, links)
	got := make(chan string, 1)
	go func() { got <- callText(t, ctx, cs, "book") }()
	answerInBrowser(t, browser, link)
	if g := <-got; g != wantAnswer {
		t.Errorf("upstream got %s, want %s", g, wantAnswer)
	}
}

func TestProxyHTTPInBrowser(t *testing.T) {
	browser := e2e.NewBrowser(t)
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	srv := mcp.NewServer(&mcp.Implementation{Name: "travel-desk", Version: "1"}, nil)
	mcp.AddTool(srv, &mcp.Tool{Name: "book"}, func(ctx context.Context, req *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
		res, err := req.Session.Elicit(ctx, &mcp.ElicitParams{Message: "Book the trip?", RequestedSchema: json.RawMessage(tripSchema)})
		if err != nil {
			return nil, nil, err
		}
		b, _ := json.Marshal(res)
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: string(b)}}}, nil, nil
	})
	up := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, nil))
	t.Cleanup(up.Close) // after the proxy's, which the test registers later

	cs, link := startHTTPProxy(t, ctx, up.URL)
	got := make(chan string, 1)
	go func() { got <- callText(t, ctx, cs, "book") }()
	answerInBrowser(t, browser, link)
	if g := <-got; g != wantAnswer {
		t.Errorf("upstream got %s, want %s", g, wantAnswer)
	}
}

// startHTTPProxy runs formbridge proxy --no-stdio --upstream upURL and
// connects a go-sdk host to its /mcp; both stop at the test's end. It
// returns the host and the widget link.
func startHTTPProxy(t *testing.T, ctx context.Context, upURL string) (*mcp.ClientSession, string) {
	t.Helper()
	cmd := exec.Command(formbridgeBin, "proxy", "--addr", "127.0.0.1:0", "--no-stdio", "--upstream", upURL)
	links := watchLink(t, cmd)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Signal(os.Interrupt)
		cmd.Wait()
	})
	link := waitLink(t, links)
	base, _, _ := strings.Cut(link, "/#")
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "http-host", Version: "1"}, nil).
		Connect(ctx, &mcp.StreamableClientTransport{Endpoint: base + "/mcp"}, nil)
	if err != nil {
		t.Fatalf("host connect to /mcp: %v", err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs, link
}
