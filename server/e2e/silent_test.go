package e2e

import (
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/formbridge/formbridge/app/wire"
)

// silencer relays TCP on loopback to the bridge until silence: from then
// on the connections it holds carry nothing either way and stay open,
// as when a laptop sleeps or a NAT forgets them; new ones relay again.
type silencer struct {
	ln     net.Listener
	target string

	mu     sync.Mutex
	silent bool
	conns  []net.Conn
	old    map[net.Conn]bool // connections made before silence
}

func newSilencer(t *testing.T, bridgeURL string) *silencer {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := &silencer{ln: ln, target: strings.TrimPrefix(bridgeURL, "http://"), old: map[net.Conn]bool{}}
	go s.accept()
	t.Cleanup(func() {
		ln.Close()
		s.mu.Lock()
		defer s.mu.Unlock()
		for _, c := range s.conns {
			c.Close()
		}
	})
	return s
}

func (s *silencer) URL() string { return "http://" + s.ln.Addr().String() }

// silence stops every connection open now, without closing it.
func (s *silencer) silence() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, c := range s.conns {
		s.old[c] = true
	}
}

func (s *silencer) accept() {
	for {
		c, err := s.ln.Accept()
		if err != nil {
			return
		}
		u, err := net.Dial("tcp", s.target)
		if err != nil {
			c.Close()
			continue
		}
		s.mu.Lock()
		s.conns = append(s.conns, c, u)
		s.mu.Unlock()
		go s.relay(c, u)
		go s.relay(u, c)
	}
}

// relay copies from to to until either ends, dropping what comes once
// from has been silenced.
func (s *silencer) relay(from, to net.Conn) {
	buf := make([]byte, 32<<10)
	for {
		n, err := from.Read(buf)
		s.mu.Lock()
		silent := s.old[from]
		s.mu.Unlock()
		if silent {
			if err != nil {
				return // the other side stays open, and silent
			}
			continue
		}
		if n > 0 {
			if _, werr := to.Write(buf[:n]); werr != nil {
				return
			}
		}
		if err != nil {
			to.Close()
			return
		}
	}
}

// A connection that goes silent, with no close and no error, is noticed
// by the bridge's heartbeat stopping: the widget drops it and connects
// again. An answer sent into the silence is lost; when the bridge sends
// its request again, the widget sends the answer again by itself, and
// the caller gets it. (In the browser a close with the wrong code, or
// one waiting for the dead bridge's close frame, left the widget
// "Connected" for good; and a request sent again used to drop the
// answer without a word.)
func TestSilentConnectionNoticed(t *testing.T) {
	b := StartBridge(t, nil)
	px := newSilencer(t, b.URL)
	ctx := NewBrowser(t)
	do(t, ctx, "open the widget through the relay",
		chromedp.Navigate(px.URL()+"/#token="+b.Token),
		chromedp.WaitVisible(chromedp.CSS(`[data-connection="online"]`)),
	)
	out := b.Elicit(t, noteQuestion, nil)
	waitForm(t, ctx)
	do(t, ctx, "type", chromedp.SendKeys(field("note", "textarea, input"), "ok"))
	before := b.Upgrades()
	px.silence()
	silenced := time.Now()
	do(t, ctx, "send into the silence", chromedp.Click(action("accept")))
	noResultYet(t, out, "the answer sent into a silent connection")
	// The heartbeat lapses after wire.HeartbeatTimeout; the reconnect's
	// backoff adds a second or so, and the answer goes again.
	select {
	case o := <-out:
		if o.Err != nil || o.Result.Action != "accept" || o.Result.Content["note"] != "ok" {
			t.Errorf("outcome = %+v", o)
		}
	case <-time.After(wire.HeartbeatTimeout + 15*time.Second):
		t.Fatalf("no result %v after the connection went silent; the page shows:\n%s", time.Since(silenced), eval[string](t, ctx, `document.body.innerText`))
	}
	if b.Upgrades() <= before {
		t.Error("the answer arrived without a new connection")
	}
	waitJS(t, ctx, "the answer's notice", `document.querySelector("[data-outcome=answered]") !== null`)
}
