package ui

import (
	"strconv"
	"time"

	"github.com/formbridge/formbridge/app/elicit"
	"github.com/formbridge/formbridge/app/wire"
	"github.com/maxence-charriere/go-app/v9/pkg/app"
)

// answerer sends a person's answer to the bridge. The widget implements
// it; tests use a recorder. An implementation records a failure (the
// widget is offline) on it.Draft.SendError; offline says beforehand
// that an answer would fail.
type answerer interface {
	answer(it *item, res wire.ElicitResult)
	offline() bool
}

// requestCard shows the open request: who asks and their message, then
// for form mode the fields and Send / Decline / Skip, for URL mode the
// address and Open link / Decline / Skip (url_card.go). One component
// serves both kinds: each go-app component type carries its own copy of
// every app.Compo method in the wasm.
type requestCard struct {
	app.Compo

	Item      *item
	Rev       int    // bumped by the widget when it changes Item from outside (a rejection)
	Countdown string // "Closes in 4 min" in the last minutes, else ""
	Answer    answerer

	// focusedFor is the request whose card already got focus, so focus
	// moves only when a different request opens; seenRev is the last
	// Rev acted on, so a rejection moves focus to its first field once.
	focusedFor string
	seenRev    int

	// pressing is set while a pointer is down on an action button; a
	// field left meanwhile (the press moved focus) waits in deferred, for
	// the request deferredFor, until the pointer is up. Its error would
	// otherwise push the buttons down between press and release, and the
	// click would land on nothing.
	pressing       bool
	deferred       []string
	deferredFor    string
	releasePointer []func()
}

func (f *requestCard) OnMount(ctx app.Context) {
	if app.IsClient {
		// The pointer may come up anywhere on the page, not only on the
		// button it went down on.
		f.releasePointer = []func(){
			app.Window().AddEventListener("pointerup", f.onPointerRelease),
			app.Window().AddEventListener("pointercancel", f.onPointerRelease),
		}
	}
	f.prepare(ctx)
}

func (f *requestCard) OnDismount() {
	for _, release := range f.releasePointer {
		release()
	}
	f.releasePointer = nil
}

// onActionPress notes a pointer going down on the action buttons.
func (f *requestCard) onActionPress(ctx app.Context, e app.Event) {
	f.pressing = true
}

// settleDelay is how long after the pointer comes up the fields it left
// show their problems: after the click, which the browser sends right
// after the release, has landed.
const settleDelay = 100 * time.Millisecond

// onPointerRelease shows the problems of the fields left during a press,
// once the click it ended has been delivered.
func (f *requestCard) onPointerRelease(ctx app.Context, e app.Event) {
	if !f.pressing {
		return
	}
	after(ctx, settleDelay, func(ctx app.Context) {
		f.pressing = false
		keys, forID := f.deferred, f.deferredFor
		f.deferred, f.deferredFor = nil, ""
		if f.Item == nil || f.Item.ID != forID {
			return // answered, or another request is open now
		}
		changed := false
		for _, k := range keys {
			changed = f.Item.Draft.touch(k) || changed
		}
		if changed {
			f.save()
			// The window's listener updates the root, which does not
			// re-render this card when its props did not change.
			f.Update()
		}
	})
}

func (f *requestCard) OnUpdate(ctx app.Context) {
	f.prepare(ctx)
}

// prepare computes the errors of a newly shown form and puts focus on
// a newly shown request (focusOnShow). A URL-mode request's focus goes to
// its title, never to Open link: a stray Enter must not open a link. So
// does that of a request that cannot be shown as a form, whose title is
// where a screen reader should start.
func (f *requestCard) prepare(ctx app.Context) {
	it := f.Item
	if it == nil {
		return
	}
	if it.Params.IsURL() || it.Form == nil {
		if f.focusedFor != it.ID {
			f.focusedFor = it.ID
			title := it.elemID("title")
			ctx.Defer(func(app.Context) { focusOnShow(title, "") })
		}
		return
	}
	if it.Draft.Errors == nil {
		f.check()
	}
	switch {
	case f.focusedFor != it.ID: // never for the warm-up's sample, which has no id
		// A switch from another request reuses the boxes, which still
		// hold what was typed there; a fresh mount rendered the starting
		// values, which only need the draft where it moved on from them.
		switched := f.focusedFor != ""
		f.focusedFor, f.seenRev = it.ID, f.Rev
		ctx.Defer(func(app.Context) {
			f.showDraft(switched)
			first := ""
			if len(it.Form.Fields) > 0 {
				first = it.elemID("f0")
			}
			focusOnShow(it.elemID("title"), first)
		})
	case f.seenRev != f.Rev:
		f.seenRev = f.Rev
		if len(it.Draft.Rejected) > 0 && mayTakeFocus() {
			if id := f.firstInvalidID(); id != "" {
				ctx.Defer(func(app.Context) { focusElement(id) })
			}
		}
	}
}

