package gateway_test

import (
	"os"
	"regexp"
	"strings"
	"testing"
)

// TestProtocolDocFrames checks that every frame docs/PROTOCOL.md shows
// (a line like `> {…}`, `A2< {…}`) is one the golden transcripts hold,
// times aside. A frame the doc abbreviates with "{…}" is matched up to
// the abbreviation.
func TestProtocolDocFrames(t *testing.T) {
	doc, err := os.ReadFile("../../docs/PROTOCOL.md")
	if err != nil {
		t.Fatal(err)
	}
	golden, err := os.ReadFile(goldenFile)
	if err != nil {
		t.Fatal(err)
	}
	// The transcripts' own stand-in for times (transcript.normalize).
	norm := func(s string) string { return timePattern.ReplaceAllString(s, "<time>") }
	frame := regexp.MustCompile(`^[A-Z]?[0-9]?[<>] (\{.*)$`)
	var known []string
	for _, line := range strings.Split(string(golden), "\n") {
		if m := frame.FindStringSubmatch(line); m != nil {
			known = append(known, norm(m[1]))
		}
	}
	inCode := false
	for i, line := range strings.Split(string(doc), "\n") {
		if strings.HasPrefix(line, "```") {
			inCode = !inCode
			continue
		}
		m := frame.FindStringSubmatch(line)
		if !inCode || m == nil {
			continue
		}
		want := norm(m[1])
		prefix := false
		if j := strings.Index(want, "{…}"); j >= 0 {
			want, prefix = want[:j], true
		}
		found := false
		for _, k := range known {
			if k == want || (prefix && strings.HasPrefix(k, want)) {
				found = true
				break
			}
		}
		if !found {
			t.Errorf("docs/PROTOCOL.md:%d shows a frame no transcript holds:\n%s", i+1, line)
		}
	}
}
