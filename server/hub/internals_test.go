package hub

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"hash/maphash"
	"slices"
	"strconv"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/formbridge/formbridge/app/elicit"
	"github.com/formbridge/formbridge/app/wire"
)

func TestRecentRing(t *testing.T) {
	var r recentRing
	won := wire.ElicitResult{Action: wire.ActionAccept, Content: map[string]any{"name": "Ada", "n": 1.0}}
	r.add("a", wire.OutcomeAnsweredElsewhere, wire.ActionAccept, won, true)
	r.add("b", wire.OutcomeExpired, "", cancelResult, false)
	tests := []struct {
		name, id                string
		res                     wire.ElicitResult
		wantOutcome, wantAction string
		ok                      bool
	}{
		{"same answer again", "a", wire.ElicitResult{Action: wire.ActionAccept, Content: map[string]any{"n": 1.0, "name": "Ada"}}, wire.OutcomeAnswered, "", true},
		{"another answer", "a", wire.ElicitResult{Action: wire.ActionDecline}, wire.OutcomeAnsweredElsewhere, wire.ActionAccept, true},
		{"expired", "b", won, wire.OutcomeExpired, "", true},
		{"unknown", "c", won, "", "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			outcome, action, ok := r.lookup(tt.id, tt.res)
			if outcome != tt.wantOutcome || action != tt.wantAction || ok != tt.ok {
				t.Errorf("lookup = %q, %q, %v; want %q, %q, %v", outcome, action, ok, tt.wantOutcome, tt.wantAction, tt.ok)
			}
		})
	}
	// It keeps the last maxRecent and forgets the oldest.
	for i := range maxRecent {
		r.add(fmt.Sprint("x", i), wire.OutcomeCancelled, "", cancelResult, false)
	}
	if _, _, ok := r.lookup("a", won); ok {
		t.Error("the oldest entry survived a full turn of the ring")
	}
	if got, _, ok := r.lookup(fmt.Sprint("x", maxRecent-1), won); !ok || got != wire.OutcomeCancelled {
		t.Errorf("the newest entry: %q, %v", got, ok)
	}
	if len(r.entries) != maxRecent {
		t.Errorf("%d entries; want at most %d", len(r.entries), maxRecent)
	}
	// Past the first turn it goes on replacing the oldest, one slot after
	// another: every one of the last maxRecent is kept.
	for i := range maxRecent {
		if _, _, ok := r.lookup(fmt.Sprint("x", i), won); !ok {
			t.Errorf("x%d, among the last %d settled, was forgotten", i, maxRecent)
		}
	}
	if _, _, ok := r.lookup("b", won); ok {
		t.Error("the second oldest entry survived a full turn of the ring")
	}
}

func TestTrackURLBounded(t *testing.T) {
	c := &channel{urls: map[string]*urlState{}}
	for i := range maxURLs + 10 {
		c.trackURL(fmt.Sprint("e", i))
	}
	if len(c.urls) != maxURLs {
		t.Errorf("%d ids remembered; want %d", len(c.urls), maxURLs)
	}
	for i := range 10 {
		if c.urls[fmt.Sprint("e", i)] != nil {
			t.Errorf("e%d, among the oldest, is still remembered", i)
		}
	}
	if c.urls[fmt.Sprint("e", maxURLs+9)] == nil {
		t.Error("the newest id was forgotten")
	}
}

func TestBucket(t *testing.T) {
	var b bucket
	now := testTime
	for i := range 3 {
		if _, ok := b.take(now, 3); !ok {
			t.Fatalf("request %d of a full bucket refused", i)
		}
	}
	wait, ok := b.take(now, 3)
	if ok || wait != 20e9 {
		t.Errorf("empty bucket: wait %v, %v; want 20s, refused", wait, ok)
	}
	if _, ok := b.take(now.Add(20e9), 3); !ok {
		t.Error("refused after a third of a minute refilled one")
	}
	if _, ok := b.take(now.Add(20e9), 3); ok {
		t.Error("a refill of one allowed two")
	}
	// A long pause refills only up to the capacity.
	later := now.Add(3600e9)
	for i := range 4 {
		_, ok := b.take(later, 3)
		if ok != (i < 3) {
			t.Errorf("after an hour, request %d: allowed %v", i, ok)
		}
	}
}

var testTime = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