// showDraft puts the draft's values into the text boxes of a request
// that has just opened. The boxes render their starting values only (see
// item.initial), and go-app reuses them across requests, so after a
// switch a box could still show what was typed for another request.
// After a fresh mount, a box is only written while it still shows its
// starting value, so a keystroke that came first is never overwritten.
func (f *requestCard) showDraft(switched bool) {
	it := f.Item
	for i := range it.Form.Fields {
		fd := &it.Form.Fields[i]
		if !typed(fd) {
			continue
		}
		want := shownValue(fd, it.Draft.value(fd.Key))
		rendered := shownValue(fd, it.initialValue(fd.Key))
		switch {
		case switched:
			setControlValue(f.ids(i).control, want)
		case want != rendered:
			setControlValueIf(f.ids(i).control, rendered, want)
		}
	}
}

// check validates the draft; it reports whether the form may be sent.
func (f *requestCard) check() (map[string]any, bool) {
	return f.Item.Draft.check(f.Item.Form, collectOptions)
}

// save keeps the draft in session storage so it survives a reload, all
// but what was typed into a field that seems to ask for a secret: the
// storage is plain text that any script of the page's origin can read.
func (f *requestCard) save() {
	if f.Item.left {
		return
	}
	d := f.Item.Draft
	if len(f.Item.Sensitive) > 0 {
		kept := *d
		kept.Inputs = make(elicit.Inputs, len(d.Inputs))
		for k, v := range d.Inputs {
			kept.Inputs[k] = v
		}
		for _, s := range f.Item.Sensitive {
			delete(kept.Inputs, s.Field)
		}
		d = &kept
	}
	store(draftKey(f.Item.ID), d)
}

// edited is called after every change to a field's value.
func (f *requestCard) edited(ctx app.Context) {
	f.Item.Draft.SendError = ""
	f.check()
	f.save()
}

// onFieldInput handles typing in a text, number or date control and a
// choice in a drop-down list.
func (f *requestCard) onFieldInput(key string) app.EventHandler {
	return func(ctx app.Context, e app.Event) {
		f.Item.Draft.set(key, ctx.JSSrc().Get("value").String())
		f.noteUnfinished(f.Item.Form.Field(key), ctx.JSSrc())
		f.edited(ctx)
	}
}

// noteUnfinished records whether a date box shows part of a date. The
// browser then gives its value as "" (validity.badInput) and sends no
// input event while the person types the rest, so a date typed all but
// its year would go as no answer, or "This is required" show beside a
// box that visibly holds most of a date. It reports a change.
func (f *requestCard) noteUnfinished(fd *elicit.Field, box app.Value) bool {
	if !dateField(fd) || !box.Truthy() {
		return false
	}
	d := f.Item.Draft
	switch unfinished := box.Get("validity").Get("badInput").Bool(); {
	case unfinished && d.Unfinished[fd.Key] == "":
		if d.Unfinished == nil {
			d.Unfinished = map[string]string{}
		}
		d.Unfinished[fd.Key] = "Finish the date: day, month and year"
		if fd.Format == elicit.FormatDateTime {
			d.Unfinished[fd.Key] = "Finish the date and the time"
		}
		d.set(fd.Key) // no value until it is whole; and the person changed it
		return true
	case !unfinished && d.Unfinished[fd.Key] != "":
		delete(d.Unfinished, fd.Key)
		return true
	}
	return false
}

// noteUnfinishedAll looks at every date box of the form (noteUnfinished).
func (f *requestCard) noteUnfinishedAll() {
	for i := range f.Item.Form.Fields {
		if fd := &f.Item.Form.Fields[i]; dateField(fd) {
			f.noteUnfinished(fd, app.Window().GetElementByID(f.ids(i).control))
		}
	}
}

