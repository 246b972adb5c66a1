package gateway_test

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/google/go-cmp/cmp"
	"golang.org/x/tools/txtar"

	"github.com/formbridge/formbridge/server/hub"
)

var update = flag.Bool("update", false, "rewrite testdata/protocol.txtar from what the bridge does now")

const goldenFile = "testdata/protocol.txtar"

// transcript records a protocol exchange as lines a reviewer can read:
//
//	A> frame      widget A sent a frame
//	A< frame      widget A received a frame
//	A< close N reason
//	caller> ...   an MCP server asked (Hub.Elicit), or completed
//	caller< ...   what Elicit returned
//
// Request ids and times are replaced by stable stand-ins (req-1, <time>).
type transcript struct {
	t     *testing.T
	b     *bridge
	lines []string
	ids   map[string]string
}

type peer struct {
	tr   *transcript
	name string
	c    *client
}

func (tr *transcript) add(format string, args ...any) {
	tr.lines = append(tr.lines, tr.normalize(fmt.Sprintf(format, args...)))
}

var (
	idPattern   = regexp.MustCompile(`"[a-z2-7]{6}-[0-9a-z]+"`)
	timePattern = regexp.MustCompile(`\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z`)
)

func (tr *transcript) normalize(s string) string {
	s = idPattern.ReplaceAllStringFunc(s, func(id string) string {
		if tr.ids[id] == "" {
			tr.ids[id] = fmt.Sprintf(`"req-%d"`, len(tr.ids)+1)
		}
		return tr.ids[id]
	})
	return timePattern.ReplaceAllString(s, "<time>")
}

// realID maps a stand-in back to the bridge's id, for answers.
func (tr *transcript) realID(standIn string) string {
	for real, s := range tr.ids {
		if s == `"`+standIn+`"` {
			return strings.Trim(real, `"`)
		}
	}
	tr.t.Fatalf("no request %s yet", standIn)
	return ""
}

func (tr *transcript) widget(name string) *peer {
	return &peer{tr: tr, name: name, c: dial(tr.t, tr.b)}
}

// send sends a frame; "req-N" in it stands for the bridge's id.
func (p *peer) send(frame string) {
	p.tr.t.Helper()
	p.tr.add("%s> %s", p.name, frame)
	frame = regexp.MustCompile(`"req-\d+"`).ReplaceAllStringFunc(frame, func(s string) string {
		return `"` + p.tr.realID(strings.Trim(s, `"`)) + `"`
	})
	p.c.send(frame)
}

func (p *peer) recv() {
	p.tr.t.Helper()
	b, err := p.c.recvRaw()
	if err != nil {
		p.tr.t.Fatalf("%s: read: %v", p.name, err)
	}
	p.tr.add("%s< %s", p.name, b)
}

func (p *peer) closed() {
	p.tr.t.Helper()
	for {
		b, err := p.c.recvRaw()
		if err != nil {
			var ce websocket.CloseError
			if !errorsAs(err, &ce) {
				p.tr.t.Fatalf("%s: %v; want a close frame", p.name, err)
			}
			p.tr.add("%s< close %d %s", p.name, ce.Code, ce.Reason)
			return
		}
		p.tr.add("%s< %s", p.name, b)
	}
}

func (p *peer) hello(url bool) {
	caps := `{"form":{}}`
	if url {
		caps = `{"form":{},"url":{}}`
	}
	p.send(`{"jsonrpc":"2.0","id":1,"method":"formbridge/hello","params":{"token":"` + token + `","clientInfo":{"name":"widget","version":"1.0.0"},"capabilities":{"elicitation":` + caps + `}}}`)
	p.recv()
}

// ask starts Elicit as an MCP server would.
func (tr *transcript) ask(ctx context.Context, params string, timeout time.Duration) *call {
	tr.add("caller> elicit %s", params)
	return elicitAsync(ctx, tr.b.h, params, &hub.ElicitOptions{Timeout: timeout})
}

func (tr *transcript) result(c *call) {
	tr.t.Helper()
	res, err := c.wait(tr.t)
	if err != nil {
		tr.add("caller< error %v", err)
		return
	}
	b, _ := json.Marshal(res)
	tr.add("caller< %s", b)
}

