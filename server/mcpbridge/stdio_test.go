package mcpbridge

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"strings"
	"testing"
	"testing/iotest"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/formbridge/formbridge/server/internal/logbuf"
)

// The filter passes messages, whole and in order, and skips what a
// server prints between them, logging each line skipped.
func TestMessageFilter(t *testing.T) {
	t.Parallel()
	msg := `{"jsonrpc":"2.0","id":1,"result":{"text":"a } ] \" { [ b","list":[1,{"x":"y"}]}}`
	pretty := "{\n  \"jsonrpc\": \"2.0\",\n  \"method\": \"notifications/initialized\"\n}"
	tests := []struct {
		name, in string
		want     []string // the messages read
		skipped  []string // the lines logged
	}{
		{"messages only", msg + "\n" + msg + "\n", []string{msg, msg}, nil},
		{"banner first", "Server started on stdio\n" + msg + "\n", []string{msg}, []string{"Server started on stdio"}},
		{"log lines between", msg + "\nINFO listing tools {\"n\":2}\n\n  \tWARN slow\r\n" + msg + "\n", []string{msg, msg}, []string{`INFO listing tools {"n":2}`, "WARN slow\r"}},
		{"after a message on its line", msg + " done\n" + msg + "\n", []string{msg, msg}, []string{"done"}},
		{"a message over several lines", "starting\n" + pretty + "\n", []string{pretty}, []string{"starting"}},
		{"a line at the end without a newline", msg + "\nbye", []string{msg}, []string{"bye"}},
		{"a batch", "[" + msg + "," + msg + "]\n", []string{"[" + msg + "," + msg + "]"}, nil},
		// Lines that start like JSON but are not.
		{"a log line in brackets", "[info] MCP server ready\n" + msg + "\n", []string{msg}, []string{"[info] MCP server ready"}},
		{"a log line in braces", "{ starting up\n" + msg + "\n", []string{msg}, []string{"{ starting up"}},
		{"braces that close", "{not json} at all\n" + msg + "\n[2026-12-06] ok\n", []string{msg}, []string{"{not json} at all", "[2026-12-06] ok"}},
		{"a string cut by its line", `["it's` + "\n" + msg + "\n", []string{msg}, []string{`["it's`}},
		{"a bracket at the end", msg + "\n[", []string{msg}, []string{"["}},
		// JSON that is not JSON-RPC: a structured logger's line, and others.
		{"JSON log lines", "{\"level\":\"info\",\"msg\":\"server ready\"}\n[1] loading tools\n[] no plugins\n{} config loaded\n" + msg + "\n",
			[]string{msg}, []string{`{"level":"info","msg":"server ready"}`, "[1] loading tools", "[] no plugins", "{} config loaded"}},
	}
	for _, tt := range tests {
		for _, oneByte := range []bool{false, true} {
			var logs bytes.Buffer
			var r io.Reader = strings.NewReader(tt.in)
			if oneByte {
				r = iotest.OneByteReader(r)
			}
			f := &messageFilter{r: bufio.NewReader(r), log: slog.New(slog.NewJSONHandler(&logs, nil))}
			dec := json.NewDecoder(f)
			var got []string
			for {
				var raw json.RawMessage
				if err := dec.Decode(&raw); err == io.EOF {
					break
				} else if err != nil {
					t.Fatalf("%s (one byte at a time %v): decoding: %v", tt.name, oneByte, err)
				}
				got = append(got, string(raw))
			}
			var want []string
			for _, m := range tt.want {
				var b bytes.Buffer
				json.Compact(&b, []byte(m))
				want = append(want, b.String())
			}
			for i := range got {
				var b bytes.Buffer
				json.Compact(&b, []byte(got[i]))
				got[i] = b.String()
			}
			if strings.Join(got, "\n") != strings.Join(want, "\n") {
				t.Errorf("%s (one byte at a time %v): read %q, want %q", tt.name, oneByte, got, want)
			}
			var skipped []string
			for line := range strings.Lines(logs.String()) {
				var rec struct{ Line string }
				json.Unmarshal([]byte(line), &rec)
				skipped = append(skipped, rec.Line)
			}
			if strings.Join(skipped, "|") != strings.Join(tt.skipped, "|") {
				t.Errorf("%s (one byte at a time %v): logged %q, want %q", tt.name, oneByte, skipped, tt.skipped)
			}
		}
	}
}

