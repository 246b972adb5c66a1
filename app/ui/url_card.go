package ui

import (
	"strings"

	"github.com/formbridge/formbridge/app/elicit"
	"github.com/formbridge/formbridge/app/wire"
	"github.com/maxence-charriere/go-app/v9/pkg/app"
)

// onOpen opens the link of a URL-mode request and answers accept: in
// URL mode, opening the link is the person's consent. The link opens
// first, so that a tab the browser refused to open (a pop-up blocker) is
// not answered as opened, which would leave the server waiting for a
// page the person never saw; but not while offline, when the server
// would never hear of the page.
func (f *requestCard) onOpen(ctx app.Context, e app.Event) {
	it := f.Item
	if it.URL == nil || it.Draft.Sent != "" {
		return
	}
	if f.Answer.offline() {
		it.Draft.SendError = "You are offline, so the link was not opened. Press Open link again once the connection is back."
		return
	}
	switch opened, valid := openLink(it.URL.URL); {
	case !valid:
		it.Draft.SendError = "This link cannot be opened: your browser does not accept its address. Decline it, or tell whoever sent it."
		return
	case !opened:
		it.Draft.SendError = "Your browser blocked the new tab, so the link did not open and the app was not told. Allow pop-ups for this page, then press Open link again."
		return
	}
	res := wire.ElicitResult{Action: wire.ActionAccept}
	f.Answer.answer(it, res)
	if it.Draft.SendError != "" {
		// The tab is open: the person did what the link asks. The accept
		// goes once the connection is back, when the bridge sends this
		// request again (onRequest), as for one lost in a drop.
		it.Draft.Sent, it.Draft.lastSent = res.Action, &res
		it.Draft.SendError = "The page opened, but the connection dropped: the app will be told once it is back."
	}
	it.Draft.Opened = true
}

// renderURLCard is the card of a URL-mode request: the server wants the
// person to open a web page (to sign in, pay, or approve something
// there). The widget never fetches the page; it shows the full address
// with its host highlighted and opens it only when the person clicks.
func (f *requestCard) renderURLCard() app.UI {
	it := f.Item
	d := it.Draft
	busy := d.Sent != ""
	u := it.URL

	var body []app.UI
	switch {
	case u == nil:
		body = []app.UI{roleText("alert", "fb-problem", it.Problem)}
	case d.Opened:
		body = []app.UI{
			roleText("status", "fb-waiting", "Waiting for you to finish in the other tab."),
			renderURL(u),
		}
	default:
		site := []app.UI{siteLine("Website: ", showControls(u.Domain))}
		warnFirst, warnLast := app.UI(nil), renderURLWarnings(u)
		if u.Lookalike() {
			// The name may imitate a familiar one ("аpple.com" with a
			// Cyrillic "а"): the warning comes first, and the name is never
			// shown in bold as if it could be trusted, only its plain
			// spelling, which cannot imitate anything.
			warnFirst, warnLast = warnLast, nil
			site = []app.UI{
				siteLine("Website's real name: ", u.ASCIIHost),
				el("p", "fb-site-shown",
					words("It is displayed as "),
					ltrText("bdi", "fb-lookalike", showControls(u.Host)),
					words(", which may look like another website's name."),
				),
			}
		}
		body = append([]app.UI{
			warnFirst,
			text("p", "fb-lead", "This asks you to open a web page. Check the address before you open it:"),
			renderURL(u),
		}, site...)
		body = append(body, warnLast, text("p", "fb-hint", "It opens in a new tab. Nothing is loaded until you click Open link."))
	}

	var actions []app.UI
	if !d.Opened {
		actions = declineButtons(busy, f.onDecline, f.onSkip, it.ID)
		if u != nil {
			// A name that may imitate another site's: opening is not the
			// suggested step, so Open link looks like the other buttons.
			// Said by its class, not by app.css asking the card whether
			// it :has() the strong warning, which Firefox reads only
			// from 121 (not ESR 115).
			class := "fb-primary"
			if u.Lookalike() {
				class = ""
			}
			actions = append([]app.UI{answerButton(class, "open", "Open link", busy, f.onOpen, it.ID)}, actions...)
		}
	}
	return card("fb-card fb-url-card", it, f.onKeyDown,
		renderAsker(it, f.Countdown),
		el("div", "fb-url-body", body...),
		sendError(d.SendError),
		el("div", "fb-actions", actions...),
	).OnSubmit(preventDefault)
}

// siteLine names the website a link opens: its label, then the name in
// bold, left to right.
func siteLine(label, name string) app.UI {
	return el("p", "fb-site", words(label), ltrText("strong", "", name))
}

func preventDefault(ctx app.Context, e app.Event) { e.PreventDefault() }

// card is the form around one request, labelled by its title and
// described by the message, so a screen reader taken straight into the
// first field also hears the question; Escape (onKeyDown) is "Skip".
func card(class string, it *item, onKeyDown app.EventHandler, body ...app.UI) app.HTMLElem {
	f := elem("form", class, body...).
		Attr("novalidate", true).
		Aria("labelledby", it.elemID("title")).
		OnKeyDown(onKeyDown, it.ID)
	if strings.TrimSpace(it.Params.Message) != "" {
		f.Aria("describedby", it.elemID("message"))
	}
	if it.ID != "" { // the warm-up's sample has none: pages count requests by it
		f.DataSet("elicitation-id", it.ID)
	}
	return f
}