// scenarios are the protocol's stories, in the order docs/PROTOCOL.md tells them.
var scenarios = []struct {
	name string
	opts *bridgeOptions
	run  func(tr *transcript)
}{
	{"hello", nil, func(tr *transcript) {
		tr.widget("A").hello(true)
	}},
	{"hello-refused", nil, func(tr *transcript) {
		a := tr.widget("A")
		a.send(`{"jsonrpc":"2.0","id":1,"method":"formbridge/hello","params":{"token":"not-the-token","clientInfo":{"name":"widget"},"capabilities":{}}}`)
		a.closed()
	}},
	{"hello-timeout", &bridgeOptions{hello: 50 * time.Millisecond}, func(tr *transcript) {
		a := tr.widget("A")
		tr.add("A> (says nothing)")
		a.closed()
	}},
	{"too-many-widgets", &bridgeOptions{hub: hub.Options{MaxWidgets: 1}}, func(tr *transcript) {
		tr.widget("A").hello(false)
		b := tr.widget("B")
		b.hello(false)
		b.closed()
	}},
	{"form-answered", nil, func(tr *transcript) {
		a, b := tr.widget("A"), tr.widget("B")
		a.hello(false)
		b.hello(false)
		c := tr.ask(tr.t.Context(), `{"message":"Who should we invite?","requestedSchema":{"type":"object","properties":{"email":{"type":"string","format":"email","title":"Email"},"guests":{"type":"integer","minimum":0,"maximum":5,"default":1}},"required":["email"]},"_meta":{"example.com/trace":"t-1"}}`, 0)
		a.recv()
		b.recv()
		a.send(`{"jsonrpc":"2.0","id":"req-1","result":{"action":"accept","content":{"email":"not an email","guests":9}}}`)
		a.recv()
		a.send(`{"jsonrpc":"2.0","id":"req-1","result":{"action":"accept","content":{"email":"ada@example.com","guests":2}}}`)
		a.recv()
		b.recv()
		tr.result(c)
		b.send(`{"jsonrpc":"2.0","id":"req-1","result":{"action":"decline"}}`)
		b.recv()
	}},
	{"declined", nil, func(tr *transcript) {
		a := tr.widget("A")
		a.hello(false)
		c := tr.ask(tr.t.Context(), `{"message":"Delete the staging database?","requestedSchema":{"type":"object","properties":{"confirm":{"type":"boolean","title":"Yes, delete it"}},"required":["confirm"]}}`, 0)
		a.recv()
		a.send(`{"jsonrpc":"2.0","id":"req-1","result":{"action":"decline","content":{"confirm":false}}}`)
		a.recv()
		tr.result(c)
	}},
	{"sensitive", nil, func(tr *transcript) {
		a := tr.widget("A")
		a.hello(false)
		c := tr.ask(tr.t.Context(), `{"message":"Sign in to the CRM","requestedSchema":{"type":"object","properties":{"user":{"type":"string","title":"User name"},"password":{"type":"string"},"teams":{"type":"array","items":{"enum":["sales","support"]},"default":["support"]}},"required":["user"]}}`, 0)
		a.recv()
		a.send(`{"jsonrpc":"2.0","id":"req-1","result":{"action":"decline"}}`)
		a.recv()
		tr.result(c)
	}},
	{"cancelled-by-server", nil, func(tr *transcript) {
		a := tr.widget("A")
		a.hello(false)
		ctx, cancel := context.WithCancel(tr.t.Context())
		c := tr.ask(ctx, `{"message":"Pick a record","requestedSchema":{"type":"object","properties":{"id":{"type":"string","oneOf":[{"const":"c-1","title":"Ada Lovelace"},{"const":"c-2","title":"Alan Turing"}]}}}}`, 0)
		a.recv()
		cancel()
		tr.add("caller> (gives up)")
		a.recv()
		tr.result(c)
	}},
	{"expired", nil, func(tr *transcript) {
		a := tr.widget("A")
		a.hello(false)
		c := tr.ask(tr.t.Context(), `{"message":"Approve the invoice?","requestedSchema":{"type":"object","properties":{}}}`, 50*time.Millisecond)
		a.recv()
		a.recv()
		tr.result(c)
	}},
	{"reconnect", nil, func(tr *transcript) {
		a := tr.widget("A")
		a.hello(false)
		c := tr.ask(tr.t.Context(), `{"message":"Your name?","requestedSchema":{"type":"object","properties":{"name":{"type":"string"}}}}`, 0)
		a.recv()
		a.c.c.Close(websocket.StatusGoingAway, "")
		tr.add("A> (connection lost)")
		again := tr.widget("A2")
		again.hello(false)
		again.recv()
		again.send(`{"jsonrpc":"2.0","id":"req-1","result":{"action":"accept","content":{"name":"Ada"}}}`)
		again.recv()
		tr.result(c)
	}},
	{"url-mode", nil, func(tr *transcript) {
		a := tr.widget("A")
		a.hello(true)
		c := tr.ask(tr.t.Context(), `{"mode":"url","message":"Connect your calendar","elicitationId":"cal-7","url":"https://calendar.example.com/oauth?state=xyz"}`, 0)
		a.recv()
		a.send(`{"jsonrpc":"2.0","id":"req-1","result":{"action":"accept"}}`)
		a.recv()
		tr.result(c)
		tr.add("caller> complete cal-7")
		tr.b.h.Complete(hub.DefaultChannel, "cal-7")
		a.recv()
	}},
	{"errors", nil, func(tr *transcript) {
		a := tr.widget("A")
		a.hello(false)
		a.send(`{"jsonrpc":`)
		a.recv()
		a.send(`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`)
		a.recv()
		a.send(`{"jsonrpc":"2.0","id":"gone","result":{"action":"cancel"}}`)
		a.recv()
		a.recv()
		a.send(`{"jsonrpc":"2.0","id":"gone","result":{"action":"later"}}`)
		a.recv()
	}},
	{"heartbeat", &bridgeOptions{heartbeat: 30 * time.Millisecond}, func(tr *transcript) {
		a := tr.widget("A")
		a.hello(false)
		a.recv()
	}},
	{"shutdown", nil, func(tr *transcript) {
		a := tr.widget("A")
		a.hello(false)
		c := tr.ask(tr.t.Context(), `{"message":"Ship it?","requestedSchema":{"type":"object","properties":{}}}`, 0)
		a.recv()
		tr.add("bridge: (shuts down)")
		tr.b.h.Close()
		tr.result(c)
		a.closed()
	}},
}

