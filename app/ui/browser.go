package ui

import (
	"time"

	"github.com/formbridge/formbridge/app/elicit"
	"github.com/maxence-charriere/go-app/v9/pkg/app"
)

// This file holds the few direct calls into the browser the widget
// makes. Each is a no-op on the host (tests, prerendering), where go-app
// has no JavaScript.

// readFragment returns the page's URL fragment and removes it from the
// address bar, so the token is not left on screen, in bookmarks or in
// screen shares.
func readFragment() (pageURL, fragment string) {
	if !app.IsClient {
		return "", ""
	}
	loc := app.Window().Get("location")
	pageURL = loc.Get("href").String()
	fragment = loc.Get("hash").String()
	if fragment != "" {
		clean := loc.Get("pathname").String() + loc.Get("search").String()
		app.Window().Get("history").Call("replaceState", nil, "", clean)
	}
	return pageURL, fragment
}

// storeLink keeps l in this tab's session storage as store would
// (connect reads it back with loadStored), but encoded by the
// browser's JSON.stringify: encoding/json's first encoding of a
// struct type costs up to ~10 ms of reflection in a fresh page, on the
// way to the first form.
func storeLink(l link) {
	if !app.IsClient {
		return
	}
	v := map[string]any{"token": l.Token}
	if l.Bridge != "" {
		v["bridge"] = l.Bridge
	}
	tabStorage.setItem(linkKey, app.Window().Get("JSON").Call("stringify", v).String())
}

// utcOffset is the person's UTC offset at a local wall-clock time (as a
// datetime-local control gives it), from the browser's time zone rules.
func utcOffset(local time.Time) time.Duration {
	if !app.IsClient {
		return 0
	}
	// getTimezoneOffset is minutes *behind* UTC: -60 for UTC+1.
	return -time.Duration(localDate(local).Call("getTimezoneOffset").Int()) * time.Minute
}

// skippedTime reports whether the person's clock never shows local: the
// browser moves a time in the hour skipped when summer time starts
// (02:30 becomes 03:30), or on a day a zone skipped (Samoa's 30 December
// 2011), so the Date it makes reads otherwise.
func skippedTime(local time.Time) bool {
	if !app.IsClient {
		return false
	}
	d := localDate(local)
	return d.Call("getHours").Int() != local.Hour() || d.Call("getMinutes").Int() != local.Minute() ||
		d.Call("getDate").Int() != local.Day()
}

// localDate is a JavaScript Date at the wall-clock time local (read in
// time.UTC) in the person's time zone: a date-time without an offset
// is local time to Date (and, unlike its numeric constructor, keeps the
// years 0 to 99).
func localDate(local time.Time) app.Value {
	return app.Window().Get("Date").New(local.Format("2006-01-02T15:04:05"))
}

// collectOptions reads answers as the person means them: a
// datetime-local control's by their wall clock, a number by their
// locale's separators.
var collectOptions = &elicit.CollectOptions{UTCOffset: utcOffset, Skipped: skippedTime, PointGroupsThousands: pointGroupsThousands}

// pointGroups caches pointGroupsThousands: 0 not yet asked, 1 no, 2 yes.
var pointGroups int

// pointGroupsThousands reports whether the browser's locale writes
// thousands with a point (de, pt-BR, id, tr, it, es…: "1.000.000"). It
// is asked once, when first needed: the browser's first number format
// loads its locale's data, which a page load need not wait for.
func pointGroupsThousands() bool {
	if pointGroups == 0 {
		pointGroups = 1
		if app.IsClient {
			parts := app.Window().Get("Intl").Get("NumberFormat").New().Call("formatToParts", 1000000)
			for i := range parts.Length() {
				if p := parts.Index(i); p.Get("type").String() == "group" {
					if p.Get("value").String() == "." {
						pointGroups = 2
					}
					break
				}
			}
		}
	}
	return pointGroups == 2
}

// focusElement moves keyboard focus to the element with id.
func focusElement(id string) {
	if !app.IsClient {
		return
	}
	if el := app.Window().GetElementByID(id); el.Truthy() {
		el.Call("focus")
	}
}

