package main

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/formbridge/formbridge/app/wire"
	"github.com/formbridge/formbridge/server/internal/logbuf"
)

const testToken = "test-token-0123456789abcdef"

// testFlags parses args as serve would, on a free port.
func testFlags(t *testing.T, args ...string) *bridgeFlags {
	t.Helper()
	fs := newFlagSet("serve", "", "")
	f := addBridgeFlags(fs)
	if err := fs.parse(append([]string{"--addr", "127.0.0.1:0", "--token", testToken}, args...)); err != nil {
		t.Fatal(err)
	}
	return f
}

// startTest starts a bridge and stops it when the test ends. stop shuts
// it down earlier and returns wait's error.
func startTest(t *testing.T, f *bridgeFlags, x *extras) (r *running, stop func() error, logs *logbuf.Buffer) {
	t.Helper()
	logs = &logbuf.Buffer{}
	r, cleanup, err := startBridge(f, logs, x)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- r.wait(ctx); cleanup() }()
	stopped := false
	stop = func() error {
		if stopped {
			return nil
		}
		stopped = true
		cancel()
		select {
		case err := <-done:
			return err
		case <-time.After(10 * time.Second):
			t.Fatal("the bridge did not shut down within 10s")
			return nil
		}
	}
	t.Cleanup(func() { stop() })
	return r, stop, logs
}