// A line longer than the filter holds is judged once it has that much:
// a long message still passes whole, streamed, and a long line that is
// not one is skipped, either way without holding the whole line.
func TestMessageFilterLongLines(t *testing.T) {
	t.Parallel()
	long := `{"jsonrpc":"2.0","id":1,"result":{"text":"` + strings.Repeat("x", 3*maxHeldLine) + `"}}`
	in := long + "\n[not json " + strings.Repeat("y", 3*maxHeldLine) + "\n" + long + "\n"
	f := &messageFilter{r: bufio.NewReader(strings.NewReader(in))}
	dec := json.NewDecoder(f)
	for i := range 2 {
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil || string(raw) != long {
			t.Fatalf("message %d: %v (%d bytes read)", i, err, len(raw))
		}
		if cap(f.held) > 2*maxHeldLine {
			t.Errorf("message %d: %d bytes held at once", i, cap(f.held))
		}
	}
}

// Only what follows a message on its own line reaches the go-sdk's
// check that a newline follows each message: spaces are dropped.
func TestMessageFilterKeepsNewlineAfterMessage(t *testing.T) {
	t.Parallel()
	a, b := `{"jsonrpc":"2.0","method":"a"}`, `{"jsonrpc":"2.0","method":"b"}`
	f := &messageFilter{r: bufio.NewReader(strings.NewReader(a + "   \t\n" + b + "\n"))}
	got, err := io.ReadAll(f)
	if err != nil || string(got) != a+"\n"+b+"\n" {
		t.Errorf("read %q, %v", got, err)
	}
}

// A long line is logged clipped, and a server that prints many is
// logged only for its first lines.
func TestMessageFilterBoundsTheLog(t *testing.T) {
	t.Parallel()
	var logs bytes.Buffer
	in := strings.Repeat("x", 10*maxSkippedShown) + "\n" + strings.Repeat("noise\n", 3*maxSkippedLogged)
	f := &messageFilter{r: bufio.NewReader(strings.NewReader(in)), log: slog.New(slog.NewTextHandler(&logs, nil))}
	if b, _ := io.ReadAll(f); strings.Trim(string(b), "\n") != "" {
		t.Errorf("passed %q", b)
	}
	if n := strings.Count(logs.String(), "\n"); n != maxSkippedLogged {
		t.Errorf("%d lines logged, want %d", n, maxSkippedLogged)
	}
	if first, _, _ := strings.Cut(logs.String(), "\n"); len(first) > 3*maxSkippedShown || !strings.Contains(first, "…") {
		t.Errorf("the long line is logged as %d bytes: %.80s…", len(first), first)
	}
}

// A stdio server that prints a banner to its stdout before its first
// message still works, through call and through the proxy, and the
// banner is logged.
func TestStdioServerWithBanner(t *testing.T) {
	t.Parallel()
	var logs bytes.Buffer // written before the first message is read, so before Call returns
	up := Upstream{
		Command: []string{"sh", "-c", `echo "Weather server v1 started on stdio"; echo "[info] MCP server ready"; exec "$0"`, testServerBin},
		Log:     slog.New(slog.NewTextHandler(&logs, nil)),
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	res, err := Call(ctx, CallOptions{Upstream: up, Tool: "add", Arguments: json.RawMessage(`{"a":20,"b":22}`), Eliciter: &person{}, Channel: "default"})
	if err != nil {
		t.Fatalf("Call: %v", err)
	}
	if got := res.Content[0].(*mcp.TextContent).Text; got != "42" {
		t.Errorf("add = %q", got)
	}
	for _, banner := range []string{"Weather server v1 started on stdio", "[info] MCP server ready"} {
		if !strings.Contains(logs.String(), banner) {
			t.Errorf("the banner line %q was not logged: %q", banner, logs.String())
		}
	}

	up.Log = nil
	conn, err := up.Dial(ctx)
	if err != nil {
		t.Fatal(err)
	}
	cs, _ := hostThrough(t, ctx, &Proxy{Eliciter: &person{}, Channel: "default"}, conn, nil, nil)
	defer cs.Close()
	res, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "add", Arguments: map[string]any{"a": 2, "b": 3}})
	if err != nil || res.IsError || res.Content[0].(*mcp.TextContent).Text != "5" {
		t.Errorf("add through the proxy: %v %+v", err, res)
	}
}

