package e2e

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"
)

// axeVersion is the axe-core release the check was written against;
// make test installs it with npm into .tools (git-ignored).
const axeVersion = "4.10.3"

// axeSource reads axe-core from .tools, or skips (fails under
// FORMBRIDGE_E2E=require) with the command that installs it.
func axeSource(t *testing.T) string {
	t.Helper()
	p := filepath.Join("..", "..", ".tools", "node_modules", "axe-core", "axe.min.js")
	b, err := os.ReadFile(p)
	if err != nil {
		skipOrFail(t, "axe-core is not installed (npm install --prefix .tools axe-core@"+axeVersion+")")
	}
	return string(b)
}

type axeViolation struct {
	ID     string   `json:"id"`
	Impact string   `json:"impact"`
	Help   string   `json:"help"`
	Nodes  []string `json:"nodes"`
}

// runAxe checks the page and fails on serious or critical violations;
// lesser ones are logged.
func runAxe(t *testing.T, ctx context.Context, src, what string) {
	t.Helper()
	// Colours are only final once entrance transitions have run.
	waitJS(t, ctx, "animations to finish", `document.getAnimations().every((a) => a.playState !== "running")`)
	if !eval[bool](t, ctx, `typeof axe !== "undefined"`) {
		eval[bool](t, ctx, src+"\n;true")
	}
	actx, cancel := context.WithTimeout(ctx, stepTimeout)
	defer cancel()
	vs, err := chromedp.Run(actx, chromedp.Evaluate[[]axeViolation](`axe.run(document, {resultTypes: ["violations"]}).then((r) =>
		r.violations.map((v) => ({id: v.id, impact: v.impact || "", help: v.help, nodes: v.nodes.map((n) => n.target.join(" "))})))`,
		chromedp.EvalAwaitPromise))
	if err != nil {
		t.Fatalf("axe on %s: %v", what, err)
	}
	for _, v := range vs {
		msg := what + ": " + v.Impact + " " + v.ID + " (" + v.Help + ") at " + strings.Join(v.Nodes, ", ")
		if v.Impact == "serious" || v.Impact == "critical" {
			t.Error(msg)
		} else {
			t.Log(msg)
		}
	}
}

// colorScheme emulates prefers-color-scheme.
func colorScheme(t *testing.T, ctx context.Context, scheme string) {
	t.Helper()
	if _, err := chromedp.Call(ctx, emulation.SetEmulatedMedia, emulation.SetEmulatedMediaParams{
		Features: []*emulation.MediaFeature{{Name: "prefers-color-scheme", Value: scheme}},
	}); err != nil {
		t.Fatalf("emulating %s: %v", scheme, err)
	}
}

func TestAccessibility(t *testing.T) {
	src := axeSource(t)
	b := StartBridge(t, nil)
	ctx := NewBrowser(t)
	openWidget(t, ctx, b)

	form := b.Elicit(t, allKinds, nil)
	id := waitForm(t, ctx)
	for _, scheme := range []string{"light", "dark"} {
		colorScheme(t, ctx, scheme)
		runAxe(t, ctx, src, "form with every field kind, "+scheme)
	}
	// With the errors shown, as after a Send with nothing filled in.
	do(t, ctx, "send empty", chromedp.Click(action("accept")))
	runAxe(t, ctx, src, "form showing errors")
	do(t, ctx, "dismiss", chromedp.Click(action("cancel")), chromedp.WaitNotPresent(chromedp.CSS(`form[data-elicitation-id=`+css(id)+`]`)))
	wantResult(t, await(t, ctx, form), `{"action":"cancel"}`)

	link := b.Elicit(t, `{"mode":"url","message":"Connect your calendar","elicitationId":"el-1","url":"https://xn--pple-43d.com:8443/login"}`, nil)
	waitForm(t, ctx)
	for _, scheme := range []string{"light", "dark"} {
		colorScheme(t, ctx, scheme)
		runAxe(t, ctx, src, "URL card with warnings, "+scheme)
	}
	do(t, ctx, "decline", chromedp.Click(action("decline")))
	wantResult(t, await(t, ctx, link), `{"action":"decline"}`)
	runAxe(t, ctx, src, "empty state with a notice")
}
