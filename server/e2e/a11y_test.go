package e2e

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/chromedp/cdproto/accessibility"
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
	actx, cancel := loadAxe(t, ctx, src)
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

// loadAxe puts axe in the page once the page has settled, and gives
// the context to run it in.
func loadAxe(t *testing.T, ctx context.Context, src string) (context.Context, context.CancelFunc) {
	t.Helper()
	// Colours are only final once entrance transitions have run.
	waitJS(t, ctx, "animations to finish", `document.getAnimations().every((a) => a.playState !== "running")`)
	if !eval[bool](t, ctx, `typeof axe !== "undefined"`) {
		eval[bool](t, ctx, src+"\n;true")
	}
	return context.WithTimeout(ctx, stepTimeout)
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

// TestNoticeButtonNameHasItsLabel: speech input finds a button by the
// words on it, so a notice's "OK" must be named OK (WCAG 2.5.3, Label in
// Name): axe's label-content-name-mismatch, an experimental rule, and
// the browser's own accessibility tree.
func TestNoticeButtonNameHasItsLabel(t *testing.T) {
	src := axeSource(t)
	ctx := sentNotice(t)
	for _, v := range runAxeRule(t, ctx, src, "label-content-name-mismatch") {
		t.Error(v)
	}
	tree, err := chromedp.Call(ctx, accessibility.GetFullAXTree, accessibility.GetFullAXTreeParams{})
	if err != nil {
		t.Fatalf("the accessibility tree: %v", err)
	}
	var buttons []string
	for _, n := range tree.Nodes {
		if !n.Ignored && n.Role != nil && string(n.Role.Value) == `"button"` && n.Name != nil {
			buttons = append(buttons, string(n.Name.Value))
		}
	}
	if !slices.Contains(buttons, `"OK"`) {
		t.Errorf("no button is named OK; the page's buttons: %s", strings.Join(buttons, ", "))
	}
}

// runAxeRule runs one axe rule, experimental ones too, and returns its
// violations.
func runAxeRule(t *testing.T, ctx context.Context, src, rule string) []string {
	t.Helper()
	actx, cancel := loadAxe(t, ctx, src)
	defer cancel()
	vs, err := chromedp.Run(actx, chromedp.Evaluate[[]string](`axe.run(document, {runOnly: {type: "rule", values: [`+css(rule)+`]}, rules: {`+css(rule)+`: {enabled: true}}, resultTypes: ["violations"]}).then((r) =>
		r.violations.flatMap((v) => v.nodes.map((n) => v.id + " at " + n.target.join(" ") + ": " + n.html)))`,
		chromedp.EvalAwaitPromise))
	if err != nil {
		t.Fatalf("axe %s: %v", rule, err)
	}
	return vs
}
