package ui

import (
	"strconv"

	"github.com/formbridge/formbridge/app/elicit"
	"github.com/maxence-charriere/go-app/v9/pkg/app"
)

// longTextAbove is the maxLength above which free text gets a text area.
// Text without a maxLength gets one too: the server allowed prose.
const longTextAbove = 200

// multiline reports whether a string field is written in a text area:
// free text (no format, no pattern) whose length is unbounded or large.
func multiline(fd *elicit.Field) bool {
	return fd.Format == elicit.FormatNone && fd.Pattern == "" &&
		(fd.MaxLength == nil || *fd.MaxLength > longTextAbove)
}

// inputType is the HTML input type for a single-line string field.
func inputType(fd *elicit.Field) string {
	switch fd.Format {
	case elicit.FormatEmail:
		return "email"
	case elicit.FormatURI:
		return "url"
	case elicit.FormatDate:
		return "date"
	case elicit.FormatDateTime:
		return "datetime-local"
	}
	return "text"
}

// textHint states a text field's limits.
func textHint(fd *elicit.Field) string {
	switch fd.Format {
	case elicit.FormatEmail:
		return "An email address, like name@example.com"
	case elicit.FormatURI:
		return "A web address, like https://example.com"
	case elicit.FormatDateTime:
		return "In your local time"
	}
	length := ""
	switch {
	case fd.MinLength != nil && fd.MaxLength != nil && *fd.MinLength == *fd.MaxLength:
		length = "Exactly " + characters(*fd.MaxLength)
	case fd.MinLength != nil && *fd.MinLength > 0 && fd.MaxLength != nil:
		length = "Between " + strconv.Itoa(*fd.MinLength) + " and " + characters(*fd.MaxLength)
	case fd.MinLength != nil && *fd.MinLength > 1:
		length = "At least " + characters(*fd.MinLength)
	case fd.MaxLength != nil:
		length = "Up to " + characters(*fd.MaxLength)
	}
	switch {
	case fd.Example != "" && length != "":
		// The sample is one length; the limits say which others do.
		return "For example, " + fd.Example + ". " + length
	case fd.Example != "":
		return "For example, " + fd.Example
	}
	return length
}

func characters(n int) string {
	if n == 1 {
		return "1 character"
	}
	return strconv.Itoa(n) + " characters"
}

// renderText shows a string field: a text area for prose, else an input
// whose type follows the format (so phones offer the right keyboard and
// browsers their date pickers).
func (f *requestCard) renderText(i int, fd *elicit.Field) app.UI {
	p := f.parts(i, fd, textHint(fd))
	val := shownValue(fd, f.Item.initialValue(fd.Key))
	if multiline(fd) {
		scope := []any{f.Item.Seq, i}
		// No dir="auto": on a text area Chromium works out the direction
		// again for each line a value brings, so a pasted log of 27,000
		// lines took 5 s (9,000 lines 0.6 s), where without it 0.3 s.
		// app.css gives each line its own direction instead
		// (unicode-bidi: plaintext).
		ta := elem("textarea", "fb-input").
			ID(p.ids.control).
			Attr("rows", 2).
			Attr("value", val).
			Attr("autocomplete", "off").
			Aria("required", fd.Required).
			Aria("invalid", p.problem != "").
			OnInput(f.onFieldInput(fd.Key), scope...).
			OnKeyDown(f.onTextKeyDown, scope...)
		if fd.MaxLength != nil {
			ta.Attr("maxlength", boxLength(*fd.MaxLength))
		}
		if d := p.describedBy(); d != "" {
			ta.Aria("describedby", d)
		}
		if p.warning != "" {
			ta.Attr("spellcheck", "false").Attr("autocorrect", "off").Attr("autocapitalize", "off")
		}
		return f.wrapOne(i, p, ta)
	}
	in := f.textInput(i, p, inputType(fd), "fb-input", val)
	if fd.Format == elicit.FormatNone {
		in.Dir("auto")
	}
	if fd.MaxLength != nil {
		in.Attr("maxlength", boxLength(*fd.MaxLength))
	}
	switch fd.Format {
	case elicit.FormatDate:
		// Without a bound the browser's year takes six digits, and no
		// year past 9999 is a valid answer.
		in.Attr("min", "0001-01-01").Attr("max", "9999-12-31")
	case elicit.FormatDateTime:
		in.Attr("min", "0001-01-01T00:00").Attr("max", "9999-12-31T23:59")
	}
	return f.wrapOne(i, p, in)
}

// boxLength is a text box's maxlength for a field's maxLength. JSON
// Schema counts characters (code points) and a browser counts UTF-16
// units, two for an emoji: a bound of maxLength would stop "👍👍" at a
// maxLength of 2. Twice that lets every valid answer be typed and still
// bounds a paste; the field's check says when there is too much.
func boxLength(maxLength int) int { return 2 * maxLength }

// textInput is the <input> of a text, date or number field, with what
// every such box carries: its starting value, no autocomplete, its aria
// state and description, and the handler that keeps the draft.
func (f *requestCard) textInput(i int, p fieldParts, typ, class, value string) app.HTMLElemSelfClosing {
	in := input(p.ids.control, typ).
		Class(class).
		Attr("value", value).
		Attr("autocomplete", "off").
		Aria("required", p.field.Required).
		Aria("invalid", p.problem != "").
		OnInput(f.onFieldInput(p.field.Key), f.Item.Seq, i)
	if d := p.describedBy(); d != "" {
		in.Aria("describedby", d)
	}
	// A box that seems to ask for a secret is left alone by the
	// browser's spelling service (Chrome's enhanced spell check and
	// Edge's Editor send what is checked to their servers) and by a
	// phone keyboard's corrections, which learn what is typed.
	if p.warning != "" {
		in.Attr("spellcheck", "false").Attr("autocorrect", "off").Attr("autocapitalize", "off")
	}
	return in
}

// shownValue is what a text control shows for a draft value. A date-time
// default arrives as RFC 3339 but the control needs local time; the
// draft keeps the default as written until it is edited, so an untouched
// form sends it unchanged.
func shownValue(fd *elicit.Field, val string) string {
	if fd.Format == elicit.FormatDateTime {
		return localInputValue(val)
	}
	return val
}

// typed reports whether a field is answered in a box the person types
// in (its value is owned by the browser while they type).
func typed(fd *elicit.Field) bool {
	return fd.Kind == elicit.KindString || fd.Kind == elicit.KindNumber || fd.Kind == elicit.KindInteger
}

// onTextKeyDown: in a text area Enter starts a new line, so Ctrl+Enter
// (or Cmd+Enter) sends.
func (f *requestCard) onTextKeyDown(ctx app.Context, e app.Event) {
	if e.Get("key").String() == "Enter" && (e.Get("ctrlKey").Bool() || e.Get("metaKey").Bool()) {
		f.onAccept(ctx, e)
	}
}
