package e2e

import (
	"context"
	"strconv"
	"testing"
	"time"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"

	"github.com/formbridge/formbridge/app/wire"
)

// useLocale makes the page's locale (Intl, the number and date formats
// the page can ask for) locale, as a person's browser set to it would.
func useLocale(t *testing.T, ctx context.Context, locale string) {
	t.Helper()
	if _, err := chromedp.Call(ctx, emulation.SetLocaleOverride, emulation.SetLocaleOverrideParams{Locale: locale}); err != nil {
		t.Fatalf("locale %s: %v", locale, err)
	}
}

// budgetQuestion asks for one required number.
const budgetQuestion = `{"message":"Budget?","requestedSchema":{"type":"object","properties":{
	"budget":{"type":"number","title":"Budget","minimum":0}},"required":["budget"]}}`

// TestLocaleDigitsOfOtherScripts: digits as a Japanese or Arabic
// approver's keyboard types them. A Japanese IME in its usual kana mode
// types full-width digits ("１２５０"); an Arabic keyboard (and a phone's
// number pad set to Arabic) types Arabic-Indic digits ("١٢٥٠", with "٫"
// as the decimal point), a Persian one its own ("۱۲۵۰"). They are
// digits, with one reading each: the widget said "Use digits only, and
// a point for decimals…" to a person who had typed nothing else, and
// Send never went until they found how to switch their keyboard.
func TestLocaleDigitsOfOtherScripts(t *testing.T) {
	b := StartBridge(t, nil)
	ctx := NewBrowser(t)
	openWidget(t, ctx, b)
	for _, tc := range []struct {
		who, typed string
		want       float64
	}{
		{"ja-JP full-width", "１２５０", 1250},
		{"ja-JP full-width point", "１２．５", 12.5},
		{"ar-EG Arabic-Indic", "١٢٥٠", 1250},
		{"ar-EG Arabic decimal separator", "١٢٫٥", 12.5},
		{"fa-IR Persian", "۱۲۵۰", 1250},
	} {
		t.Run(tc.who, func(t *testing.T) {
			out := b.Elicit(t, budgetQuestion, nil)
			id := waitForm(t, ctx)
			setValue(t, ctx, field("budget", "input"), tc.typed)
			do(t, ctx, "send", chromedp.Click(action("accept")))
			select {
			case o := <-out:
				if o.Err != nil {
					t.Fatal(o.Err)
				}
				wantResult(t, o.Result, `{"action":"accept","content":{"budget":`+strconv.FormatFloat(tc.want, 'f', -1, 64)+`}}`)
			case <-time.After(3 * time.Second):
				t.Errorf("%q (%v) was not sent; the field says: %q", tc.typed, tc.want,
					eval[string](t, ctx, `document.querySelector("[data-field=budget] .fb-error")?.textContent ?? "(nothing)"`))
				do(t, ctx, "skip", chromedp.Click(action("cancel")))
				<-out
			}
			do(t, ctx, "the card leaves", chromedp.WaitNotPresent(chromedp.CSS(`form[data-elicitation-id=`+css(id)+`]`)))
		})
	}
}

// TestLocaleGroupingPoint: in Germany, Brazil (and Indonesia, Turkey,
// Italy, Spain…) the point groups thousands: "1.250" is one thousand two
// hundred and fifty. A German or Brazilian approver typing a budget of
// 1.250 € sends 1.25, a thousand times less, without a word. The widget
// already refuses "1,250" for the same reason (1.25 in half of Europe);
// "1.250" from a browser whose locale groups with a point is no less
// ambiguous, and should be asked about, not read as 1.25.
func TestLocaleGroupingPoint(t *testing.T) {
	b := StartBridge(t, nil)
	ctx := NewBrowser(t)
	for _, loc := range []struct{ locale, zone string }{{"de-DE", "Europe/Berlin"}, {"pt-BR", "America/Sao_Paulo"}} {
		t.Run(loc.locale, func(t *testing.T) {
			useLocale(t, ctx, loc.locale)
			useTimezone(t, ctx, loc.zone)
			openWidget(t, ctx, b)
			if got := eval[string](t, ctx, `new Intl.NumberFormat().format(1250.5)`); got != "1.250,5" {
				t.Fatalf("precondition: the page's locale writes 1250.5 as %q", got)
			}
			out := b.Elicit(t, budgetQuestion, nil)
			waitForm(t, ctx)
			setValue(t, ctx, field("budget", "input"), "1.250")
			do(t, ctx, "send", chromedp.Click(action("accept")))
			select {
			case o := <-out:
				t.Errorf("%s: \"1.250\" (1250 where the point groups thousands) was sent as %v", loc.locale, o.Result.Content["budget"])
			case <-time.After(1500 * time.Millisecond):
				do(t, ctx, "the person told", chromedp.WaitVisible(chromedp.CSS(`[data-field="budget"] .fb-error`)))
				const want = "Use digits only, and a comma for decimals (like 1250,5), without points, spaces or other signs"
				if got := eval[string](t, ctx, `document.querySelector("[data-field=budget] .fb-error").textContent`); got != want {
					t.Errorf("%s: told %q; want %q", loc.locale, got, want)
				}
				// Written as told, the amount goes.
				setValue(t, ctx, field("budget", "input"), "1250,5")
				do(t, ctx, "the problem leaves", chromedp.WaitNotPresent(chromedp.CSS(`.fb-error`)))
				do(t, ctx, "send again", chromedp.Click(action("accept")))
				wantResult(t, await(t, ctx, out), `{"action":"accept","content":{"budget":1250.5}}`)
			}
		})
	}
}

