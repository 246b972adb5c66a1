package ui

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/formbridge/formbridge/app/elicit"
	"github.com/formbridge/formbridge/app/wire"
	"github.com/maxence-charriere/go-app/v9/pkg/app"
)

// everyKind is a schema with each field kind the widget renders.
const everyKind = `{"type":"object","properties":{
 "name":{"type":"string","title":"Your name","description":"As on your badge","maxLength":50},
 "bio":{"type":"string","title":"About you"},
 "email":{"type":"string","format":"email"},
 "site":{"type":"string","format":"uri"},
 "day":{"type":"string","format":"date","default":"2026-12-31"},
 "when":{"type":"string","format":"date-time","default":"2026-12-31T09:30:00Z"},
 "age":{"type":"integer","minimum":18,"maximum":130},
 "ratio":{"type":"number","default":2.5},
 "agree":{"type":"boolean","title":"I agree"},
 "newsletter":{"type":"boolean","default":true},
 "size":{"type":"string","enum":["s","m","l"]},
 "country":{"type":"string","oneOf":[{"const":"fr","title":"France"},{"const":"de","title":"Germany"},{"const":"it","title":"Italy"},{"const":"es","title":"Spain"},{"const":"pt","title":"Portugal"},{"const":"nl","title":"Netherlands"}]},
 "tags":{"type":"array","items":{"type":"string","enum":["red","green","blue"]},"minItems":1,"maxItems":2,"default":["green"]}
},"required":["name","agree","size"]}`

func formParams(t *testing.T, message, schema string) wire.ElicitParams {
	t.Helper()
	if !json.Valid([]byte(schema)) {
		t.Fatalf("test schema is not JSON: %s", schema)
	}
	return wire.ElicitParams{Message: message, RequestedSchema: json.RawMessage(schema)}
}

var testMeta = wire.RequestMeta{
	Requester: wire.Implementation{Name: "deploy-bot", Title: "Deploy Bot", Version: "1.2.0"},
	CreatedAt: time.Date(2026, 12, 2, 10, 0, 0, 0, time.UTC),
	ExpiresAt: time.Date(2026, 12, 2, 10, 10, 0, 0, time.UTC),
}

// answers records what a card sent.
type answers struct {
	sent []wire.ElicitResult
	down bool // offline: every answer fails
}

func (a *answers) offline() bool { return a.down }

func (a *answers) answer(it *item, res wire.ElicitResult) {
	if a.down {
		it.Draft.SendError = "offline"
		return
	}
	a.sent = append(a.sent, res)
	it.Draft.Sent = res.Action
}

// mountForm mounts a form for a request built from schema.
func mountForm(t *testing.T, message, schema string) (*requestCard, *answers, app.ClientDispatcher) {
	t.Helper()
	it := itemFor(t, "r1", 1, formParams(t, message, schema), testMeta)
	if it.Form == nil {
		t.Fatalf("schema refused: %s", it.Problem)
	}
	useTestStorage(t)
	a := &answers{}
	f := &requestCard{Item: it, Answer: a}
	d := app.NewClientTester(f)
	t.Cleanup(d.Close)
	return f, a, d
}

// rerender renders f again after its state changed.
func rerender(f app.Composer, d app.ClientDispatcher) {
	f.Update()
	d.Consume()
}

