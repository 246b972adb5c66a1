package ui

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/formbridge/formbridge/app/elicit"
	"github.com/formbridge/formbridge/app/wire"
)

// warmSchema is the schema warmSample's form is the bridge's reading of.
const warmSchema = `{"type":"object","properties":{` +
	`"name":{"type":"string","title":"Name","description":"Aa","maxLength":80,"default":"Aa"},` +
	`"note":{"type":"string","title":"Note"},` +
	`"email":{"type":"string","title":"Email","format":"email"},` +
	`"day":{"type":"string","title":"Day","format":"date"},` +
	`"count":{"type":"integer","title":"Count","minimum":1,"maximum":9},` +
	`"amount":{"type":"number","title":"Amount"},` +
	`"ok":{"type":"boolean","title":"OK","default":true},` +
	`"size":{"type":"string","title":"Size","enum":["s","m","l"]},` +
	`"city":{"type":"string","title":"City","oneOf":[{"const":"a","title":"A"},{"const":"b","title":"B"},{"const":"c","title":"C"},{"const":"d","title":"D"},{"const":"e","title":"E"},{"const":"f","title":"F"}]},` +
	`"tags":{"type":"array","title":"Tags","items":{"type":"string","enum":["a","b","c"]}}` +
	`},"required":["name","ok"]}`

// The sample is what today's bridge sends for warmSchema, so the warm-up
// runs the code real requests run; a change to the bridge's reading that
// the sample missed fails here. It has a control of every kind.
func TestWarmSampleIsCurrent(t *testing.T) {
	t.Parallel()
	want := itemFor(t, "r1", 1, formParams(t, "Sample", warmSchema), testMeta)
	got := sampleItem(1)
	if got == nil || got.Form == nil {
		t.Fatalf("the sample is not read as a form: %+v", got)
	}
	if diff := cmp.Diff(want.Form, got.Form, cmp.AllowUnexported(elicit.Field{})); diff != "" {
		t.Errorf("the sample's form is not the bridge's reading of warmSchema (-bridge +sample):\n%s", diff)
	}
	kinds := map[elicit.Kind]bool{}
	radios, dropdown := false, false
	for _, fd := range got.Form.Fields {
		kinds[fd.Kind] = true
		if fd.Kind == elicit.KindSelect {
			radios = radios || len(fd.Options) <= maxRadios
			dropdown = dropdown || len(fd.Options) > maxRadios
		}
	}
	for _, k := range []elicit.Kind{elicit.KindString, elicit.KindNumber, elicit.KindInteger, elicit.KindBoolean, elicit.KindSelect, elicit.KindMultiSelect} {
		if !kinds[k] {
			t.Errorf("no %s field in the sample", k)
		}
	}
	if !radios || !dropdown {
		t.Errorf("the sample has radios %v, a dropdown %v; want both", radios, dropdown)
	}
}

// The warm-up mounts the sample hidden, without the attribute pages
// count requests by, puts a second sample in its card (the update a
// request opening after another runs), never takes focus from the first
// real request, and stops after warmRounds; a real request takes the
// sample down. Each round also checks and encodes its sample's answer.
func TestWarmupHiddenAndBounded(t *testing.T) {
	shownOne = false
	w, d, _ := mountWidget(t)
	ctx := d.Context()
	w.onConnectionChange(connOnline)
	w.onSynced(ctx, nil)

	var samples []string // each sample shown, by the title its form names
	for range 3*warmRounds + 4 {
		w.warmStep(ctx)
		page := show(t, w, d)
		d.Consume() // what the card deferred (focus) runs while it is mounted
		if page.find("form[data-elicitation-id]") != nil {
			t.Fatal("the sample carries data-elicitation-id")
		}
		form := page.find("form")
		if form == nil {
			continue
		}
		if box := form.parent; box.tag != "div" || !box.on("hidden") {
			t.Fatalf("the sample is not in a hidden box: <%s %v>", box.tag, box.attrs)
		}
		if len(form.findAll("input")) == 0 || form.find("select") == nil || form.find("textarea") == nil {
			t.Error("the sample lacks controls")
		}
		if title := form.attrs["aria-labelledby"]; len(samples) == 0 || samples[len(samples)-1] != title {
			samples = append(samples, title)
		}
	}
	if w.warm.rounds != warmRounds || len(samples) != 2*warmRounds {
		t.Errorf("%d rounds showed %d samples; want %d rounds of two", w.warm.rounds, len(samples), warmRounds)
	}
	if one := len(warmAnswer(sampleItem(1))); one == 0 || w.warm.encoded != warmRounds*one {
		t.Errorf("the rounds encoded %d bytes of answers; want %d rounds of %d: every round runs what a Send runs", w.warm.encoded, warmRounds, one)
	}
	if shownOne {
		t.Error("the sample counted as the page's first request: the real one would not focus its first field")
	}

	// A request to show takes the sample down, and no other goes up.
	w, d, _ = mountWidget(t)
	ctx = d.Context()
	w.onConnectionChange(connOnline)
	w.onSynced(ctx, nil)
	w.warmStep(ctx)
	if w.warm.sample == nil {
		t.Fatal("no sample mounted")
	}
	ask(t, w, ctx, "r1", formParams(t, "Deploy?", shortSchema), metaAt(0))
	w.warmStep(ctx)
	w.warmStep(ctx)
	page := show(t, w, d)
	if n := len(page.findAll("form")); n != 1 || page.find("form[data-elicitation-id=r1]") == nil {
		t.Errorf("%d forms on the page with a request to show; want only the request's", n)
	}
	if w.warm.rounds != 1 {
		t.Errorf("%d rounds; the warm-up went on with a request on screen", w.warm.rounds)
	}
}

