package e2e

import (
	"strconv"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
)

// allKinds has one property of every kind ELICITATION.md lists.
const allKinds = `{"message":"Book the trip to Lisbon","requestedSchema":{"type":"object","properties":{
	"name":     {"type":"string","title":"Traveller name","description":"As on the passport","minLength":2,"maxLength":60},
	"email":    {"type":"string","title":"Email","format":"email"},
	"site":     {"type":"string","title":"Company site","format":"uri"},
	"day":      {"type":"string","title":"Departure day","format":"date"},
	"at":       {"type":"string","title":"Meeting time","format":"date-time"},
	"budget":   {"type":"number","title":"Budget","minimum":0,"maximum":5000},
	"nights":   {"type":"integer","title":"Nights","minimum":1,"maximum":14},
	"insured":  {"type":"boolean","title":"Travel insurance"},
	"seat":     {"type":"string","title":"Seat","enum":["window","aisle"]},
	"class":    {"type":"string","title":"Class","oneOf":[{"const":"eco","title":"Economy"},{"const":"biz","title":"Business"}]},
	"meal":     {"type":"string","title":"Meal","enum":["veg","std"],"enumNames":["Vegetarian","Standard"]},
	"airport":  {"type":"string","title":"Airport","enum":["LIS","OPO","FAO","FNC","PDL","TER"]},
	"extras":   {"type":"array","title":"Extras","items":{"type":"string","enum":["wifi","lounge","bag"]},"minItems":1,"maxItems":2},
	"perks":    {"type":"array","title":"Perks","items":{"anyOf":[{"const":"p1","title":"Fast track"},{"const":"p2","title":"Late checkout"}]}}
},"required":["name","email","extras"]}}`

func TestEveryFieldKind(t *testing.T) {
	b := StartBridge(t, nil)
	ctx := NewBrowser(t)
	useTimezone(t, ctx, "Europe/Lisbon")
	openWidget(t, ctx, b)
	out := b.Elicit(t, allKinds, nil)
	waitForm(t, ctx)

	do(t, ctx, "type text fields",
		chromedp.SendKeys(field("name", "textarea, input"), "Ada Lovelace"),
		chromedp.SendKeys(field("email", "input"), "ada@example.com"),
		chromedp.SendKeys(field("site", "input"), "https://example.com/ada"),
		chromedp.SendKeys(field("budget", "input"), "1250.5"),
		chromedp.SendKeys(field("nights", "input"), "4"),
	)
	setValue(t, ctx, field("day", "input"), "2026-03-04")
	setValue(t, ctx, field("at", "input"), "2026-07-01T09:30")
	do(t, ctx, "choose options",
		chromedp.Click(option("insured", "Yes")),
		chromedp.Click(option("seat", "aisle")),
		chromedp.Click(option("class", "Business")),
		chromedp.Click(option("meal", "Vegetarian")),
		chromedp.Click(option("extras", "wifi")),
		chromedp.Click(option("extras", "bag")),
		chromedp.Click(option("perks", "Late checkout")),
	)
	selectOption(t, ctx, "airport", "FAO")
	noResultYet(t, out, "before Send")
	do(t, ctx, "send", chromedp.Click(action("accept")))

	// Lisbon is UTC+1 in July: the datetime-local value gets that offset.
	wantResult(t, await(t, ctx, out), `{"action":"accept","content":{
		"name":"Ada Lovelace","email":"ada@example.com","site":"https://example.com/ada",
		"day":"2026-03-04","at":"2026-07-01T09:30:00+01:00",
		"budget":1250.5,"nights":4,"insured":true,
		"seat":"aisle","class":"biz","meal":"veg","airport":"FAO",
		"extras":["wifi","bag"],"perks":["p2"]}}`)
	do(t, ctx, "confirmation", chromedp.WaitVisible(chromedp.CSS(`[data-outcome="answered"]`)))
}

// defaults has a default for every kind that takes one (SEP-1034),
// false included.
const defaults = `{"message":"Confirm the usual settings","requestedSchema":{"type":"object","properties":{
	"name":   {"type":"string","default":"Ada"},
	"budget": {"type":"number","default":99.5},
	"nights": {"type":"integer","default":3},
	"insured":{"type":"boolean","default":false},
	"seat":   {"type":"string","enum":["window","aisle"],"default":"aisle"},
	"class":  {"type":"string","oneOf":[{"const":"eco","title":"Economy"},{"const":"biz","title":"Business"}],"default":"biz"},
	"extras": {"type":"array","items":{"type":"string","enum":["wifi","lounge","bag"]},"default":["lounge"]}
},"required":["name"]}}`