func TestFormRendersEachKind(t *testing.T) {
	f, _, _ := mountForm(t, "Tell us about you", everyKind)
	page := render(t, f)

	form := page.mustFind(t, "form[data-elicitation-id=r1]")
	if !form.on("novalidate") {
		t.Error("the form does not turn off the browser's own validation bubbles")
	}

	tests := []struct {
		key, sel string
		attrs    map[string]string
	}{
		// maxLength 50 counts characters, maxlength UTF-16 units: twice as
		// many, so that 50 emoji fit (the check says when there are more).
		{"name", "input", map[string]string{"type": "text", "maxlength": "100", "aria-required": "true"}},
		// No dir="auto" on a text area: a long paste took seconds
		// (field_text.go); app.css sets unicode-bidi: plaintext instead.
		{"bio", "textarea", map[string]string{"dir": ""}},
		{"email", "input", map[string]string{"type": "email"}},
		{"site", "input", map[string]string{"type": "url"}},
		{"day", "input", map[string]string{"type": "date", "value": "2026-12-31", "min": "0001-01-01", "max": "9999-12-31"}},
		{"when", "input", map[string]string{"type": "datetime-local", "value": "2026-12-31T09:30", "min": "0001-01-01T00:00", "max": "9999-12-31T23:59"}},
		{"age", "input", map[string]string{"type": "text", "inputmode": "numeric", "min": "", "max": ""}},
		{"ratio", "input", map[string]string{"type": "text", "inputmode": "", "value": "2.5"}},
		{"agree", "input", map[string]string{"type": "checkbox", "checked": "false"}},
		{"country", "select", nil},
	}
	for _, tt := range tests {
		field := page.find("[data-field=" + tt.key + "]")
		if field == nil {
			t.Errorf("%s: no [data-field]", tt.key)
			continue
		}
		ctl := field.find(tt.sel)
		if ctl == nil {
			t.Errorf("%s: no %s inside [data-field]", tt.key, tt.sel)
			continue
		}
		for k, want := range tt.attrs {
			if got := ctl.attrs[k]; got != want {
				t.Errorf("%s: %s %s=%q, want %q", tt.key, tt.sel, k, got, want)
			}
		}
		// Every control has a label pointing at it (checkbox included).
		if id := ctl.attrs["id"]; field.find("label[for="+id+"]") == nil {
			t.Errorf("%s: no label for #%s", tt.key, id)
		}
	}

	// Labels: the title, else the key humanised; required in words.
	if got := page.mustFind(t, "[data-field=name]").mustFind(t, "label").textContent(); got != "Your name (required)" {
		t.Errorf("name label = %q", got)
	}
	if got := page.mustFind(t, "[data-field=email]").mustFind(t, "label").textContent(); got != "Email" {
		t.Errorf("email label = %q", got)
	}
	// A required yes/no is a checkbox that always answers: no mark that
	// would read as "you must tick this".
	if got := page.mustFind(t, "[data-field=agree]").mustFind(t, "label").textContent(); got != "I agree" {
		t.Errorf("agree label = %q", got)
	}

	// The description is help text the input is described by.
	name := page.mustFind(t, "[data-field=name]")
	in := name.mustFind(t, "input")
	helpNode := name.find("p[class=fb-help]")
	if helpNode == nil || helpNode.textContent() != "As on your badge" {
		t.Fatalf("no help text for name")
	}
	if !strings.Contains(in.attrs["aria-describedby"], helpNode.attrs["id"]) {
		t.Errorf("name input aria-describedby=%q does not name the help %q", in.attrs["aria-describedby"], helpNode.attrs["id"])
	}

	// Optional yes/no: Yes / No / No answer, the default chosen.
	nl := page.mustFind(t, "fieldset[data-field=newsletter]")
	radios := nl.findAll("input[type=radio]")
	if len(radios) != 3 {
		t.Fatalf("newsletter has %d radios, want 3", len(radios))
	}
	if got := labelsOf(nl); strings.Join(got, "|") != "Yes|No|No answer" {
		t.Errorf("newsletter options = %v", got)
	}
	if !radios[0].on("checked") || radios[1].on("checked") || radios[2].on("checked") {
		t.Error("newsletter: the default (Yes) is not the only one chosen")
	}

	// Required short select: radios, no "No answer".
	size := page.mustFind(t, "fieldset[data-field=size]")
	if got := labelsOf(size); strings.Join(got, "|") != "s|m|l" {
		t.Errorf("size options = %v", got)
	}
	// Long select: a drop-down showing titles, with an empty first choice.
	opts := page.mustFind(t, "[data-field=country]").findAll("option")
	if len(opts) != 7 || opts[0].textContent() != "No answer" || opts[1].textContent() != "France" {
		t.Errorf("country options: %d, first %q", len(opts), opts[1].textContent())
	}
	// Multi select: checkboxes, limits stated, default ticked.
	tags := page.mustFind(t, "fieldset[data-field=tags]")
	boxes := tags.findAll("input[type=checkbox]")
	if len(boxes) != 3 || boxes[0].on("checked") || !boxes[1].on("checked") {
		t.Errorf("tags: %d boxes, default not ticked as given", len(boxes))
	}
	if !strings.Contains(tags.textContent(), "Choose between 1 and 2") {
		t.Errorf("tags do not state their limits: %q", tags.textContent())
	}

	for _, action := range []string{"accept", "decline", "cancel"} {
		page.mustFind(t, "button[data-action="+action+"]")
	}
	if got := page.mustFind(t, "button[data-action=accept]").textContent(); got != "Send" {
		t.Errorf("accept button reads %q", got)
	}
	// The requester's version means nothing to the person answering.
	if got := page.mustFind(t, "h2").textContent(); got != "Deploy Bot" {
		t.Errorf("header = %q", got)
	}
	if got := page.mustFind(t, "button[data-action=cancel]").textContent(); got != "Skip" {
		t.Errorf("cancel button reads %q", got)
	}
	// What tells Decline and Skip apart, on hover and to screen readers.
	for action, want := range map[string]string{"decline": "Say no", "cancel": "Leave it unanswered"} {
		if got := page.mustFind(t, "button[data-action="+action+"]").attrs["title"]; got != want {
			t.Errorf("%s button's title %q; want %q", action, got, want)
		}
	}
}