// dateField reports whether fd is answered in a date or date-time box.
func dateField(fd *elicit.Field) bool {
	return fd != nil && (fd.Format == elicit.FormatDate || fd.Format == elicit.FormatDateTime)
}

// onOptionPick handles a radio button being chosen (select options,
// and Yes / No / No answer).
func (f *requestCard) onOptionPick(key, value string) app.EventHandler {
	return func(ctx app.Context, e app.Event) {
		if value == "" {
			f.Item.Draft.set(key)
		} else {
			f.Item.Draft.set(key, value)
		}
		f.edited(ctx)
	}
}

// onBoxCheck handles the checkbox of a required yes/no question.
func (f *requestCard) onBoxCheck(key string) app.EventHandler {
	return func(ctx app.Context, e app.Event) {
		f.Item.Draft.set(key, strconv.FormatBool(ctx.JSSrc().Get("checked").Bool()))
		f.edited(ctx)
	}
}

// onChoiceToggle handles one checkbox of a multiple choice.
func (f *requestCard) onChoiceToggle(key, value string) app.EventHandler {
	return func(ctx app.Context, e app.Event) {
		f.Item.Draft.toggle(key, value, ctx.JSSrc().Get("checked").Bool())
		f.edited(ctx)
	}
}

// onFieldLeave shows the field's problems once the person moves on.
func (f *requestCard) onFieldLeave(key string) app.EventHandler {
	return func(ctx app.Context, e app.Event) {
		// focusout also fires when moving between the radio buttons of
		// one group; only leaving the whole field counts.
		if next := e.Get("relatedTarget"); next.Truthy() && ctx.JSSrc().Call("contains", next).Bool() {
			return
		}
		if f.pressing {
			f.deferred, f.deferredFor = append(f.deferred, key), f.Item.ID
			return
		}
		unfinished := false
		if fd := f.Item.Form.Field(key); dateField(fd) {
			if unfinished = f.noteUnfinished(fd, ctx.JSSrc().Call("querySelector", "input")); unfinished {
				f.check()
			}
		}
		if f.Item.Draft.touch(key) || unfinished {
			f.save()
		}
	}
}

// onAccept sends the answer when it is valid; otherwise it shows every
// problem and moves focus to the first.
func (f *requestCard) onAccept(ctx app.Context, e app.Event) {
	e.PreventDefault()
	d := f.Item.Draft
	if d.Sent != "" {
		return
	}
	f.noteUnfinishedAll()
	content, ok := f.check()
	if !ok || len(d.Rejected) > 0 {
		d.Submitted = true
		if id := f.firstInvalidID(); id != "" {
			ctx.Defer(func(app.Context) { focusElement(id) })
		}
		return
	}
	f.Answer.answer(f.Item, wire.ElicitResult{Action: wire.ActionAccept, Content: content})
}

// onDecline tells the server the person said no.
func (f *requestCard) onDecline(ctx app.Context, e app.Event) {
	if f.Item.Draft.Sent == "" {
		f.Answer.answer(f.Item, wire.ElicitResult{Action: wire.ActionDecline})
	}
}

// onSkip ("Skip") tells the server the person did not choose.
func (f *requestCard) onSkip(ctx app.Context, e app.Event) {
	if f.Item.Draft.Sent == "" {
		f.Answer.answer(f.Item, wire.ElicitResult{Action: wire.ActionCancel})
	}
}

// onKeyDown: Escape is "Skip" (see dismissKey), until the person
// changes a field: then one stray Escape (closing a date picker, ending
// a word being composed, which has changed the field already) must not
// throw their answers away. The button still does it.
func (f *requestCard) onKeyDown(ctx app.Context, e app.Event) {
	if len(f.Item.Draft.Changed) == 0 && dismissKey(e, f.Item.elemID("title")) {
		e.PreventDefault()
		f.onSkip(ctx, e)
	}
}

// firstInvalidID is the element id of the first field with a problem.
func (f *requestCard) firstInvalidID() string {
	d := f.Item.Draft
	for i := range f.Item.Form.Fields {
		key := f.Item.Form.Fields[i].Key
		if d.Errors[key] != "" || d.Rejected[key] != "" {
			return f.Item.elemID("f" + strconv.Itoa(i))
		}
	}
	return ""
}