func TestDefaultsAcceptedUntouched(t *testing.T) {
	b := StartBridge(t, nil)
	ctx := NewBrowser(t)
	openWidget(t, ctx, b)
	out := b.Elicit(t, defaults, nil)
	waitForm(t, ctx)
	do(t, ctx, "send untouched", chromedp.Click(action("accept")))
	wantResult(t, await(t, ctx, out), `{"action":"accept","content":{
		"name":"Ada","budget":99.5,"nights":3,"insured":false,"seat":"aisle","class":"biz","extras":["lounge"]}}`)
}

func TestOptionalFieldsOmitted(t *testing.T) {
	b := StartBridge(t, nil)
	ctx := NewBrowser(t)
	openWidget(t, ctx, b)
	out := b.Elicit(t, `{"message":"A few details","requestedSchema":{"type":"object","properties":{
		"name":   {"type":"string"},
		"note":   {"type":"string"},
		"email":  {"type":"string","format":"email"},
		"budget": {"type":"number"},
		"insured":{"type":"boolean"},
		"seat":   {"type":"string","enum":["window","aisle"]},
		"extras": {"type":"array","items":{"type":"string","enum":["wifi","bag"]}}
	},"required":["name"]}}`, nil)
	waitForm(t, ctx)
	// Typed and then cleared again: still no answer.
	do(t, ctx, "fill", chromedp.SendKeys(field("name", "textarea, input"), "Ada"), chromedp.SendKeys(field("note", "textarea, input"), "x"))
	setValue(t, ctx, field("note", "textarea, input"), "")
	do(t, ctx, "send", chromedp.Click(action("accept")))
	wantResult(t, await(t, ctx, out), `{"action":"accept","content":{"name":"Ada"}}`)
}

// TestNumberNotUnderstood: a number the person typed that cannot be read
// ("12e") is shown as a problem and stops Send; it is never dropped from
// the answer as if the field were empty (as <input type=number> would).
// A decimal comma, all a phone's decimal pad has in much of Europe, is
// read as the point.
func TestNumberNotUnderstood(t *testing.T) {
	b := StartBridge(t, nil)
	ctx := NewBrowser(t)
	openWidget(t, ctx, b)
	out := b.Elicit(t, `{"message":"Your budget?","requestedSchema":{"type":"object","properties":{
		"name":   {"type":"string"},
		"budget": {"type":"number","minimum":0}
	}}}`, nil)
	waitForm(t, ctx)
	do(t, ctx, "type", chromedp.SendKeys(field("name", "textarea, input"), "Ada"), chromedp.SendKeys(field("budget", "input"), "12e"))
	do(t, ctx, "send", chromedp.Click(action("accept")))
	do(t, ctx, "the problem shows", chromedp.WaitVisible(chromedp.CSS(`[data-field="budget"] .fb-error`)))
	noResultYet(t, out, "with the budget unreadable")
	if got := eval[string](t, ctx, `document.querySelector('[data-field="budget"] input').value`); got != "12e" {
		t.Errorf("the box holds %q; want the text as typed", got)
	}
	setValue(t, ctx, field("budget", "input"), "12,5")
	// The problem and the summary above the form leave, moving Send.
	do(t, ctx, "the problem leaves", chromedp.WaitNotPresent(chromedp.CSS(`.fb-error`)))
	do(t, ctx, "send again", chromedp.Click(action("accept")))
	wantResult(t, await(t, ctx, out), `{"action":"accept","content":{"name":"Ada","budget":12.5}}`)
}

// answerWith shows a request with one required text field, focused as
// the widget focuses it when a form opens, then runs act, and checks what
// the caller gets. Each case has its own bridge and page, so one failing
// does not leave a request behind for the next.
func answerWith(t *testing.T, act chromedp.Action[chromedp.Void], want string) {
	b := StartBridge(t, nil)
	ctx := NewBrowser(t)
	openWidget(t, ctx, b)
	out := b.Elicit(t, `{"message":"Share your phone number?","requestedSchema":{"type":"object","properties":{"phone":{"type":"string"}},"required":["phone"]}}`, nil)
	id := waitForm(t, ctx)
	do(t, ctx, "answer", chromedp.Focus(field("phone", "textarea, input")), act)
	wantResult(t, await(t, ctx, out), want)
	do(t, ctx, "form leaves", chromedp.WaitNotPresent(chromedp.CSS(`form[data-elicitation-id=`+css(id)+`]`)))
}