func get(t *testing.T, url string) (int, string) {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

func TestServeRoutes(t *testing.T) {
	r, _, logs := startTest(t, testFlags(t), nil)
	base := r.baseURL

	code, body := get(t, base+"/healthz")
	var health map[string]string
	if code != 200 || json.Unmarshal([]byte(body), &health) != nil || health["status"] != "ok" {
		t.Errorf("/healthz: %d %q", code, body)
	}
	code, body = get(t, base+"/api/v1/channels")
	if code != 503 || !strings.Contains(body, `"code":"api_off"`) || !strings.Contains(body, "--api-key") {
		t.Errorf("/api/v1/ without a key: %d %q", code, body)
	}
	if code, _ := get(t, base+"/"); code != 200 {
		t.Errorf("/: %d, want the widget page", code)
	}
	if !strings.Contains(logs.String(), "the HTTP API (/api/v1/) is off") {
		t.Errorf("the log does not say the API is off:\n%s", logs)
	}
	if strings.Contains(logs.String(), "--token is short") {
		t.Errorf("a %d-character token was warned about:\n%s", len(testToken), logs)
	}
}

// A short --token is one anyone reaching the bridge can guess: say so.
func TestServeWarnsShortToken(t *testing.T) {
	_, _, logs := startTest(t, testFlags(t, "--token", "demo-token-1234"), nil)
	if !strings.Contains(logs.String(), "--token is short") || strings.Contains(logs.String(), "demo-token-1234") {
		t.Errorf("want a warning that names the length, never the token:\n%s", logs)
	}
}

// So is a short --api-key, which opens every channel.
func TestServeWarnsShortAPIKey(t *testing.T) {
	_, _, logs := startTest(t, testFlags(t, "--api-key", "k-123"), nil)
	if !strings.Contains(logs.String(), "--api-key is short") || strings.Contains(logs.String(), "k-123") {
		t.Errorf("want a warning that names the length, never the key:\n%s", logs)
	}
	_, _, logs = startTest(t, testFlags(t, "--api-key", "6f1c2e9a0b7d4c3e8f5a1b2c3d4e5f60"), nil)
	if strings.Contains(logs.String(), "--api-key is short") {
		t.Errorf("a 32-character key was warned about:\n%s", logs)
	}
}

func TestServeAPIOn(t *testing.T) {
	r, _, logs := startTest(t, testFlags(t, "--api-key", "k-123"), nil)
	req, _ := http.NewRequest("POST", r.baseURL+"/api/v1/channels", strings.NewReader(`{"name":"team-a"}`))
	req.Header.Set("Authorization", "Bearer k-123")
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var ch struct{ Channel, Token, WidgetURL string }
	if err := json.NewDecoder(resp.Body).Decode(&ch); err != nil || resp.StatusCode/100 != 2 {
		t.Fatalf("create channel: %d %v", resp.StatusCode, err)
	}
	if want := r.baseURL + "/#token=" + ch.Token; ch.Token == "" || ch.WidgetURL != want {
		t.Errorf("widgetUrl %q, want %q", ch.WidgetURL, want)
	}
	if strings.Contains(logs.String(), "is off") || strings.Contains(logs.String(), "k-123") {
		t.Errorf("log:\n%s", logs)
	}
}

// Shutdown settles a pending question as cancel, tells the widget, and
// returns without error; afterwards nothing listens.
func TestServeShutdownCancelsPending(t *testing.T) {
	r, stop, _ := startTest(t, testFlags(t), nil)
	w := dialWidget(t, r.baseURL, testToken)

	type outcome struct {
		res *wire.ElicitResult
		err error
	}
	got := make(chan outcome, 1)
	go func() {
		res, err := r.Hub.Elicit(context.Background(), "default", wire.Implementation{Name: "test"},
			json.RawMessage(`{"message":"Go ahead?","requestedSchema":{"type":"object","properties":{}}}`), nil)
		got <- outcome{res, err}
	}()
	w.question() // it is pending now

	if err := stop(); err != nil {
		t.Fatalf("shutdown: %v", err)
	}
	select {
	case o := <-got:
		if o.err != nil || o.res == nil || o.res.Action != wire.ActionCancel {
			t.Errorf("pending caller got %+v, %v; want action cancel", o.res, o.err)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("the pending caller was not answered at shutdown")
	}
	if _, err := http.Get(r.baseURL + "/healthz"); err == nil {
		t.Error("the bridge still answers after shutdown")
	}
}

// serve prints the widget link once, apart from the log lines, and the
// token appears nowhere else.
func TestServePrintsLinkOnly(t *testing.T) {
	f := testFlags(t, "--log-format", "json")
	logs := &logbuf.Buffer{}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	began := time.Now()
	go func() { done <- serve(ctx, f, logs, nil) }()

	link := regexp.MustCompile(`\n      (http://127\.0\.0\.1:\d+/#token=` + testToken + `)\n`)
	var m []string
	for deadline := time.Now().Add(20 * time.Second); m == nil && time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
		m = link.FindStringSubmatch(logs.String())
	}
	if m == nil {
		cancel()
		t.Fatalf("no widget link printed:\n%s", logs)
	}
	t.Logf("ready in %v", time.Since(began))
	if code, _ := get(t, strings.Split(m[1], "#")[0]+"healthz"); code != 200 {
		t.Errorf("healthz at the printed address: %d", code)
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatalf("serve: %v", err)
	}
	out := logs.String()
	if n := strings.Count(out, testToken); n != 1 {
		t.Errorf("the token appears %d times, want once (in the link):\n%s", n, out)
	}
	for _, line := range strings.Split(out, "\n") {
		if strings.HasPrefix(line, "{") && !json.Valid([]byte(line)) {
			t.Errorf("not a JSON log line: %q", line)
		}
	}
	if !strings.Contains(out, `"msg":"stopped"`) {
		t.Errorf("no JSON log line says it stopped:\n%s", out)
	}
}

func TestServeFlagMistakes(t *testing.T) {
	for _, args := range [][]string{
		{"--public-url", "approvals.example.com"},
		{"--timeout", "0s"},
		{"--log-format", "yaml"},
		{"--addr", "18095"},
		{"--allowed-origins", "*"},
		{"--allowed-origins", "chat.example.com"},
		{"--allowed-origins", "https://chat.example.com/app"},
		{"--allowed-origins", "https://chat.example.com?x=1"},
		{"--allowed-origins", "ftp://chat.example.com"},
		{"--allowed-origins", "https://chat.*.com"},
		{"--allowed-origins", "https://ok.example.com, https://bad.example.com/x"},
		{"--allowed-origins", "https://:443"},
		{"--allowed-origins", "http://[::1]:3000"},
		{"--allowed-origins", "http://a.test:99999"},
		{"--allowed-origins", "http://a.test:0"},
		{"--allowed-origins", "http://a.test:65536"},
		{"--allowed-origins", "https://user@chat.example.com"},
		{"--allowed-origins", "https://chat.example.com#top"},
		{"--public-url", "https://approvals.example.com/?x=1"},
		{"--public-url", "https://approvals.example.com/#top"},
	} {
		_, _, err := startBridge(testFlags(t, args...), io.Discard, nil)
		if _, ok := err.(*usageError); !ok {
			t.Errorf("%v: got %v, want a usage error", args, err)
		}
	}
}

// TestAllowedOrigins: origins as an address bar shows them (a trailing
// "/", a default port, capitals) are written as browsers send them, so
// that a page framed from one may also connect.
func TestAllowedOrigins(t *testing.T) {
	got, err := checkOrigins("https://Chat.Example.com/, http://127.0.0.1:3000/ ,https://*.example.org:443,http://a.test:80,https://bücher.example:08443")
	want := []string{"https://chat.example.com", "http://127.0.0.1:3000", "https://*.example.org", "http://a.test", "https://xn--bcher-kva.example:8443"}
	if err != nil || !slices.Equal(got, want) {
		t.Errorf("checkOrigins = %q, %v; want %q", got, err, want)
	}

	r, _, _ := startTest(t, testFlags(t, "--allowed-origins", "http://chat.example:3000/"), nil)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	for origin, allowed := range map[string]bool{"http://chat.example:3000": true, "http://evil.example:3000": false} {
		conn, resp, err := websocket.Dial(ctx, "ws"+strings.TrimPrefix(r.baseURL, "http")+wire.Path, &websocket.DialOptions{
			Subprotocols: []string{wire.Subprotocol},
			HTTPHeader:   http.Header{"Origin": {origin}},
		})
		if conn != nil {
			conn.CloseNow()
		}
		if (err == nil) != allowed {
			status := 0
			if resp != nil {
				status = resp.StatusCode
			}
			t.Errorf("a page of %s connecting: err %v (status %d); want allowed %v", origin, err, status, allowed)
		}
	}
}

func TestPublicURL(t *testing.T) {
	r, _, _ := startTest(t, testFlags(t, "--public-url", "https://approvals.example.com/"), nil)
	if got, want := r.WidgetURL("a b"), "https://approvals.example.com/#token=a+b"; got != want {
		t.Errorf("WidgetURL = %q, want %q", got, want)
	}
}

// The environment configures serve like its flags do.
func TestServeFromEnvironment(t *testing.T) {
	t.Setenv("FORMBRIDGE_ADDR", "127.0.0.1:0")
	t.Setenv("FORMBRIDGE_TOKEN", "env-token-42")
	t.Setenv("FORMBRIDGE_PUBLIC_URL", "https://approvals.example.com")
	fs := newFlagSet("serve", "", "")
	f := addBridgeFlags(fs)
	if err := fs.parse(nil); err != nil {
		t.Fatal(err)
	}
	r, _, _ := startTest(t, f, nil)
	if got, want := r.WidgetURL(r.Hub.DefaultToken()), "https://approvals.example.com/#token=env-token-42"; got != want {
		t.Errorf("widget link %q, want %q", got, want)
	}
	if ch, ok := r.Hub.Authenticate("env-token-42"); !ok || ch != "default" {
		t.Errorf("the token from FORMBRIDGE_TOKEN does not open channel default")
	}
}

func TestServeAddressInUse(t *testing.T) {
	r, _, _ := startTest(t, testFlags(t), nil)
	addr := strings.TrimPrefix(r.baseURL, "http://")
	_, _, err := startBridge(testFlags(t, "--addr", addr), io.Discard, nil)
	if err == nil || !strings.Contains(err.Error(), "cannot listen on "+addr) || !strings.Contains(err.Error(), "--addr 127.0.0.1:0") {
		t.Errorf("got %v, want an error naming the address and a way out", err)
	}
}

// formbridge call on the address of a running bridge says how to use
// that bridge instead.
func TestCallAddressInUse(t *testing.T) {
	r, _, _ := startTest(t, testFlags(t), nil)
	addr := strings.TrimPrefix(r.baseURL, "http://")
	err := runCall(t.Context(), []string{"--addr", addr, "--tool", "x", "--", "true"}, io.Discard, io.Discard)
	if err == nil || !strings.Contains(err.Error(), "cannot listen on "+addr) || !strings.Contains(err.Error(), "--bridge http://"+addr) {
		t.Errorf("got %v; want the address and --bridge", err)
	}
}

// TestCallFlagMistakes: call and proxy refuse a command line that cannot
// work before they start anything, saying what to change.
func TestCallFlagMistakes(t *testing.T) {
	t.Setenv("FORMBRIDGE_API_KEY", "")
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"--", "true"}, "say which tool to call with --tool NAME"},
		{[]string{"--tool", "x"}, "say which MCP server to use"},
		{[]string{"--server", "http://127.0.0.1:1/mcp", "--tool", "x", "--", "true"}, "not both"},
		// The only argument, an http(s) address, is the server's URL, and checked as one.
		{[]string{"--tool", "x", "--log-format", "yaml", "http://"}, "the server URL must be an http:// or https:// address"},
		{[]string{"--tool", "x", "--list-tools", "--", "true"}, "--tool and --list-tools do not go together"},
		{[]string{"--bridge", "http://127.0.0.1:1", "--tool", "x", "--", "true"}, "--bridge needs --api-key"},
		{[]string{"--tool", "x", "--args", "[1]", "--", "true"}, "--args must be a JSON object"},
		{[]string{"--tool", "x", "--args", "{", "--", "true"}, "--args must be a JSON object"},
	} {
		err := runCall(t.Context(), tt.args, io.Discard, io.Discard)
		if _, ok := err.(*usageError); !ok || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("call %q: got %v, want a usage error saying %q", tt.args, err, tt.want)
		}
	}
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"--no-stdio", "--", "true"}, "--no-stdio needs --upstream"},
		{[]string{"--upstream", "http://127.0.0.1:1/mcp", "--", "true"}, "not both"},
		// A command upstream without --no-stdio gets past those checks.
		{[]string{"--log-format", "yaml", "--", "true"}, "--log-format must be text or json"},
	} {
		err := runProxy(t.Context(), tt.args, strings.NewReader(""), io.Discard, io.Discard)
		if _, ok := err.(*usageError); !ok || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("proxy %q: got %v, want a usage error saying %q", tt.args, err, tt.want)
		}
	}
}

