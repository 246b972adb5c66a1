package main

import "testing"

// idleRun divides by the widgets that connected, never by more.
func TestCheckReady(t *testing.T) {
	for _, c := range []struct {
		line string
		ok   bool
	}{
		{"ready 10000\n", true},
		{"ready 9312\n", false},
		{"ready\n", false},
		{"failed after 12: refused\n", false},
	} {
		if err := checkReady(c.line, 10000); (err == nil) != c.ok {
			t.Errorf("checkReady(%q) = %v", c.line, err)
		}
	}
}