// The view is computed once per params text, not per request or send:
// requests with the same params share it.
func TestParsedShared(t *testing.T) {
	pc := parseCache{seed: maphash.MakeSeed()}
	params := []byte(`{"message":"m","requestedSchema":{"type":"object","properties":{"pin":{"type":"string"}}}}`)
	a, err := pc.parse(params)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := pc.parse(append([]byte(nil), params...))
	if a != b {
		t.Error("the same params were parsed twice")
	}
	if !strings.HasPrefix(string(a.view), `"form":{"fields":[{"key":"pin"`) || !strings.Contains(string(a.view), `"sensitive":[{"field":"pin"`) {
		t.Errorf("view %s", a.view)
	}
	if pc.bytes != len(params)+len(a.view) {
		t.Errorf("the cache counts %d bytes; want params and view, %d", pc.bytes, len(params)+len(a.view))
	}
}

// The largest frames: the view repeats each choice as {value, title} and
// each title as the label, and writes a control character as six bytes,
// so the worst schemas the parser takes are the most choices it allows,
// or its largest text made of control characters. Each must still make a
// frame a widget reads (wire.MaxFrameBytes).
func TestLargestViewFits(t *testing.T) {
	var choices []string
	for f := 0; f*elicit.MaxOptions < elicit.MaxFormOptions; f++ {
		enum := make([]string, elicit.MaxOptions)
		for i := range enum {
			enum[i] = strconv.Quote(strconv.FormatInt(int64(i), 36))
		}
		choices = append(choices, fmt.Sprintf(`"f%d":{"type":"array","items":{"enum":[%s]}}`, f, strings.Join(enum, ",")))
	}
	var texts []string
	title := strings.Repeat(`\u0001`, elicit.MaxTextRunes)
	for f := 0; f < elicit.MaxProperties; f++ {
		p := fmt.Sprintf(`"t%d":{"type":"string","title":"%s","description":"%s"}`, f, title, title)
		if len(strings.Join(append(texts, p), ",")) > elicit.MaxSchemaBytes-100 {
			break
		}
		texts = append(texts, p)
	}
	for _, props := range [][]string{choices, texts} {
		params := `{"message":"m","requestedSchema":{"type":"object","properties":{` + strings.Join(props, ",") + `}}}`
		p, err := parseRequest([]byte(params))
		if err != nil {
			t.Fatal(err)
		}
		st := &stamp{requester: wire.Implementation{Name: strings.Repeat("\x01", maxRequesterText), Title: strings.Repeat("\x01", maxRequesterText), Version: strings.Repeat("\x01", maxRequesterText)}}
		frame, err := encodeCreate("abcdef-zzzzzzzzzzzz", json.RawMessage(params), st, p.view)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("%d fields: params %d bytes, view %d, frame %d", len(props), len(params), len(p.view), len(frame))
		if len(frame) > wire.MaxFrameBytes || len(params)+len(p.view) > wire.MaxFrameBytes-maxStampBytes {
			t.Errorf("frame of %d bytes; a widget reads at most %d", len(frame), wire.MaxFrameBytes)
		}
	}
}

// A form's compiled patterns count in what the hub holds: a form whose
// text is small but whose patterns compile large is refused where the
// same form without them is taken.
func TestHeldBytesCountPatterns(t *testing.T) {
	plain := json.RawMessage(`{"message":"m","requestedSchema":{"type":"object","properties":{"name":{"type":"string"}}}}`)
	patterned := json.RawMessage(`{"message":"m","requestedSchema":{"type":"object","properties":{"name":{"type":"string","pattern":"^[\\p{L}\\p{N} '-]+$"}}}}`)
	pp, err := parseRequest(patterned)
	if err != nil {
		t.Fatal(err)
	}
	if pp.patternBytes < 20<<10 {
		t.Fatalf("the pattern counts %d bytes; it compiles to over 20 KB", pp.patternBytes)
	}
	h := New(&Options{MaxHeldBytes: 8 << 10})
	defer h.Close()
	ask := func(params json.RawMessage) error {
		errc := make(chan error, 1)
		h.Submit(t.Context(), DefaultChannel, wire.Implementation{Name: "t"}, params, nil, func(_ *wire.ElicitResult, err error) { errc <- err })
		select {
		case err := <-errc:
			return err
		case <-time.After(100 * time.Millisecond):
			return nil // pending
		}
	}
	var werr *wire.Error
	if err := ask(patterned); !errors.As(err, &werr) || werr.Code != wire.CodeTooManyPending {
		t.Errorf("a form whose pattern compiles past MaxHeldBytes: %v; want -32000", err)
	}
	if err := ask(plain); err != nil {
		t.Errorf("the same form without the pattern: %v; want it pending", err)
	}
}

const nameFormParams = `{"message":"m","requestedSchema":{"type":"object","properties":{"name":{"type":"string"}}}}`

