package mcpbridge

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/formbridge/formbridge/app/client"
	"github.com/formbridge/formbridge/app/wire"
	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// These tests run the real formbridge command (proxy, call) with the real
// hub and gateway, and answer in a widget: app/client, the widget's own
// connection code, on the channel the printed link names.

var (
	formbridgeOnce sync.Once
	formbridgeBin  string
	formbridgeErr  error
)

func formbridgeCommand(t *testing.T) string {
	t.Helper()
	formbridgeOnce.Do(func() {
		formbridgeBin = filepath.Join(filepath.Dir(testServerBin), "formbridge")
		out, err := exec.Command("go", "build", "-o", formbridgeBin, "..").CombinedOutput()
		if err != nil {
			formbridgeErr = errors.New(string(out))
		}
	})
	if formbridgeErr != nil {
		t.Fatalf("building formbridge: %v", formbridgeErr)
	}
	return formbridgeBin
}

var widgetLink = regexp.MustCompile(`http://127\.0\.0\.1:\d+/#token=\S+`)

// watchStderr copies r to the test log and sends the widget link it
// prints.
func watchStderr(t *testing.T, r io.Reader) <-chan string {
	links := make(chan string, 1)
	done := make(chan struct{})
	// t.Log panics once the test has ended: wait for the process's
	// stderr to close (the test stops the process before its cleanups).
	t.Cleanup(func() {
		select {
		case <-done:
		case <-time.After(patience):
			t.Error("formbridge's stderr stayed open after the test")
		}
	})
	go func() {
		defer close(done)
		sc := bufio.NewScanner(r)
		for sc.Scan() {
			line := sc.Text()
			t.Log("formbridge:", line)
			if l := widgetLink.FindString(line); l != "" {
				select {
				case links <- l:
				default:
				}
			}
		}
	}()
	return links
}

// widget connects to the bridge behind link and answers each request
// with answer; it returns what it was shown.
type widget struct {
	mu    sync.Mutex
	shown []*client.Request
}

func (w *widget) requests() []*client.Request {
	w.mu.Lock()
	defer w.mu.Unlock()
	return append([]*client.Request(nil), w.shown...)
}

func openWidget(t *testing.T, ctx context.Context, link string, answer wire.ElicitResult) *widget {
	t.Helper()
	u, err := url.Parse(link)
	if err != nil {
		t.Fatal(err)
	}
	token, _ := url.QueryUnescape(strings.TrimPrefix(u.Fragment, "token="))
	w := &widget{}
	var c *client.Client
	c = client.New(client.Options{
		URL:        client.BridgeURL(link, ""),
		Token:      token,
		ClientInfo: wire.Implementation{Name: "test-widget", Version: "1"},
		OnEvent: func(ev client.Event) {
			switch {
			case ev.Request != nil:
				w.mu.Lock()
				w.shown = append(w.shown, ev.Request)
				w.mu.Unlock()
				go c.Respond(ev.Request.ID, answer)
			case ev.Fatal != nil:
				t.Errorf("widget: %v", ev.Fatal)
			}
		},
	})
	go c.Run(ctx)
	return w
}

func schemaKeys(t *testing.T, r *client.Request) []string {
	t.Helper()
	keys, err := propertyKeys(r.Params.RequestedSchema)
	if err != nil {
		t.Fatal(err)
	}
	return keys
}

var accepted = wire.ElicitResult{Action: wire.ActionAccept, Content: map[string]any{"zeta": "Turin", "alpha": 5, "mid": false}}

func TestCommandProxyStdio(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the formbridge command")
	}
	bin := formbridgeCommand(t)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.Command(bin, "proxy", "--addr", "127.0.0.1:0", "--", testServerBin)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	links := watchStderr(t, stderr)
	host := mcp.NewClient(&mcp.Implementation{Name: "stdio-host", Version: "1"}, nil)
	cs, err := host.Connect(ctx, &mcp.CommandTransport{Command: cmd}, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	if err != nil {
		t.Fatalf("host connect through formbridge proxy: %v", err)
	}
	defer cs.Close()
	var link string
	select {
	case link = <-links:
	case <-ctx.Done():
		t.Fatal("formbridge proxy printed no widget link on stderr")
	}
	w := openWidget(t, ctx, link, accepted)

	if got, want := callText(t, cs, "book"), `{"action":"accept","content":{"alpha":5,"mid":false,"zeta":"Turin"}}`; got != want {
		t.Errorf("upstream got %s, want %s", got, want)
	}
	shown := w.requests()
	if len(shown) != 1 {
		t.Fatalf("widget was shown %d requests, want 1", len(shown))
	}
	if got := shown[0].Meta.Requester.Name; got != "subprocess-desk" {
		t.Errorf("requester %q, want subprocess-desk", got)
	}
	if diff := cmp.Diff([]string{"zeta", "alpha", "mid"}, schemaKeys(t, shown[0])); diff != "" {
		t.Errorf("field order (-want +got):\n%s", diff)
	}
}