// A form of no fields asks for a yes: its button says Accept, not Send.
func TestFormNoFieldsAccept(t *testing.T) {
	f, _, _ := mountForm(t, "Proceed with the database migration?", `{"type":"object","properties":{}}`)
	if got := render(t, f).mustFind(t, "button[data-action=accept]").textContent(); got != "Accept" {
		t.Errorf("accept button reads %q, want Accept", got)
	}
}

// labelsOf lists the visible texts of a group's options.
func labelsOf(n *node) []string {
	var out []string
	for _, l := range n.findAll("label") {
		out = append(out, l.textContent())
	}
	return out
}

func TestFormDefaultsSentUntouched(t *testing.T) {
	f, a, d := mountForm(t, "Defaults", `{"type":"object","properties":{
		"n":{"type":"integer","default":3},
		"b":{"type":"boolean","default":false},
		"s":{"type":"string","enum":["x","y"],"default":"y"},
		"o":{"type":"string"}}}`)
	f.onAccept(d.Context(), app.Event{Value: app.Undefined()})
	if len(a.sent) != 1 {
		t.Fatalf("sent %d answers, want 1 (errors: %v)", len(a.sent), f.Item.Draft.Errors)
	}
	got, _ := json.Marshal(a.sent[0])
	if want := `{"action":"accept","content":{"b":false,"n":3,"s":"y"}}`; string(got) != want {
		t.Errorf("sent %s, want %s", got, want)
	}
}

// A second press of Send, or of Decline, while an answer is on its way
// sends nothing more.
func TestFormSendsOnce(t *testing.T) {
	f, a, d := mountForm(t, "Once", `{"type":"object","properties":{"n":{"type":"integer","default":3}}}`)
	f.onAccept(d.Context(), app.Event{Value: app.Undefined()})
	f.onAccept(d.Context(), app.Event{Value: app.Undefined()})
	f.onDecline(d.Context(), app.Event{Value: app.Undefined()})
	if len(a.sent) != 1 || a.sent[0].Action != wire.ActionAccept {
		t.Errorf("sent %+v, want the one accept", a.sent)
	}
}