// hiddenNotifications stands in for the browser's notifications: the
// page reads as hidden (the approver is in another app) and permission
// is granted; each notification's title and options are kept.
const hiddenNotifications = `
Object.defineProperty(Document.prototype, "hidden", {get: () => true});
window.__notes = [];
window.Notification = class {
	static get permission() { return "granted"; }
	static requestPermission() { return Promise.resolve("granted"); }
	constructor(title, opts) { window.__notes.push({title, opts}); }
	close() {}
};`

// TestLocaleNotificationRightToLeftName: a server whose name is Hebrew
// or Arabic ("מערכת אישורים 2") asks while the approver's tab is in the
// background. The system notification's body, "<name> is asking you
// something.", starts with right-to-left letters, and a notification's
// direction is "auto" unless the page says otherwise (the first strong
// letter decides): the whole English sentence is laid out right to left,
// and reads "something you asking is" with its full stop at the far
// left. Laid out as the notification's direction says (checked here in
// the page itself), the sentence's last word must come after its first.
func TestLocaleNotificationRightToLeftName(t *testing.T) {
	b := StartBridge(t, nil)
	ctx := NewBrowser(t)
	runFirst(t, ctx, hiddenNotifications)
	openWidget(t, ctx, b)
	for _, name := range []string{"מערכת אישורים 2", "نظام الموافقات"} {
		t.Run(name, func(t *testing.T) {
			eval[bool](t, ctx, `window.__notes.length = 0, true`)
			out := b.ElicitAs(t, wire.Implementation{Name: name}, noteQuestion, nil)
			waitJS(t, ctx, "the notification", `window.__notes.length > 0`)
			laidOut := eval[map[string]any](t, ctx, `(() => {
				const n = window.__notes[0], body = n.opts.body;
				const p = document.createElement("p");
				p.dir = n.opts.dir || "auto";
				p.style.cssText = "position:fixed;top:0;left:0;white-space:nowrap;font-size:16px";
				p.textContent = body;
				document.body.append(p);
				const at = (i, len) => { const r = document.createRange(); r.setStart(p.firstChild, i); r.setEnd(p.firstChild, i + len); return r.getBoundingClientRect(); };
				const is = body.indexOf(" is asking"), end = body.length - 1;
				const res = {body, dir: n.opts.dir ?? "(none: auto)", isLeft: at(is + 1, 2).left, stopLeft: at(end, 1).left, rtl: p.matches(":dir(rtl)")};
				p.remove();
				return res;
			})()`)
			if laidOut["stopLeft"].(float64) < laidOut["isLeft"].(float64) {
				t.Errorf("the notification %q (dir %v) is laid out right to left (%v): its full stop is left of \"is\" (%v < %v px)",
					laidOut["body"], laidOut["dir"], laidOut["rtl"], laidOut["stopLeft"], laidOut["isLeft"])
			}
			waitForm(t, ctx)
			do(t, ctx, "skip", chromedp.Click(action("cancel")))
			<-out
			do(t, ctx, "the card leaves", chromedp.WaitNotPresent(chromedp.CSS(`form[data-elicitation-id]`)))
		})
	}
}