// declineButtons are Decline and Skip, the same on both kinds of card.
// Decline says no (MCP's decline); Skip leaves the request unanswered
// (MCP's cancel: "dismissed without making an explicit choice"). Not
// "Dismiss", which in everyday English also means to reject, nor "Not
// now", which promises the request will come back.
func declineButtons(busy bool, onDecline, onSkip app.EventHandler, id string) []app.UI {
	// The titles say the difference on hover, and to screen readers as
	// the buttons' descriptions.
	return []app.UI{
		answerButton("", wire.ActionDecline, "Decline", busy, onDecline, id).Attr("title", "Say no"),
		answerButton("", wire.ActionCancel, "Skip", busy, onSkip, id).Attr("title", "Leave it unanswered"),
	}
}

// answerButton is a button of a card, disabled while its answer is
// being sent (busy).
func answerButton(class, action, label string, busy bool, onClick app.EventHandler, id string) app.HTMLElem {
	return button(class, action, label, onClick, id).Attr("disabled", busy)
}

// sendError says why an answer was not sent; nothing when it was.
func sendError(msg string) app.UI {
	if msg == "" {
		return nil
	}
	return roleText("alert", "fb-send-error", msg)
}

// renderURL shows the whole address, left to right whatever the page
// direction, with the host set apart and its registrable domain in bold:
// "https://login.<b>example.com</b>/…". It is text, never a link.
func renderURL(u *elicit.URLInfo) app.UI {
	before, host, after := splitHost(u.URL)
	before, host, after = showControls(before), showControls(host), showControls(after)
	var hostParts []app.UI
	if u.Lookalike() {
		// No highlight: it would present the imitation as the site.
		hostParts = []app.UI{text("span", "fb-lookalike", host)}
	} else if d := u.Domain; d != "" && len(d) <= len(host) && strings.EqualFold(host[len(host)-len(d):], d) {
		cut := len(host) - len(d)
		var sub app.UI // the subdomains, "login."
		if cut > 0 {
			sub = words(host[:cut])
		}
		hostParts = []app.UI{sub, text("strong", "fb-domain", host[cut:])}
	} else {
		hostParts = []app.UI{text("strong", "fb-domain", host)}
	}
	return elem("p", "fb-url",
		elem("bdi", "",
			text("span", "fb-url-rest", before),
			el("span", "fb-host", hostParts...),
			text("span", "fb-url-rest", after),
		).Dir("ltr"),
	).DataSet("url", u.URL).Dir("ltr")
}

// splitHost cuts an absolute URL around its host: what comes before
// (scheme and any user@), the host, and the rest (port, path, query).
func splitHost(raw string) (before, host, after string) {
	i := strings.Index(raw, "://")
	if i < 0 {
		return "", "", raw
	}
	start := i + 3
	end := len(raw)
	if j := strings.IndexAny(raw[start:], "/?#"); j >= 0 {
		end = start + j
	}
	authority := raw[start:end]
	if k := strings.LastIndex(authority, "@"); k >= 0 {
		start += k + 1
		authority = authority[k+1:]
	}
	hostEnd := len(authority)
	if strings.HasPrefix(authority, "[") {
		if k := strings.Index(authority, "]"); k >= 0 {
			hostEnd = k + 1
		}
	} else if k := strings.LastIndex(authority, ":"); k >= 0 {
		hostEnd = k
	}
	return raw[:start], authority[:hostEnd], raw[start+hostEnd:]
}

// showControls makes invisible direction controls visible ("[U+202E]"):
// in an address they would reorder what the person reads, so the link
// shown would not be the link opened. [data-url] keeps the exact URL.
func showControls(s string) string {
	if !strings.ContainsFunc(s, isBidiControl) {
		return s
	}
	var b strings.Builder
	for _, r := range s {
		if isBidiControl(r) {
			// Every bidi control is in the first plane: four digits.
			b.WriteString("[U+")
			for shift := 12; shift >= 0; shift -= 4 {
				b.WriteByte("0123456789ABCDEF"[r>>shift&0xF])
			}
			b.WriteByte(']')
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}

// isBidiControl reports the Unicode bidirectional formatting characters
// (marks, embeddings, overrides, isolates).
func isBidiControl(r rune) bool {
	return r == 0x061c || r == 0x200e || r == 0x200f || (r >= 0x202a && r <= 0x202e) || (r >= 0x2066 && r <= 0x2069)
}

// renderURLWarnings lists app/elicit's reasons to look twice.
func renderURLWarnings(u *elicit.URLInfo) app.UI {
	ws := u.Warnings
	if len(ws) == 0 {
		return nil
	}
	rows := make([]app.UI, len(ws))
	for i, w := range ws {
		rows[i] = textElem("li", "", showControls(w.Message)).DataSet("warning", w.Code)
	}
	heading, class := "Look twice before opening this link:", "fb-warning"
	if u.Lookalike() {
		heading, class = "Careful: this link may lead to a website pretending to be another one.", "fb-warning fb-warning-strong"
	}
	return elem("div", class,
		el("p", "", text("strong", "", heading)),
		el("ul", "", rows...),
	).Role("note")
}
