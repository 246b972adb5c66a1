package e2e

import (
	"strings"
	"testing"
)

// warmupRecorder notes, before the page's own scripts run, each batch of
// DOM changes that adds or removes the warm-up's hidden sample (an
// aria-hidden .fb-widget) as "+" and "-", one string per batch.
const warmupRecorder = `window.__fbWarm = [];
new MutationObserver((records) => {
  let batch = "";
  const sample = (n) => n.nodeType === 1 && n.classList.contains("fb-widget") && n.getAttribute("aria-hidden") === "true";
  for (const r of records) {
    for (const n of r.addedNodes) if (sample(n)) batch += "+";
    for (const n of r.removedNodes) if (sample(n)) batch += "-";
  }
  if (batch) window.__fbWarm.push(batch);
}).observe(document, {childList: true, subtree: true});`

// web/warmup.js lays out its sample form once while the wasm loads, and
// removes it in the same task: nothing of it is ever painted, focused or
// left in the page, and the widget works as before.
func TestWarmupLeavesNoTrace(t *testing.T) {
	b := StartBridge(t, nil)
	ctx := NewBrowser(t)
	runFirst(t, ctx, warmupRecorder)
	openWidget(t, ctx, b)
	waitJS(t, ctx, "the warm-up", `window.__fbWarm.length > 0`)
	if got := eval[[]string](t, ctx, `window.__fbWarm`); len(got) != 1 || got[0] != "+-" {
		t.Errorf("warm-up batches = %q, want one that adds and removes the sample together", got)
	}
	if !eval[bool](t, ctx, `performance.getEntriesByType("resource").some((e) => /\/v\/[^/]+\/web\/warmup\.js$/.test(e.name))`) {
		t.Error("the page did not load warmup.js from its versioned URL")
	}

	out := b.Elicit(t, noteQuestion, nil)
	waitForm(t, ctx)
	waitJS(t, ctx, "focus in the first field", `document.activeElement?.closest("[data-field=note]") != null`)
	if n := eval[int](t, ctx, `document.querySelectorAll(".fb-widget[aria-hidden]").length`); n != 0 {
		t.Errorf("%d hidden samples left in the page", n)
	}
	sendNote(t, ctx, out)
}

// formRecorder notes, before the page's own scripts run, each <form> the
// widget puts in the page (web/warmup.js's sample aside): whether it was
// hidden, and whether it carried the request id hosts count requests by;
// and every element that took focus.
const formRecorder = `window.__fbForms = []; window.__fbFocused = [];
new MutationObserver((records) => {
  for (const r of records) for (const n of r.addedNodes) {
    if (n.nodeType !== 1) continue;
    for (const f of n.matches("form") ? [n] : n.querySelectorAll("form")) {
      if (f.closest(".fb-widget[aria-hidden]")) continue;
      window.__fbForms.push({hidden: f.closest("[hidden]") !== null && !f.checkVisibility(), id: f.hasAttribute("data-elicitation-id")});
    }
  }
}).observe(document, {childList: true, subtree: true});
document.addEventListener("focusin", (e) => window.__fbFocused.push(e.target.outerHTML.slice(0, 80)), true);`

// Online with nothing to show, the widget mounts a hidden sample request
// a few times to get its form code compiled (app/ui/warmup.go): nothing
// of it is drawn, focused, counted as a request or left behind, and the
// first real request still gets focus in its first field.
func TestWarmupFormUnseen(t *testing.T) {
	b := StartBridge(t, nil)
	ctx := NewBrowser(t)
	runFirst(t, ctx, formRecorder)
	openWidget(t, ctx, b)
	// One form per round (the second sample replaces the first in its
	// card): app/ui's warmRounds of them, and none left, is the end.
	waitJS(t, ctx, "the warm-up's rounds", `window.__fbForms.length >= 20 && document.querySelector("form") === null`)
	type seen struct{ Hidden, ID bool }
	for i, f := range eval[[]seen](t, ctx, `window.__fbForms`) {
		if !f.Hidden || f.ID {
			t.Errorf("sample %d: hidden %v, with a request id %v; want hidden, without", i, f.Hidden, f.ID)
		}
	}
	if got := eval[[]string](t, ctx, `window.__fbFocused`); len(got) != 0 {
		t.Errorf("the warm-up moved focus: %q", got)
	}
	if got := eval[string](t, ctx, `document.querySelector("main").innerText`); !strings.Contains(got, "Nothing to answer right now") {
		t.Errorf("after the warm-up the page reads %q", got)
	}

	out := b.Elicit(t, noteQuestion, nil)
	waitForm(t, ctx)
	waitJS(t, ctx, "focus in the first field", `document.activeElement?.closest("[data-field=note]") != null`)
	if n := eval[int](t, ctx, `document.querySelectorAll("form").length`); n != 1 {
		t.Errorf("%d forms in the page with one request", n)
	}
	sendNote(t, ctx, out)
}