func (f *requestCard) Render() app.UI {
	it := f.Item
	if it == nil {
		return app.Elem("div")
	}
	if it.Params.IsURL() {
		return f.renderURLCard()
	}
	d := it.Draft
	busy := d.Sent != ""
	invalid := len(d.Errors) > 0 || len(d.Rejected) > 0

	var fields []app.UI
	var summary, sensitive app.UI
	actions := declineButtons(busy, f.onDecline, f.onSkip, it.ID)
	if it.Form != nil {
		fields = make([]app.UI, len(it.Form.Fields))
		for i := range it.Form.Fields {
			fields[i] = f.renderField(i, &it.Form.Fields[i])
		}
		if d.Submitted && invalid {
			summary = f.renderSummary()
		}
		// Never marked unavailable while the form is incomplete: pressing
		// Send is how the person learns what is missing, and a screen
		// reader would announce an aria-disabled button as not worth
		// pressing.
		// A form of no fields asks only for a yes: nothing is sent but it.
		label := "Send"
		if len(it.Form.Fields) == 0 {
			label = "Accept"
		}
		send := textElem("button", "fb-primary", label).
			Attr("type", "submit").
			DataSet("action", wire.ActionAccept).
			Attr("disabled", busy)
		actions = append([]app.UI{send}, actions...)
	}
	if len(it.Sensitive) > 0 {
		sensitive = renderSensitive(it)
	}
	var sending app.UI
	if busy {
		sending = roleText("status", "fb-sending", "Sending…")
	}

	return card("fb-card", it, f.onKeyDown,
		renderAsker(it, f.Countdown),
		// go-app drops absent children and matches the rest by
		// position, so a summary that comes or goes in front of the
		// fields would shift them and recreate every control: the one
		// being typed in would lose its focus and its value. The slot
		// keeps the fields' position fixed (and takes no room).
		el("div", "fb-slot", sensitive, textIf("p", "fb-problem", it.Problem), summary),
		// Disabled while sending: an answer the connection may send
		// again is the one sent, and a change made meanwhile would be
		// lost behind "Sent" (a review found it so). The fieldset has
		// no box of its own (display: contents): laid out, Chromium no
		// longer kept the error summary in view when focus went to the
		// first field with a problem.
		elem("fieldset", "fb-lock", el("div", "fb-fields", fields...)).Attr("disabled", busy).Role("none"),
		sendError(d.SendError),
		sending,
		elem("div", "fb-actions", actions...).On("pointerdown", f.onActionPress),
	).OnSubmit(f.onAccept, it.ID)
}

// onSummaryPick moves focus to the field an error summary entry names.
func (f *requestCard) onSummaryPick(controlID string) app.EventHandler {
	return func(ctx app.Context, e app.Event) {
		focusElement(controlID)
	}
}

// renderSummary lists every problem at the top after a refused send.
// Entries are plain text: nothing a server wrote becomes a link.
func (f *requestCard) renderSummary() app.UI {
	it := f.Item
	d := it.Draft
	var rows []app.UI
	for i := range it.Form.Fields {
		fd := &it.Form.Fields[i]
		msg := d.Rejected[fd.Key]
		if msg == "" {
			msg = d.Errors[fd.Key]
		}
		if msg == "" {
			continue
		}
		// A button (never a link) that takes the person to the field.
		pick := elem("button", "fb-summary-item", text("bdi", "", fd.Label), words(": "+msg)).
			Attr("type", "button").
			OnClick(f.onSummaryPick(f.ids(i).control), it.Seq, i)
		rows = append(rows, el("li", "", pick))
	}
	// The bridge may object to something that is not one field.
	for _, key := range sortedKeys(d.Rejected) {
		if it.Form.Field(key) == nil {
			rows = append(rows, text("li", "", d.Rejected[key]))
		}
	}
	heading := "Please check 1 answer:"
	if len(rows) != 1 {
		heading = "Please check " + strconv.Itoa(len(rows)) + " answers:"
	}
	return elem("div", "fb-summary",
		text("p", "", heading),
		el("ul", "", rows...),
	).Role("alert").ID(it.elemID("summary"))
}