// openLink opens url in a new tab that cannot reach back to this page,
// and reports whether the browser let it open. window.open with
// "noopener" returns null whether or not a tab opened, so the tab opens
// blank (this page's origin, so its opener can be cleared) and is then
// sent to url, which finds no opener; the page's referrer policy (the
// bridge's header, a static site's meta tag: no-referrer) keeps where
// the person came from. Embedded, it opens with noopener and reports
// true: a host page that sends Cross-Origin-Opener-Policy: same-origin
// gives its frames' pop-ups no opener, so window.open returns null for
// a tab it did open, and a blank one would be left behind. valid is
// false for an address the browser does not accept ("https://1.2.3.4.5"),
// which would make window.open throw: nothing opens then.
func openLink(url string) (opened, valid bool) {
	if !app.IsClient {
		return true, true
	}
	win := app.Window()
	parser := win.Get("URL")
	canParse := parser.Get("canParse").Truthy()
	if canParse && !parser.Call("canParse", url).Bool() {
		return false, false
	}
	// A browser without URL.canParse (Safari before 17) throws instead,
	// which syscall/js turns into a panic: its URL constructor, asked
	// before a tab opens, or a blank tab would be left behind when
	// Location.replace refuses the address.
	defer func() {
		if recover() != nil {
			opened, valid = false, false
		}
	}()
	if !canParse {
		parser.New(url)
	}
	if embedded {
		win.Call("open", url, "_blank", "noopener,noreferrer")
		return true, true
	}
	tab := win.Call("open", "", "_blank")
	if !tab.Truthy() {
		return false, true
	}
	tab.Set("opener", nil)
	tab.Get("location").Call("replace", url)
	return true, true
}

// pageVersion is the page's version, which server/site writes in its
// formbridge-version meta element when plain (web/connect.js reads the
// same element for the same hello); "" without one.
func pageVersion() string {
	if !app.IsClient {
		return ""
	}
	meta := app.Window().Get("document").Call("querySelector", `meta[name="formbridge-version"]`)
	if !meta.Truthy() {
		return ""
	}
	return meta.Get("content").String()
}

// pageHidden reports whether the tab is in the background.
func pageHidden() bool {
	if !app.IsClient {
		return false
	}
	return app.Window().Get("document").Get("hidden").Bool()
}

// pageTitle reads the document title.
func pageTitle() string {
	if !app.IsClient {
		return ""
	}
	return app.Window().Get("document").Get("title").String()
}

// setPageTitle sets the document title when it differs.
func setPageTitle(title string) {
	if !app.IsClient || title == "" {
		return
	}
	doc := app.Window().Get("document")
	if doc.Get("title").String() != title {
		doc.Set("title", title)
	}
}

// notificationPermission is "default", "granted", "denied", or
// "unsupported" where the browser has no notifications (or on the host).
func notificationPermission() string {
	if !app.IsClient {
		return "unsupported"
	}
	n := app.Window().Get("Notification")
	if !n.Truthy() {
		return "unsupported"
	}
	return n.Get("permission").String()
}

// askNotificationPermission asks the browser; done gets the answer on
// the UI goroutine.
func askNotificationPermission(ctx app.Context, done func(ctx app.Context, permission string)) {
	if !app.IsClient {
		return
	}
	n := app.Window().Get("Notification")
	if !n.Truthy() {
		return
	}
	var then app.Func
	then = app.FuncOf(func(this app.Value, args []app.Value) any {
		p := "default"
		if len(args) > 0 {
			p = args[0].String()
		}
		ctx.Dispatch(func(ctx app.Context) { done(ctx, p) })
		then.Release()
		return nil
	})
	n.Call("requestPermission").Call("then", then)
}

// notified is the page's own system notification on screen, if any: one
// at a time, since each replaces the last (one tag per channel).
var notified app.Value

// notify shows a system notification. Its text is passed as text (the
// Notification API renders no markup) and names only the server.
func notify(title, body string) {
	if notificationPermission() != "granted" {
		return
	}
	// One notification per channel: a new one replaces the last, and a
	// tab closing its own when nothing waits closes none of another
	// channel's (a browser matches notifications by tag).
	// The body is an English sentence: laid out left to right even when
	// a server's name in it is Hebrew or Arabic (a notification's
	// direction is otherwise taken from its first letter).
	opts := map[string]any{"body": body, "tag": "formbridge " + draftChannel, "dir": "ltr"}
	// Chrome on Android, and Safari in an iPhone's Home Screen web app,
	// grant the permission but refuse a page's own notification (an
	// exception, which syscall/js turns into a panic that would end the
	// widget): there it is shown by the page's service worker.
	defer func() {
		if recover() != nil {
			notifyByWorker(title, opts)
		}
	}()
	n := app.Window().Get("Notification").New(title, opts)
	notified = n
	// A click brings the widget's tab forward.
	var onClick, onClose app.Func
	onClick = app.FuncOf(func(this app.Value, args []app.Value) any {
		app.Window().Call("focus")
		n.Call("close")
		return nil
	})
	onClose = app.FuncOf(func(this app.Value, args []app.Value) any {
		if notified != nil && notified.Equal(n) {
			notified = nil
		}
		onClick.Release()
		onClose.Release()
		return nil
	})
	n.Set("onclick", onClick)
	n.Set("onclose", onClose)
}

// workerNotified is the tag of a notification the service worker
// showed (notifyByWorker), "" if none.
var workerNotified string

