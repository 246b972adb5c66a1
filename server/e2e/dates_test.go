package e2e

import (
	"strconv"
	"testing"

	"github.com/chromedp/chromedp"
)

// TestUnfinishedDate: a date box holding part of a date (all but its
// year) gives the page no value at all. Send says to finish it, rather
// than sending the form without the date, and once it is whole it goes.
func TestUnfinishedDate(t *testing.T) {
	b := StartBridge(t, nil)
	ctx := NewBrowser(t)
	openWidget(t, ctx, b)
	out := b.Elicit(t, `{"message":"When do you leave?","requestedSchema":{"type":"object","properties":{
		"day":{"type":"string","format":"date","title":"Day"}}}}`, nil)
	waitForm(t, ctx)
	day := field("day", "input")
	do(t, ctx, "type all but the year", chromedp.SendKeys(day, "1231"))
	if !eval[bool](t, ctx, `(() => { const el = document.querySelector(`+strconv.Quote(string(day))+`);
		return el.value === "" && el.validity.badInput; })()`) {
		t.Fatal("precondition: the date box does not hold part of a date")
	}
	do(t, ctx, "send", chromedp.Click(action("accept")))
	waitJS(t, ctx, "the person told", `document.querySelector("[data-field=day]").textContent.includes("Finish the date: day, month and year")`)
	noResultYet(t, out, "with half a date")
	setValue(t, ctx, day, "2026-12-31")
	waitJS(t, ctx, "the message gone", `!document.querySelector("[data-field=day]").textContent.includes("Finish the date")`)
	do(t, ctx, "send", chromedp.Click(action("accept")))
	wantResult(t, await(t, ctx, out), `{"action":"accept","content":{"day":"2026-12-31"}}`)
}

// TestSkippedLocalTime: a time the person's clock never shows is
// refused, saying why, where it used to be sent with a wrong offset; a
// time that exists goes with its offset. 02:30 on the night summer time
// starts in New York; 30 December 2011 in Samoa, a day the zone skipped
// (the hours alone match once the browser moves it a day on).
func TestSkippedLocalTime(t *testing.T) {
	b := StartBridge(t, nil)
	ctx := NewBrowser(t)
	for _, tc := range []struct{ zone, skipped, exists, want string }{
		{"America/New_York", "2026-03-08T02:30", "2026-03-08T03:30", "2026-03-08T03:30:00-04:00"},
		{"Pacific/Apia", "2011-12-30T10:00", "2011-12-31T10:00", "2011-12-31T10:00:00+14:00"},
	} {
		t.Run(tc.zone, func(t *testing.T) {
			useTimezone(t, ctx, tc.zone)
			openWidget(t, ctx, b)
			out := b.Elicit(t, `{"message":"When shall we call?","requestedSchema":{"type":"object","properties":{
				"at":{"type":"string","format":"date-time","title":"Call at"}},"required":["at"]}}`, nil)
			id := waitForm(t, ctx)
			at := field("at", "input")
			setValue(t, ctx, at, tc.skipped)
			do(t, ctx, "send", chromedp.Click(action("accept")))
			waitJS(t, ctx, "the person told", `document.querySelector("[data-field=at]").textContent.includes("This time does not exist where you are")`)
			noResultYet(t, out, "with a skipped time")
			setValue(t, ctx, at, tc.exists)
			// The message goes, and Send moves up: a click aimed before
			// that would land beside it.
			waitJS(t, ctx, "the message gone", `!document.querySelector("[data-field=at]").textContent.includes("does not exist")`)
			do(t, ctx, "send", chromedp.Click(action("accept")))
			wantResult(t, await(t, ctx, out), `{"action":"accept","content":{"at":"`+tc.want+`"}}`)
			do(t, ctx, "the card leaves", chromedp.WaitNotPresent(chromedp.CSS(`form[data-elicitation-id=`+css(id)+`]`)))
		})
	}
}

// TestChoiceValueAsWritten: an option whose value has spaces around it
// is sent exactly so; trimmed, it was no option and could never be sent.
func TestChoiceValueAsWritten(t *testing.T) {
	b := StartBridge(t, nil)
	ctx := NewBrowser(t)
	openWidget(t, ctx, b)
	out := b.Elicit(t, `{"message":"Which one?","requestedSchema":{"type":"object","properties":{
		"v":{"type":"string","title":"Pick","oneOf":[{"const":" a","title":"First"},{"const":"b","title":"Second"}]}},"required":["v"]}}`, nil)
	waitForm(t, ctx)
	do(t, ctx, "choose and send", chromedp.Click(option("v", "First")), chromedp.Click(action("accept")))
	wantResult(t, await(t, ctx, out), `{"action":"accept","content":{"v":" a"}}`)
}
