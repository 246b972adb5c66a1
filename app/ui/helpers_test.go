package ui

import (
	"testing"
	"time"

	"github.com/formbridge/formbridge/app/elicit"
)

func TestParseFragment(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in   string
		want link
	}{
		{"", link{}},
		{"#token=abc", link{Token: "abc"}},
		{"token=abc&bridge=wss%3A%2F%2Fb.example%2Fws", link{Token: "abc", Bridge: "wss://b.example/ws"}},
		{"#bridge=wss://b.example&token=a%2Bb", link{Token: "a+b", Bridge: "wss://b.example"}},
		{"#section-2", link{}},
		{"#token=%zz", link{}},
	}
	for _, tt := range tests {
		if got := parseFragment(tt.in); got != tt.want {
			t.Errorf("parseFragment(%q) = %+v, want %+v", tt.in, got, tt.want)
		}
	}
}

func TestAgoAndCountdown(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 12, 2, 12, 0, 0, 0, time.UTC)
	agos := map[time.Duration]string{
		10 * time.Second: "just now",
		90 * time.Second: "1 minute ago",
		7 * time.Minute:  "7 minutes ago",
		65 * time.Minute: "1 hour ago",
		5 * time.Hour:    "5 hours ago",
	}
	for d, want := range agos {
		if got := ago(now, now.Add(-d)); got != want {
			t.Errorf("ago(%v) = %q, want %q", d, got, want)
		}
	}
	if got := ago(now, now.Add(-24*time.Hour)); got == "24 hours ago" {
		t.Errorf("ago(24h) = %q, want the date", got)
	}
	if got := untilAgoChanges(now, now.Add(-time.Hour)); got != time.Hour {
		t.Errorf("\"1 hour ago\" changes after %v, want 1h", got)
	}
	counts := map[time.Duration]string{
		10 * time.Minute:                  "",
		5*time.Minute + time.Second:       "",
		5 * time.Minute:                   "Closes in 5 min",
		4*time.Minute + 5*time.Second:     "Closes in 4 min",
		4 * time.Minute:                   "Closes in 4 min",
		119 * time.Second:                 "Closes in 1 min",
		61 * time.Second:                  "Closes in 1 min",
		60 * time.Second:                  "Closes in 1 min",
		42*time.Second + time.Millisecond: "Closes in 43 sec",
		0:                                 "",
		-time.Second:                      "",
	}
	for d, want := range counts {
		if got := countdown(now, now.Add(d)); got != want {
			t.Errorf("countdown(%v) = %q, want %q", d, got, want)
		}
	}
	if countdown(now, time.Time{}) != "" {
		t.Error("countdown without an expiry")
	}
}

func TestSplitHost(t *testing.T) {
	t.Parallel()
	tests := []struct{ in, before, host, after string }{
		{"https://example.com", "https://", "example.com", ""},
		{"https://login.example.com/a?b#c", "https://", "login.example.com", "/a?b#c"},
		{"https://user:pw@evil.example:8443/x", "https://user:pw@", "evil.example", ":8443/x"},
		{"https://[::1]:8080/", "https://", "[::1]", ":8080/"},
		{"https://a.example/p@q", "https://", "a.example", "/p@q"},
	}
	for _, tt := range tests {
		b, h, a := splitHost(tt.in)
		if b != tt.before || h != tt.host || a != tt.after {
			t.Errorf("splitHost(%q) = %q %q %q", tt.in, b, h, a)
		}
		if b+h+a != tt.in {
			t.Errorf("splitHost(%q) loses text", tt.in)
		}
	}
}

func TestQueueOrder(t *testing.T) {
	t.Parallel()
	base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	mk := func(id string, min int) *item {
		it := &item{ID: id, Received: base.Add(time.Hour), Draft: &draft{}}
		it.Meta.CreatedAt = base.Add(time.Duration(min) * time.Minute)
		return it
	}
	var q queue
	for _, it := range []*item{mk("c", 3), mk("a", 1), mk("b", 1), mk("d", 0)} {
		q.add(it)
	}
	if _, added := q.add(mk("a", 9)); added {
		t.Error("a request already held was added again")
	}
	var ids string
	for _, it := range q.items {
		ids += it.ID
	}
	if ids != "dabc" {
		t.Errorf("order %q, want oldest first with ties in arrival order (dabc)", ids)
	}
	if q.after("b").ID != "c" || q.after("c").ID != "b" {
		t.Error("after() does not pick the neighbour")
	}
	q.remove("a")
	if q.len() != 3 || q.find("a") != nil {
		t.Error("remove failed")
	}
	q.remove("b") // d, c
	if n := q.after("c"); n == nil || n.ID != "d" {
		t.Error("after() of the last of two is not the one before")
	}
	if n := q.after("gone"); n == nil || n.ID != "d" {
		t.Error("after() of a request no longer held is not the first")
	}
}

