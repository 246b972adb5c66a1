package embed

import "testing"

// TestHostOutcome: the outcomes embed.v1 lists reach the host page as
// they are; any other (from a bridge newer than the widget) as "unknown",
// which every copy of embed.js passes on.
func TestHostOutcome(t *testing.T) {
	for in, want := range map[string]string{
		"answered": "answered", "answered-elsewhere": "answered-elsewhere", "cancelled": "cancelled",
		"expired": "expired", "unknown": "unknown", "withdrawn-by-admin": "unknown", "": "unknown",
	} {
		if got := hostOutcome(in); got != want {
			t.Errorf("hostOutcome(%q) = %q; want %q", in, got, want)
		}
	}
}
