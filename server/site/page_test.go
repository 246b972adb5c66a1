package site

import "testing"

// rawHeadersFirst moves exactly the page's own head elements, even when
// a script's text says "</head>", and leaves a page without them alone.
func TestRawHeadersFirst(t *testing.T) {
	raw := []string{`<script>const end = "</head>";</script>`, `<script>b()</script>`}
	page := "<!DOCTYPE html>\n<html>\n<head>\n" + charsetMeta + "\n<title>t</title>\n<link rel=\"stylesheet\" href=\"/a.css\">\n" +
		raw[0] + "\n" + raw[1] + "\n</head>\n<body><p>x</p></body>\n</html>"
	want := "<!DOCTYPE html>\n<html>\n<head>\n" + charsetMeta + "\n" + raw[0] + "\n" + raw[1] +
		"\n<title>t</title>\n<link rel=\"stylesheet\" href=\"/a.css\">\n</head>\n<body><p>x</p></body>\n</html>"
	if got := string(rawHeadersFirst([]byte(page), raw)); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	if got := string(rawHeadersFirst([]byte(page), []string{"<script>elsewhere()</script>"})); got != page {
		t.Errorf("a page without the elements changed:\n%s", got)
	}
	if got := string(rawHeadersFirst([]byte(page), nil)); got != page {
		t.Errorf("no elements, yet the page changed:\n%s", got)
	}
}
