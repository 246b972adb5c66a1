package elicit

import "testing"

// TestCollectLocalNumbers: numbers as approvers outside the US and UK
// type them (see server/e2e/locale_test.go for the same in Chromium).
func TestCollectLocalNumbers(t *testing.T) {
	f := &Form{Fields: []Field{{Key: "n", Kind: KindNumber}}}
	for _, tc := range []struct {
		in     string
		groups bool
		want   any // float64, or nil when refused
	}{
		{"１２５０", false, 1250.0},
		{"１２．５", false, 12.5},
		{"١٢٥٠", false, 1250.0},
		{"١٢٫٥", false, 12.5},
		{"۱۲۵۰", false, 1250.0},
		{"−5", false, -5.0},
		{"1.250", false, 1.25},
		{"1.250", true, nil},
		{"12.500.000", true, nil},
		{"0.125", true, 0.125},
		{"12.5", true, 12.5},
		{"1,25", true, 1.25},
		{"1.250,5", true, nil},
		// There the comma is the decimal mark, three digits after it too.
		{"1,250", true, 1.25},
		{"1250,500", true, 1250.5},
		{"0,250", true, 0.25},
		{"＋１", false, 1.0},
	} {
		content, errs := f.Collect(Inputs{"n": {tc.in}}, &CollectOptions{PointGroupsThousands: func() bool { return tc.groups }})
		got := any(nil)
		if errs == nil {
			got = content["n"]
		}
		if got != tc.want {
			t.Errorf("%q (point groups thousands: %v) = %v %v; want %v", tc.in, tc.groups, got, errs, tc.want)
		}
	}
}

// The words for a number written as people write them follow the
// locale's separators.
func TestCollectLocalNumberMessages(t *testing.T) {
	f := &Form{Fields: []Field{{Key: "n", Kind: KindNumber}, {Key: "i", Kind: KindInteger}}}
	for _, tc := range []struct {
		n, i   string
		groups bool
		wantN  string
		wantI  string
	}{
		{"1,250", "1,000", false,
			"Use digits only, and a point for decimals (like 1250.5), without commas, spaces or other signs",
			"Use digits only, without commas, spaces or other signs"},
		{"1.250", "1.000", true,
			"Use digits only, and a comma for decimals (like 1250,5), without points, spaces or other signs",
			"Use digits only, without points, spaces or other signs"},
		{"1.250,5", "€1000", true,
			"Use digits only, and a comma for decimals (like 1250,5), without points, spaces or other signs",
			"Use digits only, without points, spaces or other signs"},
	} {
		_, errs := f.Collect(Inputs{"n": {tc.n}, "i": {tc.i}}, &CollectOptions{PointGroupsThousands: func() bool { return tc.groups }})
		got := map[string]string{}
		for _, e := range errs {
			got[e.Field] = e.Message
		}
		if got["n"] != tc.wantN || got["i"] != tc.wantI {
			t.Errorf("%q and %q (point groups thousands: %v): told %q and %q; want %q and %q", tc.n, tc.i, tc.groups, got["n"], got["i"], tc.wantN, tc.wantI)
		}
	}
}

// A number default the server wrote, left as shown, is sent where the
// point groups thousands too: the person typed nothing to ask about.
func TestCollectLocalNumberDefault(t *testing.T) {
	form := mustParse(t, `{"type":"object","properties":{"rate":{"type":"number","default":1.125}}}`)
	content, errs := form.Collect(form.Initial(), pointGroups)
	if len(errs) > 0 || content["rate"] != 1.125 {
		t.Errorf("the untouched default 1.125 gave %v %v; want 1.125", content, errs)
	}
	if _, errs := form.Collect(Inputs{"rate": {"2.125"}}, pointGroups); len(errs) == 0 {
		t.Errorf("\"2.125\" typed where the point groups thousands was read as a decimal")
	}
}

// pointGroups collects as where the point groups thousands.
var pointGroups = &CollectOptions{PointGroupsThousands: func() bool { return true }}