func TestFormRefusesInvalidAndShowsErrors(t *testing.T) {
	f, a, d := mountForm(t, "Who?", everyKind)
	page := render(t, f)
	if page.find(".fb-error") != nil || page.find("[role=alert]") != nil {
		t.Fatal("errors show before the person did anything")
	}
	// Send is not announced as unavailable: pressing it shows what is missing.
	if got, ok := page.mustFind(t, "button[data-action=accept]").attrs["aria-disabled"]; ok {
		t.Errorf("Send aria-disabled=%q on an invalid form", got)
	}

	f.onAccept(d.Context(), app.Event{Value: app.Undefined()})
	if len(a.sent) != 0 {
		t.Fatalf("an invalid form was sent: %v", a.sent)
	}
	rerender(f, d)
	page = render(t, f)
	name := page.mustFind(t, "[data-field=name]")
	in := name.mustFind(t, "input")
	if in.attrs["aria-invalid"] != "true" {
		t.Error("name input is not aria-invalid")
	}
	errLine := name.find("p[class=fb-error]")
	if errLine == nil || !strings.Contains(errLine.textContent(), "required") {
		t.Fatalf("no plain error next to name: %v", name.textContent())
	}
	if !strings.Contains(in.attrs["aria-describedby"], errLine.attrs["id"]) {
		t.Error("the error is not tied to the input with aria-describedby")
	}
	summary := page.mustFind(t, "[role=alert]")
	if !strings.Contains(summary.textContent(), "Your name") {
		t.Errorf("summary %q does not name the field", summary.textContent())
	}
	if f.firstInvalidID() != f.ids(0).control {
		t.Errorf("focus would go to %q, not the first invalid field", f.firstInvalidID())
	}

	// Fixing the fields lets it through.
	f.Item.Draft.set("name", "Ada")
	f.Item.Draft.set("size", "m")
	f.onAccept(d.Context(), app.Event{Value: app.Undefined()})
	if len(a.sent) != 1 || a.sent[0].Content["name"] != "Ada" || a.sent[0].Content["agree"] != false {
		t.Fatalf("sent %+v", a.sent)
	}
	if _, ok := a.sent[0].Content["email"]; ok {
		t.Error("an empty optional field was sent")
	}
}

func TestFormShowsBridgeRejection(t *testing.T) {
	f, a, d := mountForm(t, "Age?", `{"type":"object","properties":{"age":{"type":"integer"}}}`)
	f.Item.Draft.reject([]elicit.FieldError{{Field: "age", Code: "too_large", Message: "Enter a smaller age"}})
	rerender(f, d)
	page := render(t, f)
	if got := page.mustFind(t, "[data-field=age]").find("p[class=fb-error]"); got == nil || !strings.Contains(got.textContent(), "Enter a smaller age") {
		t.Fatal("the bridge's error is not shown next to the field")
	}
	f.onAccept(d.Context(), app.Event{Value: app.Undefined()})
	if len(a.sent) != 0 {
		t.Error("sent again before the rejected field changed")
	}
	f.Item.Draft.set("age", "40")
	f.onAccept(d.Context(), app.Event{Value: app.Undefined()})
	if len(a.sent) != 1 {
		t.Error("not sent after the rejected field changed")
	}
}

func TestFormHostileStringsAreText(t *testing.T) {
	const (
		script = `<script>alert(1)</script>`
		img    = `<img src=x onerror=alert(1)>`
		js     = `javascript:alert(1)`
		// An isolate: the bridge lets it through (overrides, U+202E, it
		// refuses in a schema and takes out of a requester).
		rli = "\u2067gnp.exe\u2069"
	)
	schema, _ := json.Marshal(map[string]any{
		"type": "object",
		"properties": map[string]any{
			"a": map[string]any{"type": "string", "title": script, "description": img},
			"b": map[string]any{"type": "string", "title": js, "enum": []string{"x"}, "enumNames": []string{rli}},
		},
	})
	f, _, _ := mountForm(t, script+"\n"+img+"\n"+js, string(schema))
	f.Item.Meta.Requester = wire.Implementation{Name: "x", Title: rli + `"><b>`}
	page := render(t, f)

	for _, tag := range []string{"script", "img", "a", "b", "iframe"} {
		if n := page.find(tag); n != nil {
			t.Errorf("server text made a <%s> element", tag)
		}
	}
	text := page.textContent()
	for _, s := range []string{script, img, js, rli} {
		if !strings.Contains(text, s) {
			t.Errorf("%q is not shown literally", s)
		}
	}
	msg := page.mustFind(t, "p[class=fb-message]")
	if msg.textContent() != script+"\n"+img+"\n"+js || msg.attrs["dir"] != "auto" {
		t.Errorf("message = %q dir=%q; want the text with its line breaks, dir=auto", msg.textContent(), msg.attrs["dir"])
	}
	// Server text sits in isolating elements: <bdi> or dir="auto".
	for _, n := range page.all(func(n *node) bool { return n.tag == "" && strings.ContainsAny(n.text, "\u2067<") }) {
		if p := n.parent; p.tag != "bdi" && p.attrs["dir"] != "auto" {
			t.Errorf("%q is in a <%s> without isolation", n.text, p.tag)
		}
	}
}