// The parse cache holds at most maxCachedBytes, compiled patterns
// included: a parse that alone would pass it is used, not kept.
func TestParseCacheBound(t *testing.T) {
	var props []string
	for i := range 6 {
		props = append(props, fmt.Sprintf(`"f%d":{"type":"string","pattern":"^[\\p{L}\\p{N}]{1,12}$"}`, i))
	}
	heavy := []byte(`{"message":"m","requestedSchema":{"type":"object","properties":{` + strings.Join(props, ",") + `}}}`)
	pc := parseCache{seed: maphash.MakeSeed()}
	p, err := pc.parse(heavy)
	if err != nil {
		t.Fatal(err)
	}
	if p.patternBytes <= maxCachedBytes {
		t.Fatalf("the heavy form counts %d bytes; the case needs more than %d", p.patternBytes, maxCachedBytes)
	}
	if pc.bytes != 0 || len(pc.entries) != 0 {
		t.Errorf("kept %d entries of %d bytes; a parse past the cache's bound is not kept", len(pc.entries), pc.bytes)
	}
	if _, err := pc.parse([]byte(nameFormParams)); err != nil || len(pc.entries) != 1 || pc.bytes > maxCachedBytes {
		t.Errorf("a small parse: %v, %d entries of %d bytes; want it kept", err, len(pc.entries), pc.bytes)
	}
}

// heldSize is what a request with params holds of MaxHeldBytes while it
// is pending: its params and the reading sent with them.
func heldSize(t *testing.T, params json.RawMessage) int64 {
	t.Helper()
	p, err := parseRequest(params)
	if err != nil {
		t.Fatal(err)
	}
	return int64(len(params) + len(p.view))
}

// MaxHeldBytes bounds the requests pending on all channels together: a
// request that would pass it is refused with -32000 on any channel, and
// every way a request ends gives its bytes back.
func TestHeldBytesLimit(t *testing.T) {
	params := json.RawMessage(nameFormParams)
	size := heldSize(t, params)
	h := New(&Options{MaxHeldBytes: 2 * size})
	defer h.Close()
	other, err := h.CreateChannel("other")
	if err != nil {
		t.Fatal(err)
	}
	ask := func(ctx context.Context, channel string) error {
		errc := make(chan error, 1)
		h.Submit(ctx, channel, wire.Implementation{Name: "t"}, params, nil, func(_ *wire.ElicitResult, err error) { errc <- err })
		select {
		case err := <-errc:
			return err
		case <-time.After(100 * time.Millisecond):
			return nil // pending
		}
	}
	ctx, cancel := context.WithCancel(t.Context())
	if err := ask(ctx, "default"); err != nil {
		t.Fatal(err)
	}
	if err := ask(ctx, other.Name); err != nil {
		t.Fatal(err)
	}
	var werr *wire.Error
	if err := ask(t.Context(), "default"); !errors.As(err, &werr) || werr.Code != wire.CodeTooManyPending || !strings.Contains(werr.Message, "all channels") {
		t.Fatalf("a third request, past the bytes held: %v; want -32000", err)
	}
	if got := h.held.Load(); got != 2*size {
		t.Errorf("held %d bytes; want %d", got, 2*size)
	}
	cancel() // both callers leave: their requests settle
	deadline := time.Now().Add(5 * time.Second)
	for h.held.Load() != 0 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if got := h.held.Load(); got != 0 {
		t.Fatalf("held %d bytes after every request ended; want 0", got)
	}
	if err := ask(t.Context(), "default"); err != nil {
		t.Errorf("refused once the bytes were given back: %v", err)
	}
}

// A timer already due is not counted on when a request arrives: it may
// be one of a testing/synctest bubble that ended, which never fires, and
// the due request would then wait for the new one's deadline.
func TestExpiryDueTimerNotCountedOn(t *testing.T) {
	h := New(nil)
	defer h.Close()
	h.mu.Lock()
	c := h.addChannelLocked("t", "secret")
	h.mu.Unlock()
	c.mu.Lock()
	defer c.mu.Unlock()
	// Deadlines an hour away, so that no timer fires during the test;
	// now is passed in, as if that hour had passed.
	first := h.clock(time.Now()) + int64(time.Hour)
	c.pushExpiry(&request{deadline: first}, first-1)
	c.pushExpiry(&request{deadline: first + int64(time.Hour)}, first+1)
	if n := countTimers(c, first); n != 2 {
		t.Errorf("%d timers for the due request's deadline; want 2 (the due one, and another that fires at once)", n)
	}
	if n := countTimers(c, first+int64(time.Hour)); n != 0 {
		t.Errorf("%d timers for the later request; want none until the due one has expired", n)
	}
}