// TestTranscripts checks the wire protocol against the golden
// transcripts. Run with -update to rewrite them after a deliberate change,
// and review the diff as a change to a public contract.
func TestTranscripts(t *testing.T) {
	data, err := os.ReadFile(goldenFile)
	if err != nil && !*update {
		t.Fatal(err)
	}
	golden := txtar.Parse(data)
	want := map[string]string{}
	for _, f := range golden.Files {
		want[f.Name] = string(f.Data)
	}
	out := &txtar.Archive{Comment: []byte(goldenComment)}
	for _, sc := range scenarios {
		t.Run(sc.name, func(t *testing.T) {
			tr := &transcript{t: t, b: start(t, sc.opts), ids: map[string]string{}}
			sc.run(tr)
			got := strings.Join(tr.lines, "\n") + "\n"
			out.Files = append(out.Files, txtar.File{Name: sc.name, Data: []byte(got)})
			if *update {
				return
			}
			if diff := cmp.Diff(want[sc.name], got); diff != "" {
				t.Errorf("transcript %s differs from %s (-want +got); rerun with -update if the change is deliberate:\n%s", sc.name, goldenFile, diff)
			}
		})
	}
	if *update {
		if err := os.WriteFile(goldenFile, txtar.Format(out), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

const goldenComment = `Golden transcripts of formbridge.v1, the widget <-> bridge protocol.
Generated by TestTranscripts (go test ./server/gateway -run Transcripts -update);
docs/PROTOCOL.md explains them.

  A> frame          widget A sent it
  A< frame          widget A received it
  A< close N why    the bridge closed the WebSocket
  caller> / caller< an MCP server calling the hub, and what it got back

Request ids are shown as "req-N" and times as <time>.
`