func TestFormSensitiveWarning(t *testing.T) {
	f, _, _ := mountForm(t, "Sign in", `{"type":"object","properties":{"password":{"type":"string","title":"Password"}}}`)
	page := render(t, f)
	w := page.find("div[class=fb-warning]")
	if w == nil {
		t.Fatal("no warning on a form asking for a password")
	}
	if want := "seems to ask for a password. If it is yours, do not type it here, and press Decline"; !strings.Contains(w.textContent(), want) {
		t.Errorf("warning reads %q; want %q", w.textContent(), want)
	}
	// A screen reader user lands on the field, not on the warning above
	// it: the field names the warning as its description.
	in := page.mustFind(t, "[data-field=password]").mustFind(t, "textarea")
	if w.attrs["id"] == "" || !strings.HasPrefix(in.attrs["aria-describedby"], w.attrs["id"]) {
		t.Errorf("the field's aria-describedby %q does not start with the warning's id %q", in.attrs["aria-describedby"], w.attrs["id"])
	}
	// The warning comes before the fields.
	var order []string
	for _, n := range page.all(func(n *node) bool { return n.attrs["class"] == "fb-warning" || n.attrs["data-field"] != "" }) {
		order = append(order, n.attrs["class"]+n.attrs["data-field"])
	}
	if len(order) < 2 || order[0] != "fb-warning" {
		t.Errorf("order = %v, want the warning first", order)
	}
}

// What is typed into a field that seems to ask for a secret is never
// written to the tab's storage for a reload; the rest of the draft is.
func TestFormDraftKeepsNoSecret(t *testing.T) {
	f, _, d := mountForm(t, "Sign in", `{"type":"object","properties":{"user":{"type":"string"},"password":{"type":"string","title":"Password"}}}`)
	stored := tabStorage.(mapStorage)
	f.Item.Draft.set("user", "ada")
	f.Item.Draft.set("password", "hunter2")
	f.edited(d.Context())
	raw := stored[draftKey("r1")]
	if !strings.Contains(raw, "ada") || strings.Contains(raw, "hunter2") {
		t.Errorf("stored draft %s; want the user name and not the password", raw)
	}
	if f.Item.Draft.value("password") != "hunter2" {
		t.Error("the password left the form on screen too")
	}
}

// The form is named by its title and described by its message: a screen
// reader taken straight into the first field hears the question too.
func TestFormDescribedByMessage(t *testing.T) {
	f, _, _ := mountForm(t, "Deploy 1.4.2 to production?", `{"type":"object","properties":{"confirm":{"type":"boolean"}}}`)
	page := render(t, f)
	form := page.mustFind(t, "form[data-elicitation-id=r1]")
	msg := page.mustFind(t, "p[class=fb-message]")
	if id := msg.attrs["id"]; id == "" || form.attrs["aria-describedby"] != id {
		t.Errorf("form aria-describedby %q, message id %q", form.attrs["aria-describedby"], id)
	}
}

