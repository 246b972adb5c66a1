package mcpbridge

import (
	"bytes"
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/formbridge/formbridge/app/wire"
	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"golang.org/x/tools/txtar"
)

// The proxy's wire behaviour as transcripts (testdata/proxy-*.txtar): the
// test plays the host and the upstream, message by message, and checks
// what the proxy sends each side. Sections, in order:
//
//	host         lines the host sends the proxy
//	upstream     lines the upstream sends the proxy
//	to-upstream  lines the proxy must send the upstream next
//	to-host      lines the proxy must send the host next
//	to-person    {"requester":…,"params":…} the person must be shown next
//
// The archive's comment may hold `person: <ElicitResult JSON>`, the
// answer the person gives every time, `person: wait` for a person who
// never answers, or `person-error: <wire.Error JSON>` for an Eliciter
// that refuses every request. Messages compare as JSON values.
func TestProxyTranscripts(t *testing.T) {
	files, err := filepath.Glob("testdata/proxy-*.txtar")
	if err != nil || len(files) == 0 {
		t.Fatalf("no transcripts: %v", err)
	}
	for _, file := range files {
		t.Run(strings.TrimSuffix(filepath.Base(file), ".txtar"), func(t *testing.T) {
			t.Parallel()
			ar, err := txtar.ParseFile(file)
			if err != nil {
				t.Fatal(err)
			}
			runTranscript(t, ar)
		})
	}
}

func runTranscript(t *testing.T, ar *txtar.Archive) {
	answer := wire.ElicitResult{Action: wire.ActionAccept}
	var refusal *wire.Error
	wait := false
	for _, line := range strings.Split(string(ar.Comment), "\n") {
		if rest, ok := strings.CutPrefix(line, "person-error: "); ok {
			refusal = &wire.Error{}
			if err := json.Unmarshal([]byte(rest), refusal); err != nil {
				t.Fatalf("person-error line: %v", err)
			}
		} else if line == "person: wait" {
			wait = true
		} else if rest, ok := strings.CutPrefix(line, "person: "); ok {
			if err := json.Unmarshal([]byte(rest), &answer); err != nil {
				t.Fatalf("person line: %v", err)
			}
		}
	}
	p := &person{answer: func(ctx context.Context, _ wire.ElicitParams) (*wire.ElicitResult, error) {
		switch {
		case refusal != nil:
			return nil, refusal
		case wait:
			<-ctx.Done()
			return nil, ctx.Err()
		}
		a := answer
		return &a, nil
	}}
	ctx, cancel := context.WithTimeout(context.Background(), 2*patience)
	defer cancel()
	hostEnd, proxyHost := connPair(t, ctx)
	upEnd, proxyUp := connPair(t, ctx)
	done := make(chan error, 1)
	go func() { done <- (&Proxy{Eliciter: p, Channel: "default"}).Serve(ctx, proxyHost, proxyUp) }()
	defer func() {
		hostEnd.Close()
		select {
		case <-done:
		case <-time.After(patience):
			t.Error("Serve did not end after the host left")
		}
	}()

	shown := 0
	for _, f := range ar.Files {
		for _, line := range strings.Split(strings.TrimSpace(string(f.Data)), "\n") {
			if line = strings.TrimSpace(line); line == "" {
				continue
			}
			switch f.Name {
			case "host":
				send(t, ctx, hostEnd, line)
			case "upstream":
				send(t, ctx, upEnd, line)
			case "to-upstream":
				expect(t, ctx, upEnd, "upstream", line)
			case "to-host":
				expect(t, ctx, hostEnd, "host", line)
			case "to-person":
				waitFor(t, "the person to be asked", func() bool { return len(p.seen()) > shown })
				s := p.seen()[shown]
				shown++
				got, _ := json.Marshal(map[string]any{"requester": s.Requester, "params": s.Params})
				sameJSON(t, "shown to the person", line, string(got))
			default:
				t.Fatalf("unknown section %q", f.Name)
			}
		}
	}
}

func connPair(t *testing.T, ctx context.Context) (mine, theirs mcp.Connection) {
	t.Helper()
	a, b := mcp.NewInMemoryTransports()
	mine, err := a.Connect(ctx)
	if err != nil {
		t.Fatal(err)
	}
	theirs, err = b.Connect(ctx)
	if err != nil {
		t.Fatal(err)
	}
	return mine, theirs
}

func send(t *testing.T, ctx context.Context, c mcp.Connection, line string) {
	t.Helper()
	msg, err := jsonrpc.DecodeMessage([]byte(line))
	if err != nil {
		t.Fatalf("bad transcript line %s: %v", line, err)
	}
	if err := c.Write(ctx, msg); err != nil {
		t.Fatalf("send %s: %v", line, err)
	}
}

func expect(t *testing.T, ctx context.Context, c mcp.Connection, side, want string) {
	t.Helper()
	rctx, cancel := context.WithTimeout(ctx, patience)
	defer cancel()
	msg, err := c.Read(rctx)
	if err != nil {
		t.Fatalf("the %s got nothing (%v), want %s", side, err, want)
	}
	got, err := jsonrpc.EncodeMessage(msg)
	if err != nil {
		t.Fatal(err)
	}
	sameJSON(t, "sent to the "+side, want, string(got))
}

func sameJSON(t *testing.T, what, want, got string) {
	t.Helper()
	var w, g any
	if err := json.Unmarshal([]byte(want), &w); err != nil {
		t.Fatalf("bad transcript JSON %s: %v", want, err)
	}
	if err := json.Unmarshal([]byte(got), &g); err != nil {
		t.Fatalf("%s is not JSON: %s", what, got)
	}
	if diff := cmp.Diff(w, g); diff != "" {
		var pretty bytes.Buffer
		json.Indent(&pretty, []byte(got), "", "  ")
		t.Fatalf("%s differs (-transcript +proxy):\n%s\ngot: %s", what, diff, pretty.String())
	}
}