func TestDecline(t *testing.T) {
	answerWith(t, chromedp.Click(action("decline")), `{"action":"decline"}`)
}

// TestSkip clicks "Skip" while the empty required field has focus:
// the click must count even though leaving the field shows its error.
func TestSkip(t *testing.T) {
	answerWith(t, chromedp.Click(action("cancel")), `{"action":"cancel"}`)
}

func TestEscape(t *testing.T) {
	answerWith(t, chromedp.KeyEvent(kb.Escape), `{"action":"cancel"}`)
}

// TestEscapeKeepsTypedAnswers: once the person has typed, Escape (pressed to
// close a picker, say) does not throw the form away.
func TestEscapeKeepsTypedAnswers(t *testing.T) {
	b := StartBridge(t, nil)
	ctx := NewBrowser(t)
	openWidget(t, ctx, b)
	out := b.Elicit(t, `{"message":"Where to?","requestedSchema":{"type":"object","properties":{"city":{"type":"string"}}}}`, nil)
	waitForm(t, ctx)
	do(t, ctx, "type, then Escape", chromedp.SendKeys(field("city", "textarea, input"), "Lisbon"), chromedp.KeyEvent(kb.Escape))
	select {
	case o := <-out:
		t.Fatalf("Escape after typing answered the request: %+v %v", o.Result, o.Err)
	case <-time.After(500 * time.Millisecond):
	}
	if got := eval[string](t, ctx, `document.querySelector("[data-field=city] textarea, [data-field=city] input").value`); got != "Lisbon" {
		t.Errorf("the field holds %q after Escape; want what was typed", got)
	}
	do(t, ctx, "send", chromedp.Click(action("accept")))
	wantResult(t, await(t, ctx, out), `{"action":"accept","content":{"city":"Lisbon"}}`)
}

// TestPauseAfterSpace: a person who pauses after a space (while the
// widget re-renders for its clock) still sends what they typed.
func TestPauseAfterSpace(t *testing.T) {
	b := StartBridge(t, nil)
	ctx := NewBrowser(t)
	openWidget(t, ctx, b)
	out := b.Elicit(t, `{"message":"Your full name","requestedSchema":{"type":"object","properties":{"name":{"type":"string"}},"required":["name"]}}`, nil)
	waitForm(t, ctx)
	do(t, ctx, "type with a pause",
		chromedp.SendKeys(field("name", "textarea, input"), "Ada "),
		chromedp.Sleep(2500*time.Millisecond),
		chromedp.SendKeys(field("name", "textarea, input"), "Lovelace"),
		chromedp.Click(action("accept")),
	)
	wantResult(t, await(t, ctx, out), `{"action":"accept","content":{"name":"Ada Lovelace"}}`)
}

// TestFastTypingKeepsEveryCharacter types quickly into a text input and
// a text area several times: every character, spaces included, must end
// up in the field. (A plain textarea in the same browser never loses one,
// so a loss here is the widget's.)
func TestFastTypingKeepsEveryCharacter(t *testing.T) {
	b := StartBridge(t, nil)
	ctx := NewBrowser(t)
	openWidget(t, ctx, b)
	out := b.Elicit(t, `{"message":"Address","requestedSchema":{"type":"object","properties":{
		"street":{"type":"string"},"city":{"type":"string","maxLength":40}},"required":["street","city"]}}`, nil)
	waitForm(t, ctx)
	const text = "12 Rua Augusta 3 Esq"
	for _, f := range []struct{ key, control string }{{"street", "textarea, input"}, {"city", "input"}} {
		for i := range 5 {
			setValue(t, ctx, field(f.key, f.control), "")
			do(t, ctx, "type", chromedp.SendKeys(field(f.key, f.control), text), chromedp.Sleep(200*time.Millisecond))
			got := eval[string](t, ctx, `document.querySelector(`+strconv.Quote(string(field(f.key, f.control)))+`).value`)
			if got != text {
				t.Errorf("%s, try %d: typed %q, the field holds %q", f.key, i+1, text, got)
			}
		}
	}
	do(t, ctx, "cancel", chromedp.Click(action("cancel")))
	wantResult(t, await(t, ctx, out), `{"action":"cancel"}`)
}