// With one request waiting a day, each short one that expires must not
// leave a timer for that day behind: the channel's timers stay few.
func TestExpiryTimersDoNotPileUp(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := New(&Options{RatePerMinute: 1 << 20})
		defer h.Close()
		submit := func(timeout time.Duration, done func()) {
			h.Submit(context.Background(), "default", wire.Implementation{Name: "test"}, json.RawMessage(nameFormParams),
				&ElicitOptions{Timeout: timeout}, func(res *wire.ElicitResult, err error) {
					if err != nil || res.Action != wire.ActionCancel {
						t.Errorf("result %+v, %v; want an expiry's cancel", res, err)
					}
					done()
				})
		}
		submit(24*time.Hour, func() {})
		c, err := h.channel("default")
		if err != nil {
			t.Fatal(err)
		}
		most := 0
		for range 200 {
			expired := false
			submit(time.Millisecond, func() { expired = true })
			time.Sleep(2 * time.Millisecond)
			synctest.Wait()
			if !expired {
				t.Fatal("a 1 ms request did not expire in 2 ms")
			}
			c.mu.Lock()
			most = max(most, len(c.timers))
			c.mu.Unlock()
		}
		if most > 2 {
			t.Errorf("up to %d expiry timers waiting with two requests at most pending; want at most 2", most)
		}
	})
}

func countTimers(c *channel, at int64) int {
	n := 0
	for _, t := range c.timers {
		if t == at {
			n++
		}
	}
	return n
}

// A request refused by the rate limit gives back the bytes admit counted
// for it: refusals must not fill MaxHeldBytes.
func TestRateLimitedHoldsNoBytes(t *testing.T) {
	params := json.RawMessage(nameFormParams)
	size := heldSize(t, params)
	h := New(&Options{RatePerMinute: 1})
	defer h.Close()
	var refused int
	for range 3 {
		h.Submit(t.Context(), "default", wire.Implementation{Name: "t"}, params, nil, func(_ *wire.ElicitResult, err error) {
			var werr *wire.Error
			if errors.As(err, &werr) && werr.Code == wire.CodeRateLimited {
				refused++ // a refusal calls back before Submit returns
			}
		})
	}
	if refused != 2 {
		t.Fatalf("%d of 3 requests refused by a rate of 1 a minute; want 2", refused)
	}
	if got := h.held.Load(); got != size {
		t.Errorf("held %d bytes; want %d, the pending request's only", got, size)
	}
}

// A timer that fires leaves the channel's list of timers not fired yet,
// wherever it stands in it: once every request has expired, none is left.
func TestExpiryTimersListedUntilFired(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := New(nil)
		defer h.Close()
		c, err := h.channel("default")
		if err != nil {
			t.Fatal(err)
		}
		for _, timeouts := range [][]time.Duration{{time.Minute}, {2 * time.Minute, time.Minute}} {
			for _, d := range timeouts {
				h.Submit(t.Context(), "default", wire.Implementation{Name: "test"}, json.RawMessage(nameFormParams),
					&ElicitOptions{Timeout: d}, func(*wire.ElicitResult, error) {})
			}
			time.Sleep(2 * time.Minute)
			synctest.Wait()
			c.mu.Lock()
			pending, timers := len(c.pending), slices.Clone(c.timers)
			c.mu.Unlock()
			if pending != 0 || len(timers) != 0 {
				t.Errorf("timeouts %v: %d pending and timers %v listed after all expired; want none", timeouts, pending, timers)
			}
		}
	})
}

// A burst of requests that has expired lets its heap's backing array go.
func TestExpiryHeapLetsABurstGo(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const n = 2000
		h := New(&Options{MaxPending: n, RatePerMinute: n})
		defer h.Close()
		c, err := h.channel("default")
		if err != nil {
			t.Fatal(err)
		}
		for range n {
			h.Submit(t.Context(), "default", wire.Implementation{Name: "test"}, json.RawMessage(nameFormParams),
				&ElicitOptions{Timeout: time.Minute}, func(*wire.ElicitResult, error) {})
		}
		time.Sleep(time.Minute)
		synctest.Wait()
		c.mu.Lock()
		pending, size := len(c.pending), cap(c.expiry)
		c.mu.Unlock()
		if pending != 0 || size != 0 {
			t.Errorf("%d pending, expiry heap of capacity %d after a burst of %d expired; want 0 and 0", pending, size, n)
		}
	})
}

// Take lets a burst's backing array go once it has taken it, so a widget
// that once had many frames queued does not keep room for them.
func TestTakeLetsABurstGo(t *testing.T) {
	s := &Session{maxQueue: 1000, notify: func() {}}
	for range 100 {
		s.push([]byte("{}"))
	}
	frames, err := s.Take(nil)
	if len(frames) != 100 || err != nil {
		t.Fatalf("Take = %d frames, %v; want 100, nil", len(frames), err)
	}
	if c := cap(s.queue); c != 0 {
		t.Errorf("queue of capacity %d after Take took a burst of 100; want 0", c)
	}
}