// watchedPerson is a person on a bridge that counts the widgets open.
type watchedPerson struct {
	*person
	widgets int
}

func (p *watchedPerson) Widgets(string) int { return p.widgets }

// A question asked while no widget is open is logged as a warning that
// says what to do, through call and through the proxy; with a widget
// open, nothing is logged.
func TestWarnWhenNoWidgetIsOpen(t *testing.T) {
	t.Parallel()
	const warning = "no widget is open to answer it"
	for _, widgets := range []int{0, 1} {
		var logs bytes.Buffer // written before the question is answered, so before Call returns
		p := &watchedPerson{person: &person{answer: accepting(map[string]any{"zeta": "Bern", "alpha": 1, "mid": false})}, widgets: widgets}
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		_, err := Call(ctx, CallOptions{
			Upstream: Upstream{Command: []string{testServerBin}}, Tool: "book", Eliciter: p, Channel: "default",
			ProtocolVersion: "2025-11-25", Logger: slog.New(slog.NewTextHandler(&logs, nil)),
		})
		cancel()
		if err != nil {
			t.Fatalf("Call: %v", err)
		}
		if got := strings.Contains(logs.String(), warning); got != (widgets == 0) {
			t.Errorf("call with %d widgets open: warned %v; the log:\n%s", widgets, got, logs.String())
		}
	}

	var logs logbuf.Buffer
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	conn, err := Upstream{Command: []string{testServerBin}}.Dial(ctx)
	if err != nil {
		t.Fatal(err)
	}
	p := &watchedPerson{person: &person{answer: accepting(map[string]any{"zeta": "Bern", "alpha": 1, "mid": false})}}
	cs, _ := hostThrough(t, ctx, &Proxy{Eliciter: p, Channel: "default", Logger: slog.New(slog.NewTextHandler(&logs, nil))}, conn, nil, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	defer cs.Close()
	callText(t, cs, "book")
	if !strings.Contains(logs.String(), warning) {
		t.Errorf("the proxy did not warn with no widget open; the log:\n%s", logs.String())
	}
}

// A server that exits with a failure ends the connection with its exit
// status, not a bare EOF; one that exits cleanly, with EOF.
func TestStdioServerExitStatus(t *testing.T) {
	for _, tt := range []struct {
		script string
		want   string // in the error; "" for io.EOF
	}{
		{"echo oops >&2; exit 3", "exit status 3"},
		{"exit 0", ""},
	} {
		conn, err := Upstream{Command: []string{"sh", "-c", tt.script}, Stderr: io.Discard}.Dial(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		_, err = conn.Read(t.Context())
		switch {
		case tt.want == "" && !errors.Is(err, io.EOF) && !errors.Is(err, mcp.ErrConnectionClosed):
			t.Errorf("%q: read %v; want the end of the output", tt.script, err)
		case tt.want != "" && (!errors.Is(err, ErrServerExited) || !strings.Contains(err.Error(), tt.want)):
			t.Errorf("%q: read %v; want ErrServerExited with %q", tt.script, err, tt.want)
		}
		conn.Close()
	}
}