// notifyByWorker shows a notification through the page's service worker
// registration, where the browser allows only that; quietly nothing
// where there is none or it refuses.
func notifyByWorker(title string, opts map[string]any) {
	workerNotified, _ = opts["tag"].(string)
	// The worker's notificationclick brings forward the tab at this
	// address, not merely the origin's most recently used one.
	opts["data"] = map[string]any{"url": app.Window().Get("location").Get("href").String()}
	viaWorker(func(reg app.Value) { await(reg.Call("showNotification", title, opts)) })
}

// unnotify closes the system notification, once no request waits (the
// last answered in another window, withdrawn or expired): it would
// otherwise call the person back to nothing.
func unnotify() {
	if notified != nil {
		n := notified
		notified = nil
		n.Call("close")
	}
	if tag := workerNotified; tag != "" {
		workerNotified = ""
		viaWorker(func(reg app.Value) {
			if shown, ok := await(reg.Call("getNotifications", map[string]any{"tag": tag})); ok {
				for i := range shown.Length() {
					shown.Index(i).Call("close")
				}
			}
		})
	}
}

// workerSteps runs the service worker's notification steps one after
// another, in the order they were asked for: a close must not look for
// a notification before the show it follows has shown it.
var workerSteps chan func()

// viaWorker queues step, to run with the page's service worker
// registration once it is ready; nothing when the page has no worker,
// or when steps have piled up behind one that never is.
func viaWorker(step func(reg app.Value)) {
	sw := app.Window().Get("navigator").Get("serviceWorker")
	if !sw.Truthy() {
		return
	}
	if workerSteps == nil {
		workerSteps = make(chan func(), 8)
		go func() {
			for step := range workerSteps {
				step()
			}
		}()
	}
	select {
	case workerSteps <- func() {
		defer func() { recover() }() // a call the browser refuses throws
		if reg, ok := await(sw.Get("ready")); ok {
			step(reg)
		}
	}:
	default:
	}
}

// await waits for the promise p to settle and returns its value, and
// whether it was fulfilled. Off the UI goroutine only: it blocks.
func await(p app.Value) (app.Value, bool) {
	type settled struct {
		value app.Value
		ok    bool
	}
	done := make(chan settled, 1)
	var fulfilled, rejected app.Func
	fulfilled = app.FuncOf(func(this app.Value, args []app.Value) any {
		v := app.Undefined()
		if len(args) > 0 {
			v = args[0]
		}
		done <- settled{v, true}
		return nil
	})
	rejected = app.FuncOf(func(this app.Value, args []app.Value) any {
		done <- settled{app.Undefined(), false}
		return nil
	})
	p.Call("then", fulfilled, rejected)
	r := <-done
	fulfilled.Release()
	rejected.Release()
	return r.value, r.ok
}

// localInputValue turns an RFC 3339 date-time (a schema's default) into
// what a datetime-local control shows: the person's wall-clock time.
// Anything else is returned as is.
func localInputValue(s string) string {
	t, err := elicit.ParseDateTime(s)
	if err != nil {
		return s
	}
	if app.IsClient {
		// Go in the browser runs in UTC; the browser knows the zone.
		d := app.Window().Get("Date").New(t.UnixMilli())
		t = time.Date(d.Call("getFullYear").Int(), time.Month(d.Call("getMonth").Int()+1), d.Call("getDate").Int(),
			d.Call("getHours").Int(), d.Call("getMinutes").Int(), d.Call("getSeconds").Int(), 0, time.UTC)
	}
	if t.Second() != 0 {
		return t.Format("2006-01-02T15:04:05")
	}
	return t.Format("2006-01-02T15:04")
}

// allowZoom rewrites go-app's viewport tag, which forbids zooming
// (maximum-scale=1, user-scalable=0): people who need larger text must
// be able to pinch-zoom (WCAG 1.4.4). Browsers apply the change live.
func allowZoom() {
	if !app.IsClient {
		return
	}
	meta := app.Window().Get("document").Call("querySelector", `meta[name="viewport"]`)
	if meta.Truthy() {
		meta.Call("setAttribute", "content", "width=device-width, initial-scale=1, viewport-fit=cover")
	}
}

// setControlValueIf sets the value of the control with id only while it
// still holds was (nobody typed into it since it was rendered).
func setControlValueIf(id, was, value string) {
	if !app.IsClient {
		return
	}
	if el := app.Window().GetElementByID(id); el.Truthy() && el.Get("value").String() == was {
		el.Set("value", value)
	}
}

// setControlValue sets the value of the control with id, when it differs
// (setting an equal value would still move the caret).
func setControlValue(id, value string) {
	if !app.IsClient {
		return
	}
	if el := app.Window().GetElementByID(id); el.Truthy() && el.Get("value").String() != value {
		el.Set("value", value)
	}
}