func TestCommandProxyHTTP(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the formbridge command")
	}
	bin := formbridgeCommand(t)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	up := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return newTestServer(t) }, nil))
	defer up.Close()
	cmd := exec.CommandContext(ctx, bin, "proxy", "--addr", "127.0.0.1:0", "--no-stdio", "--upstream", up.URL)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	links := watchStderr(t, stderr)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		cmd.Process.Signal(os.Interrupt)
		cmd.Wait()
	}()
	var link string
	select {
	case link = <-links:
	case <-ctx.Done():
		t.Fatal("formbridge proxy printed no widget link")
	}
	w := openWidget(t, ctx, link, accepted)
	base, _, _ := strings.Cut(link, "/#")
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "http-host", Version: "1"}, nil).Connect(ctx, &mcp.StreamableClientTransport{Endpoint: base + "/mcp"}, nil)
	if err != nil {
		t.Fatalf("host connect to the proxy's /mcp: %v", err)
	}
	defer cs.Close()
	if got, want := callText(t, cs, "elicit"), `{"action":"accept","content":{"alpha":5,"mid":false,"zeta":"Turin"}}`; got != want {
		t.Errorf("upstream got %s, want %s", got, want)
	}
	if shown := w.requests(); len(shown) != 1 || shown[0].Meta.Requester.Title != "Travel Desk" {
		t.Errorf("widget was shown %+v", shown)
	}
}

func TestCommandCall(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the formbridge command")
	}
	bin := formbridgeCommand(t)
	tests := []struct {
		name     string
		args     []string
		answer   wire.ElicitResult
		wantExit int
		wantText string
	}{
		{"approved", []string{"--tool", "book"}, accepted, 0, `{"action":"accept","content":{"alpha":5,"mid":false,"zeta":"Turin"}}`},
		{"declined", []string{"--tool", "book"}, wire.ElicitResult{Action: wire.ActionDecline}, 1, `{"action":"decline"}`},
		{"tool error", []string{"--tool", "fail"}, accepted, 1, "the printer is on fire"},
		{"no tool", nil, accepted, 2, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
			defer cancel()
			args := append([]string{"call", "--addr", "127.0.0.1:0"}, tt.args...)
			cmd := exec.CommandContext(ctx, bin, append(args, "--", testServerBin)...)
			stderr, err := cmd.StderrPipe()
			if err != nil {
				t.Fatal(err)
			}
			var stdout strings.Builder
			cmd.Stdout = &stdout
			links := watchStderr(t, stderr)
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			go func() {
				select {
				case link := <-links:
					openWidget(t, ctx, link, tt.answer)
				case <-ctx.Done():
				}
			}()
			err = cmd.Wait()
			code := 0
			var exitErr *exec.ExitError
			if errors.As(err, &exitErr) {
				code = exitErr.ExitCode()
			} else if err != nil {
				t.Fatal(err)
			}
			if code != tt.wantExit {
				t.Errorf("exit status %d, want %d", code, tt.wantExit)
			}
			if tt.wantText == "" {
				if stdout.Len() != 0 {
					t.Errorf("stdout %q, want nothing", stdout.String())
				}
				return
			}
			var res struct {
				Content []struct{ Text string } `json:"content"`
			}
			if err := json.Unmarshal([]byte(stdout.String()), &res); err != nil || len(res.Content) != 1 {
				t.Fatalf("stdout is not the tool's result as JSON: %q (%v)", stdout.String(), err)
			}
			if res.Content[0].Text != tt.wantText {
				t.Errorf("result text %s, want %s", res.Content[0].Text, tt.wantText)
			}
		})
	}
}