// formbridge call --bridge with a wrong key stops before the tool runs.
func TestCallBridgeWrongKey(t *testing.T) {
	r, _, _ := startTest(t, testFlags(t, "--api-key", "the-right-api-key-0123456789"), nil)
	marker := filepath.Join(t.TempDir(), "ran")
	err := runCall(t.Context(), []string{"--bridge", r.baseURL, "--api-key", "wrong", "--tool", "x", "--", "sh", "-c", "touch " + marker}, io.Discard, io.Discard)
	if err == nil || !strings.Contains(err.Error(), "--api-key") || !strings.Contains(err.Error(), "401") {
		t.Errorf("got %v; want the refused key named", err)
	}
	if _, statErr := os.Stat(marker); statErr == nil {
		t.Error("the MCP server was started before the key was checked")
	}
}

// A binary built before make wasm serves a page that cannot start: the
// operator hears so when it starts, not from approvers later.
func TestServeWarnsNoWidget(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "app.css"), []byte("body{}"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, _, logs := startTest(t, testFlags(t, "--web-dir", dir), nil)
	if !strings.Contains(logs.String(), "this build has no widget") {
		t.Errorf("no warning for a web folder without app.wasm:\n%s", logs)
	}
	if err := os.WriteFile(filepath.Join(dir, "app.wasm"), []byte("\x00asm\x01\x00\x00\x00"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, _, logs = startTest(t, testFlags(t, "--web-dir", dir), nil)
	if strings.Contains(logs.String(), "no widget") {
		t.Errorf("a web folder with app.wasm was warned about:\n%s", logs)
	}
}
