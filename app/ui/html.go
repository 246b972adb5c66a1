package ui

import "github.com/maxence-charriere/go-app/v9/pkg/app"

// The widget builds its elements with app.Elem / app.ElemSelfClosing and
// Attr, through the small helpers below, instead of go-app's typed
// elements (app.Div, app.Input…) and setters (Type, For, Checked…). Each
// typed element is a Go type of its own with its own copy of every
// method, and Go's wasm backend makes each call in a builder chain
// costly; building the same DOM this way made app.wasm 42 KB smaller
// brotli-compressed (1,663,851 to 1,622,022 bytes at -q 11). In
// go-app v9.8.0 a typed setter is only setAttr(name, value), so Attr
// with the same value gives the same DOM, booleans included ("false" is
// kept as an attribute and applied as a false DOM property, as before).

// elem is a <tag> with a class (none when "") and children, for
// attributes to follow.
func elem(tag, class string, body ...app.UI) app.HTMLElem {
	e := app.Elem(tag)
	if class != "" {
		e.Class(class)
	}
	return e.Body(body...)
}

// el is elem with no more attributes. It returns the element as an
// app.UI, converted here once rather than at every call site (so the
// compiler must not copy it into its callers).
//
//go:noinline
func el(tag, class string, body ...app.UI) app.UI {
	return elem(tag, class, body...)
}

// textElem is a <tag> with a class (none when "") holding the text s,
// for attributes to follow.
func textElem(tag, class, s string) app.HTMLElem {
	return elem(tag, class, words(s))
}

// text is textElem with no more attributes, converted to app.UI here
// once, as el is.
//
//go:noinline
func text(tag, class, s string) app.UI {
	return textElem(tag, class, s)
}

// serverText is text(tag, class, s) for text a server wrote, with
// dir="auto" so right-to-left text reads in its own direction.
func serverText(tag, class, s string) app.UI {
	return textElem(tag, class, s).Dir("auto")
}

// ltrText is text(tag, class, s) for a host name, read left to right
// whatever the page's direction.
func ltrText(tag, class, s string) app.UI {
	return textElem(tag, class, s).Dir("ltr")
}

// roleText is a <p> with a class and an ARIA role ("alert", "status")
// holding the text s: a message screen readers announce.
func roleText(role, class, s string) app.UI {
	return textElem("p", class, s).Role(role)
}

// textIf is text(tag, class, s), or nothing when s is empty.
func textIf(tag, class, s string) app.UI {
	if s == "" {
		return nil
	}
	return text(tag, class, s)
}

// words is a text node. app.Text is small enough for the compiler to
// copy into every caller, and each copy costs about 250 bytes of wasm.
//
//go:noinline
func words(s string) app.UI {
	return app.Text(s)
}

// button is a type="button" button with a class and a data-action
// (each none when ""), its label, and what a click does.
func button(class, action, label string, onClick app.EventHandler, scope ...any) app.HTMLElem {
	b := textElem("button", class, label).Attr("type", "button")
	if action != "" {
		b.DataSet("action", action)
	}
	if onClick != nil {
		b.OnClick(onClick, scope...)
	}
	return b
}

// input is an <input> (a void element) with its id and type.
func input(id, typ string) app.HTMLElemSelfClosing {
	return app.ElemSelfClosing("input").ID(id).Attr("type", typ)
}
