package e2e

import (
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// privateForm asks, wrongly, for a password and a card number, and for a
// note that is no secret.
const privateForm = `{"message":"Sign in to the payroll system","requestedSchema":{"type":"object","properties":{
 "password":{"type":"string","title":"Password"},
 "card":{"type":"string","title":"Card number","maxLength":19},
 "note":{"type":"string","title":"Note"}}}}`

// TestPrivacyInTheBrowser follows what a person types into a form that
// asks for secrets, in Chromium: the secret boxes are left alone by the
// spelling service (Chrome's enhanced spell check sends what it checks
// to Google), and once the answer is delivered nothing of it, of the
// question or of the token stays in the page's storage, caches, title or
// address, and nothing was fetched from another site.
func TestPrivacyInTheBrowser(t *testing.T) {
	b := StartBridge(t, nil)
	ctx := NewBrowser(t)
	openWidget(t, ctx, b)
	out := b.Elicit(t, privateForm, nil)
	waitForm(t, ctx)
	for _, c := range []struct {
		sel  string
		want bool
	}{{`[data-field="password"] textarea`, false}, {`[data-field="card"] input`, false}, {`[data-field="note"] textarea`, true}} {
		if got := eval[bool](t, ctx, `document.querySelector(`+css(c.sel)+`).spellcheck`); got != c.want {
			t.Errorf("%s: spellcheck %v; want %v", c.sel, got, c.want)
		}
	}
	do(t, ctx, "type and send",
		chromedp.SendKeys(field("password", "textarea"), "hunter2-secret"),
		chromedp.SendKeys(field("card", "input"), "4111111111111111"),
		chromedp.SendKeys(field("note", "textarea"), "call Ada Lovelace"),
		chromedp.Click(action("accept")))
	if o := await(t, ctx, out); o.Action != "accept" || o.Content["password"] != "hunter2-secret" {
		t.Fatalf("result = %+v", o)
	}
	waitJS(t, ctx, "the sent notice", `document.querySelector('[data-outcome="answered"]') !== null`)

	left := func(when string) {
		t.Helper()
		eval[bool](t, ctx, `(async () => {
			window.__left = undefined;
			const dbs = indexedDB.databases ? (await indexedDB.databases()).map((d) => d.name) : [];
			const cacheNames = self.caches ? await caches.keys() : [];
			const session = Object.keys(sessionStorage).map((k) => k + "=" + sessionStorage.getItem(k));
			const local = Object.keys(localStorage).map((k) => k + "=" + localStorage.getItem(k));
			const foreign = performance.getEntriesByType("resource").map((e) => e.name).filter((u) => new URL(u).origin !== location.origin);
			window.__left = JSON.stringify({session, local, dbs, cacheNames, foreign, title: document.title, href: location.href});
		})(), true`)
		waitJS(t, ctx, "the page's state", `window.__left !== undefined`)
		state := eval[string](t, ctx, `window.__left`)
		t.Logf("%s: %s", when, state)
		for _, s := range []string{"hunter2", "4111", "Lovelace", "payroll", "formbridge.draft", `"dbs":["`, `"cacheNames":["`, `"foreign":["`, `"local":["`, "#token"} {
			if strings.Contains(state, s) {
				t.Errorf("%s: the page keeps %q: %s", when, s, state)
			}
		}
	}
	left("after the answer")
	do(t, ctx, "reload", chromedp.Reload(), chromedp.WaitVisible(chromedp.CSS(`[data-connection="online"]`)))
	left("after a reload")
}