func TestFormOfflineKeepsAnswer(t *testing.T) {
	f, a, d := mountForm(t, "x", `{"type":"object","properties":{"n":{"type":"string","maxLength":10}}}`)
	a.down = true
	f.Item.Draft.set("n", "kept")
	f.onAccept(d.Context(), app.Event{Value: app.Undefined()})
	rerender(f, d)
	page := render(t, f)
	if page.find("p[class=fb-send-error]") == nil {
		t.Error("no message when the answer could not be sent")
	}
	if got := f.Item.Draft.value("n"); got != "kept" {
		t.Errorf("the typed value is gone from the draft: %q", got)
	}
	// The box is not re-set from the draft while the person types: it
	// keeps rendering its starting value, so go-app never touches it.
	if got := page.mustFind(t, "[data-field=n]").mustFind(t, "input").attrs["value"]; got == "kept" {
		t.Errorf("the text box's value attribute follows the draft")
	}
	// Typing again is a new answer: the old failure is not shown beside it.
	f.onFieldInput("n")(d.Context(), app.Event{Value: app.Undefined()})
	rerender(f, d)
	if render(t, f).find("p[class=fb-send-error]") != nil {
		t.Error("the failed send is still reported after an edit")
	}
}

func TestDeclineAndNotNow(t *testing.T) {
	f, a, d := mountForm(t, "x", everyKind)
	f.onDecline(d.Context(), app.Event{Value: app.Undefined()})
	f.onSkip(d.Context(), app.Event{Value: app.Undefined()}) // ignored: already answered
	if len(a.sent) != 1 || a.sent[0].Action != "decline" || a.sent[0].Content != nil {
		t.Fatalf("sent %+v, want one decline without content", a.sent)
	}
	rerender(f, d)
	page := render(t, f)
	if !page.mustFind(t, "button[data-action=cancel]").on("disabled") {
		t.Error("buttons stay enabled while the answer is on its way")
	}

	g, b, e := mountForm(t, "x", everyKind)
	g.onSkip(e.Context(), app.Event{Value: app.Undefined()})
	if len(b.sent) != 1 || b.sent[0].Action != "cancel" {
		t.Fatalf("Skip sent %+v, want cancel", b.sent)
	}
}

func TestFirstRenderShowsNoErrors(t *testing.T) {
	// Before OnMount runs, as go-app's first render happens.
	it := itemFor(t, "r1", 1, formParams(t, "x", shortSchema), testMeta)
	page := render(t, &requestCard{Item: it, Answer: &answers{}})
	if page.find("p[class=fb-error]") != nil {
		t.Error("errors shown on the first render")
	}
}

// TestFormPatternExample: a pattern's sample (the bridge's reading) is
// the field's hint, tied to its input, and its error says it again.
func TestFormPatternExample(t *testing.T) {
	f, a, d := mountForm(t, "Which order?", `{"type":"object","properties":{
		"po":{"type":"string","title":"Purchase order","pattern":"^PO-[0-9]{6}$"},
		"ref":{"type":"string","pattern":"^R-[0-9]+$","maxLength":10}},"required":["po"]}`)
	page := render(t, f)
	po := page.mustFind(t, "[data-field=po]")
	hint := po.mustFind(t, "p[class=fb-hint]")
	if got := hint.textContent(); got != "For example, PO-123456" {
		t.Errorf("hint %q; want the pattern's example", got)
	}
	// The sample does not hide the field's limits.
	if got := page.mustFind(t, "[data-field=ref]").mustFind(t, "p[class=fb-hint]").textContent(); got != "For example, R-123. Up to 10 characters" {
		t.Errorf("hint %q; want the example and the limit", got)
	}
	if !strings.Contains(po.mustFind(t, "input").attrs["aria-describedby"], hint.attrs["id"]) {
		t.Error("the hint is not tied to the input")
	}
	f.Item.Draft.set("po", "123456")
	f.onAccept(d.Context(), app.Event{Value: app.Undefined()})
	if len(a.sent) != 0 {
		t.Fatalf("an answer off the pattern was sent: %v", a.sent)
	}
	rerender(f, d)
	if got := render(t, f).mustFind(t, "[data-field=po]").mustFind(t, "p[class=fb-error]").textContent(); !strings.Contains(got, "Enter it in this format: PO-123456") {
		t.Errorf("error %q; want the example in it", got)
	}
}