func TestRequiredBooleanStartsAsNo(t *testing.T) {
	t.Parallel()
	it := itemFor(t, "r", 1, formParams(t, "x", `{"type":"object","properties":{"ok":{"type":"boolean"},"maybe":{"type":"boolean"}},"required":["ok"]}`), testMeta)
	if got := it.Draft.Inputs["ok"]; len(got) != 1 || got[0] != "false" {
		t.Errorf("required boolean starts as %q, want false (an unticked box)", got)
	}
	if got := it.Draft.Inputs["maybe"]; len(got) != 0 {
		t.Errorf("optional boolean starts as %q, want no answer", got)
	}
}

func TestMultilineRule(t *testing.T) {
	t.Parallel()
	n := func(v int) *int { return &v }
	tests := []struct {
		name string
		f    elicit.Field
		want bool
	}{
		{"no maxLength", elicit.Field{Kind: elicit.KindString}, true},
		{"large maxLength", elicit.Field{Kind: elicit.KindString, MaxLength: n(1000)}, true},
		{"short maxLength", elicit.Field{Kind: elicit.KindString, MaxLength: n(200)}, false},
		{"pattern", elicit.Field{Kind: elicit.KindString, Pattern: "^[A-Z]+$"}, false},
		{"email", elicit.Field{Kind: elicit.KindString, Format: elicit.FormatEmail}, false},
	}
	for _, tt := range tests {
		if got := multiline(&tt.f); got != tt.want {
			t.Errorf("%s: multiline = %v, want %v", tt.name, got, tt.want)
		}
	}
}

func TestTitleFor(t *testing.T) {
	t.Parallel()
	if got := titleFor("formbridge", 2, true); got != "(2) formbridge" {
		t.Errorf("hidden with 2 waiting: %q", got)
	}
	if got := titleFor("formbridge", 2, false); got != "formbridge" {
		t.Errorf("visible: %q", got)
	}
	if got := titleFor("formbridge", 0, true); got != "formbridge" {
		t.Errorf("hidden, nothing waiting: %q", got)
	}
}

func TestShowControls(t *testing.T) {
	t.Parallel()
	if got := showControls("https://example.com/a\u202Egnp.exe"); got != "https://example.com/a[U+202E]gnp.exe" {
		t.Errorf("showControls = %q", got)
	}
	// Four digits, as Unicode writes code points: U+061C, not U+61C.
	if got := showControls("a\u061Cb\u2069"); got != "a[U+061C]b[U+2069]" {
		t.Errorf("showControls = %q", got)
	}
	if got := showControls("https://example.com/ü"); got != "https://example.com/ü" {
		t.Errorf("plain text changed: %q", got)
	}
}

// The warnings come as the request crosses 5 minutes and 1 minute left,
// at the very mark too, and none once it has expired.
func TestDeadlineWarningMarks(t *testing.T) {
	exp := time.Date(2026, 12, 6, 12, 0, 0, 0, time.UTC)
	for _, tt := range []struct {
		before, now time.Duration // before expiry
		want        string
	}{
		{6 * time.Minute, 5 * time.Minute, "5 minutes left to answer this request."},
		{90 * time.Second, time.Minute, "1 minute left to answer this request."},
		{2 * time.Minute, 0, ""},
		{2 * time.Minute, 90 * time.Second, ""},
		{time.Minute, 30 * time.Second, ""}, // said at the mark already
		{5 * time.Minute, 4 * time.Minute, ""},
	} {
		if got := deadlineWarning(exp.Add(-tt.before), exp.Add(-tt.now), exp); got != tt.want {
			t.Errorf("from %v to %v before expiry: %q, want %q", tt.before, tt.now, got, tt.want)
		}
	}
	// The first tick has no before: nothing was crossed, and the card
	// itself says the time left when it is read.
	if got := deadlineWarning(time.Time{}, exp.Add(-30*time.Second), exp); got != "" {
		t.Errorf("on the first tick, 30 s before expiry: %q, want nothing", got)
	}
}
