package ui

import (
	"html"
	"strconv"
	"strings"
	"testing"

	"github.com/maxence-charriere/go-app/v9/pkg/app"
)

// node is an element or text node read back from go-app's HTML output,
// so tests can ask what the page holds instead of matching strings.
type node struct {
	tag    string // "" for a text node
	attrs  map[string]string
	kids   []*node
	text   string
	parent *node
}

// voidTags are the elements go-app writes without an end tag.
var voidTags = map[string]bool{
	"area": true, "base": true, "br": true, "col": true, "embed": true, "hr": true, "img": true,
	"input": true, "link": true, "meta": true, "param": true, "source": true, "track": true, "wbr": true,
}

// render mounts ui as the browser build would (on the host: no JS) and
// parses what it shows.
func render(t *testing.T, ui app.UI) *node {
	t.Helper()
	return parseHTML(t, app.HTMLString(ui))
}

// parseHTML reads go-app's HTMLString output: attribute values are Go
// quoted strings, text is HTML-escaped.
func parseHTML(t *testing.T, s string) *node {
	t.Helper()
	root := &node{tag: "#root"}
	cur := root
	for len(s) > 0 {
		if s[0] != '<' {
			i := strings.IndexByte(s, '<')
			if i < 0 {
				i = len(s)
			}
			if txt := s[:i]; strings.Trim(txt, "\n") != "" {
				cur.kids = append(cur.kids, &node{text: html.UnescapeString(strings.Trim(txt, "\n")), parent: cur})
			}
			s = s[i:]
			continue
		}
		if strings.HasPrefix(s, "</") {
			i := strings.IndexByte(s, '>')
			tag := s[2:i]
			if cur.tag != tag {
				t.Fatalf("end tag %s closes %s", tag, cur.tag)
			}
			cur = cur.parent
			s = s[i+1:]
			continue
		}
		s = s[1:]
		i := strings.IndexAny(s, " >")
		n := &node{tag: s[:i], attrs: map[string]string{}, parent: cur}
		s = s[i:]
		for {
			s = strings.TrimLeft(s, " ")
			if s[0] == '>' {
				s = s[1:]
				break
			}
			j := strings.IndexAny(s, "= >")
			name := s[:j]
			s = s[j:]
			if s[0] == '=' {
				q, err := strconv.QuotedPrefix(s[1:])
				if err != nil {
					t.Fatalf("attribute %s: %v", name, err)
				}
				v, _ := strconv.Unquote(q)
				n.attrs[name] = v
				s = s[1+len(q):]
			} else {
				n.attrs[name] = "true"
			}
		}
		cur.kids = append(cur.kids, n)
		if !voidTags[n.tag] {
			cur = n
		}
	}
	return root
}

// all returns the nodes under n (n included) for which match is true.
func (n *node) all(match func(*node) bool) []*node {
	var out []*node
	var walk func(*node)
	walk = func(x *node) {
		if match(x) {
			out = append(out, x)
		}
		for _, k := range x.kids {
			walk(k)
		}
	}
	walk(n)
	return out
}

// find returns the first element matching a simple selector: "tag",
// "[attr]", "[attr=value]", "tag[attr=value]", or "#id".
func (n *node) find(sel string) *node {
	if r := n.findAll(sel); len(r) > 0 {
		return r[0]
	}
	return nil
}

func (n *node) findAll(sel string) []*node {
	return n.all(func(x *node) bool { return x.tag != "" && x.is(sel) })
}

func (n *node) is(sel string) bool {
	if strings.HasPrefix(sel, "#") {
		return n.attrs["id"] == sel[1:]
	}
	tag, attr := sel, ""
	if i := strings.IndexByte(sel, '['); i >= 0 {
		tag, attr = sel[:i], strings.TrimSuffix(sel[i+1:], "]")
	}
	if tag != "" && n.tag != tag {
		return false
	}
	if attr == "" {
		return true
	}
	name, val, hasVal := strings.Cut(attr, "=")
	got, ok := n.attrs[name]
	if !ok {
		return false
	}
	return !hasVal || got == strings.Trim(val, `"`)
}

// textContent is all the text under n, as the DOM's textContent.
func (n *node) textContent() string {
	var b strings.Builder
	for _, x := range n.all(func(x *node) bool { return x.tag == "" }) {
		b.WriteString(x.text)
	}
	return b.String()
}

// has reports whether an attribute is set to a value that is on: go-app
// writes false booleans as "false".
func (n *node) on(attr string) bool {
	v, ok := n.attrs[attr]
	return ok && v != "false"
}

// mustFind fails the test when sel matches nothing.
func (n *node) mustFind(t *testing.T, sel string) *node {
	t.Helper()
	x := n.find(sel)
	if x == nil {
		t.Fatalf("no element matches %s", sel)
	}
	return x
}