// The warm-up starts only with nothing to show, online and synced, and
// pauses while offline or while a request is shown; after a request it
// waits until the page has been quiet for warmIdle, so the server's next
// question right after an answer does not wait behind a sample.
func TestWarmupStartsOnlyIdle(t *testing.T) {
	w, d, _ := mountWidget(t)
	ctx := d.Context()
	w.startWarmup(ctx)
	if w.warm.running {
		t.Error("started before the bridge said what it holds")
	}
	w.onConnectionChange(connOnline)
	w.onSynced(ctx, nil)
	w.startWarmup(ctx)
	if !w.warm.running {
		t.Fatal("not started online with nothing to show")
	}
	w.warmStep(ctx) // round 1 up
	w.warmStep(ctx) // the next sample in its place
	w.warmStep(ctx) // and down
	w.onConnectionChange(connOffline)
	w.warmStep(ctx)
	if w.warm.running || w.warm.sample != nil {
		t.Fatal("the warm-up went on offline")
	}
	w.onConnectionChange(connOnline)
	w.onSynced(ctx, nil)
	w.startWarmup(ctx)
	w.warmStep(ctx)
	if !w.warm.running || w.warm.rounds != 2 {
		t.Fatalf("back online: running %v after %d rounds; want it going on with round 2", w.warm.running, w.warm.rounds)
	}

	ask(t, w, ctx, "r1", wire.ElicitParams{Message: "Deploy?"}, metaAt(0))
	w.warmStep(ctx) // takes the sample down
	w.warmStep(ctx) // pauses
	if w.warm.running {
		t.Fatal("the warm-up went on with a request shown")
	}
	w.onSettled(ctx, &wire.SettledParams{RequestID: "r1", Outcome: wire.OutcomeAnswered})
	w.startWarmup(ctx)
	w.warmStep(ctx)
	if !w.warm.running || w.warm.sample != nil || w.warm.rounds != 2 {
		t.Fatalf("right after the answer: running %v, sample %v, %d rounds; want it waiting, with no sample", w.warm.running, w.warm.sample != nil, w.warm.rounds)
	}
	w.warm.busy = time.Now().Add(-warmIdle) // the page has been quiet since
	w.warmStep(ctx)
	if w.warm.sample == nil || w.warm.rounds != 3 {
		t.Errorf("after a quiet spell: sample %v, %d rounds; want round 3 up", w.warm.sample != nil, w.warm.rounds)
	}

	// Left alone, it stops after warmRounds.
	w, d, _ = mountWidget(t)
	ctx = d.Context()
	w.onConnectionChange(connOnline)
	w.onSynced(ctx, nil)
	w.startWarmup(ctx)
	for range 4 * warmRounds {
		w.warmStep(ctx)
	}
	w.startWarmup(ctx)
	if w.warm.running || !w.warm.done || w.warm.rounds != warmRounds {
		t.Errorf("finished: running %v, done %v after %d rounds; want stopped and done after %d", w.warm.running, w.warm.done, w.warm.rounds, warmRounds)
	}

	// The collection after the last round waits, like a round, for a
	// quiet page: never with a request shown, never right after one.
	w, d, _ = mountWidget(t)
	ctx = d.Context()
	w.onConnectionChange(connOnline)
	w.onSynced(ctx, nil)
	w.startWarmup(ctx)
	for w.warm.rounds < warmRounds || w.warm.sample != nil {
		w.warmStep(ctx)
	}
	ask(t, w, ctx, "r1", wire.ElicitParams{Message: "Deploy?"}, metaAt(0))
	w.warmStep(ctx)
	if w.warm.done {
		t.Fatal("collected with a request shown")
	}
	w.onSettled(ctx, &wire.SettledParams{RequestID: "r1", Outcome: wire.OutcomeAnswered})
	w.startWarmup(ctx)
	w.warmStep(ctx)
	if w.warm.done {
		t.Fatal("collected right after a request went")
	}
	w.warm.busy = time.Now().Add(-warmIdle)
	w.warmStep(ctx)
	if !w.warm.done || w.warm.running {
		t.Errorf("after a quiet spell: done %v, running %v; want the collection, then stopped", w.warm.done, w.warm.running)
	}
}

// The warm-up's answer takes the path a person's Send of the untouched
// sample would: its draft passes the check, and the frame it encodes is
// the accept, with the defaults, that Respond would send.
func TestWarmAnswerIsASend(t *testing.T) {
	t.Parallel()
	frame := warmAnswer(sampleItem(1))
	if frame == nil {
		t.Fatal("the sample's draft does not pass the check: the warm-up misses the code a Send runs")
	}
	var msg wire.Message
	var got wire.ElicitResult
	if err := json.Unmarshal(frame, &msg); err != nil || !msg.IsResponse() || json.Unmarshal(msg.Result, &got) != nil {
		t.Fatalf("frame %s is not an answer (%v)", frame, err)
	}
	want := wire.ElicitResult{Action: wire.ActionAccept, Content: map[string]any{"name": "Aa", "ok": true}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("the sample's answer (-want +got):\n%s", diff)
	}
}
