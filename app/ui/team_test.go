package ui

import (
	"strings"
	"testing"
	"time"

	"github.com/formbridge/formbridge/app/wire"
)

// TestWidgetOwnAnswerBeatenSaysSo: an approver pressed Send (the card
// said "Sending…"), but a colleague's answer reached the bridge first:
// the caller got the colleague's answer, not theirs. The notice must
// tell them their answer was not the one delivered; "Answered in another
// window, so it was closed here." reads as if their Send went through.
func TestWidgetOwnAnswerBeatenSaysSo(t *testing.T) {
	w, d, c := mountWidget(t)
	ctx := d.Context()
	ask(t, w, ctx, "r1", formParams(t, "Name?", shortSchema), testMeta)
	it := w.queue.find("r1")
	w.answer(it, wire.ElicitResult{Action: wire.ActionAccept, Content: map[string]any{"name": "Ada"}})
	if c.sent["r1"].Action != wire.ActionAccept {
		t.Fatalf("bridge got %+v", c.sent["r1"])
	}
	w.onSettled(ctx, &wire.SettledParams{RequestID: "r1", Outcome: wire.OutcomeAnsweredElsewhere})
	page := show(t, w, d)
	n := page.mustFind(t, "[data-outcome="+wire.OutcomeAnsweredElsewhere+"]")
	if says := n.textContent(); !strings.Contains(strings.ToLower(says), "your answer") {
		t.Errorf("the approver whose answer lost is told %q: nothing says their answer was not delivered", says)
	}
}

// TestWidgetSaysHowAnotherWindowEndedIt: a colleague's Decline or
// Skip is not reported as an answer (the bridge names the action;
// one that does not still reads "answered").
func TestWidgetSaysHowAnotherWindowEndedIt(t *testing.T) {
	for _, tt := range []struct{ action, says string }{
		{wire.ActionAccept, "It was answered in another window or by someone else, so it was closed here."},
		{wire.ActionDecline, "It was declined in another window or by someone else, so it was closed here."},
		{wire.ActionCancel, "It was skipped in another window or by someone else, so it was closed here without an answer."},
		{"", "It was answered in another window or by someone else, so it was closed here."},
	} {
		w, d, _ := mountWidget(t)
		ctx := d.Context()
		ask(t, w, ctx, "r1", formParams(t, "Name?", shortSchema), testMeta)
		w.onSettled(ctx, &wire.SettledParams{RequestID: "r1", Outcome: wire.OutcomeAnsweredElsewhere, Action: tt.action})
		n := show(t, w, d).mustFind(t, "[data-outcome="+wire.OutcomeAnsweredElsewhere+"]")
		if says := n.textContent(); !strings.Contains(says, tt.says) {
			t.Errorf("another window's %q: the notice reads %q; want %q", tt.action, says, tt.says)
		}
	}
}

// A device whose clock was set by hand counts down on the bridge's
// clock; a difference of a few seconds, which the time hello's answer
// waited for the page can explain, is left alone.
func TestClockSkew(t *testing.T) {
	local := time.Date(2026, 12, 6, 12, 0, 0, 0, time.UTC)
	for _, tt := range []struct {
		bridge time.Time
		want   time.Duration
	}{
		{time.Time{}, 0}, // an older bridge says nothing
		{local.Add(3 * time.Minute), 3 * time.Minute},
		{local.Add(-3 * time.Minute), -3 * time.Minute},
		{local.Add(2 * time.Second), 0},
		{local.Add(-4 * time.Second), 0},
		{local.Add(minSkew), minSkew}, // the smallest difference corrected
		{local.Add(-minSkew), -minSkew},
	} {
		if got := clockSkew(tt.bridge, local); got != tt.want {
			t.Errorf("bridge at %v, device at %v: skew %v; want %v", tt.bridge, local, got, tt.want)
		}
	}

	// The widget then reads the bridge's clock: a request with two
	// minutes left shows two minutes left.
	w, d, _ := mountWidget(t)
	ctx := d.Context()
	meta := testMeta
	meta.CreatedAt = time.Now().Add(-3 * time.Minute)
	meta.ExpiresAt = meta.CreatedAt.Add(2 * time.Minute)
	w.setClock(time.Now().Add(-3*time.Minute), time.Now())
	ask(t, w, ctx, "r1", formParams(t, "Name?", shortSchema), meta)
	if got := countdown(w.now, meta.ExpiresAt); got != "Closes in 2 min" {
		t.Errorf("with two minutes left on the bridge's clock, three minutes behind the device's: %q", got)
	}
}

// TestWidgetOwnAnswerBeatenBySkip: an approver pressed Send, but a
// colleague's Skip (or Decline) reached the bridge first: nobody answered
// the request. Their notice must say their answer was not delivered, and
// must not say the request "was answered" (TestWidgetSaysHowAnotherWindowEndedIt,
// for one who had not pressed Send).
func TestWidgetOwnAnswerBeatenBySkip(t *testing.T) {
	for _, action := range []string{wire.ActionCancel, wire.ActionDecline} {
		w, d, _ := mountWidget(t)
		ctx := d.Context()
		ask(t, w, ctx, "r1", formParams(t, "Name?", shortSchema), testMeta)
		w.answer(w.queue.find("r1"), wire.ElicitResult{Action: wire.ActionAccept, Content: map[string]any{"name": "Ada"}})
		w.onSettled(ctx, &wire.SettledParams{RequestID: "r1", Outcome: wire.OutcomeAnsweredElsewhere, Action: action})
		says := show(t, w, d).mustFind(t, "[data-outcome="+wire.OutcomeAnsweredElsewhere+"]").textContent()
		if strings.Contains(strings.ToLower(says), "answered") || !strings.Contains(strings.ToLower(says), "your answer was not delivered") {
			t.Errorf("a colleague's %q beat this approver's Send: the notice reads %q", action, says)
		}
	}
}
