package embed

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

func TestParseInbound(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, text string
		want       inbound
		err        string // "" ok, "ours-not" errNotOurs, else a substring
	}{
		{"init", `{"formbridge":"embed.v1","type":"init","token":" t0k ","bridge":"wss://b.example/ws"}`,
			inbound{Protocol: Protocol, Type: TypeInit, Token: "t0k", Bridge: "wss://b.example/ws"}, ""},
		{"focus", `{"formbridge":"embed.v1","type":"focus"}`, inbound{Protocol: Protocol, Type: TypeFocus}, ""},
		{"theme", `{"formbridge":"embed.v1","type":"theme","theme":{"mode":"dark"}}`,
			inbound{Protocol: Protocol, Type: TypeTheme, Theme: &Theme{Mode: "dark"}}, ""},
		{"theme without one", `{"formbridge":"embed.v1","type":"theme"}`, inbound{}, "without a theme"},
		{"unknown type", `{"formbridge":"embed.v1","type":"eval"}`, inbound{}, "unknown message type"},
		{"other script", `{"type":"init","token":"x"}`, inbound{}, "ours-not"},
		{"other version", `{"formbridge":"embed.v2","type":"init"}`, inbound{}, "ours-not"},
		{"not json", `formbridge`, inbound{}, "ours-not"},
		{"huge", `{"formbridge":"embed.v1","type":"init","token":"` + strings.Repeat("a", maxMessage) + `"}`, inbound{}, "too large"},
		// A member of the wrong type fails decoding, which still fills in
		// the others: such a message must not pass as an init whose
		// token was dropped.
		{"token not a string", `{"formbridge":"embed.v1","type":"init","token":42}`, inbound{}, "ours-not"},
		{"theme not an object", `{"formbridge":"embed.v1","type":"theme","theme":"dark"}`, inbound{}, "ours-not"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := parseInbound(tc.text)
			switch {
			case tc.err == "ours-not":
				if !errors.Is(err, errNotOurs) {
					t.Fatalf("err = %v, want errNotOurs", err)
				}
				return
			case tc.err != "":
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("err = %v, want %q", err, tc.err)
				}
				return
			case err != nil:
				t.Fatalf("err = %v", err)
			}
			gj, _ := json.Marshal(got)
			wj, _ := json.Marshal(tc.want)
			if string(gj) != string(wj) {
				t.Errorf("got %s, want %s", gj, wj)
			}
		})
	}
}

// TestParseInboundAtLimit: a message of exactly maxMessage bytes is read.
func TestParseInboundAtLimit(t *testing.T) {
	t.Parallel()
	head, tail := `{"formbridge":"embed.v1","type":"init","token":"`, `"}`
	text := head + strings.Repeat("a", maxMessage-len(head)-len(tail)) + tail
	if m, err := parseInbound(text); err != nil || len(m.Token) != maxMessage-len(head)-len(tail) {
		t.Errorf("a message of %d bytes: %v", len(text), err)
	}
}

// TestQuote: a host page's text in a log line is cut at 40 bytes and
// escaped, so a long or hostile value cannot flood or forge the console.
func TestQuote(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		strings.Repeat("a", 40):   `"` + strings.Repeat("a", 40) + `"`,
		strings.Repeat("a", 41):   `"` + strings.Repeat("a", 40) + `…"`,
		"x\nformbridge: \"fake\"": `"x\nformbridge: \"fake\""`,
	} {
		if got := quote(in); got != want {
			t.Errorf("quote(%q) = %s, want %s", in, got, want)
		}
	}
}

func TestOutbound(t *testing.T) {
	t.Parallel()
	var m map[string]any
	if err := json.Unmarshal([]byte(outbound(TypeSettled, map[string]any{"id": "7", "outcome": "answered"})), &m); err != nil {
		t.Fatal(err)
	}
	if m["formbridge"] != Protocol || m["type"] != TypeSettled || m["id"] != "7" || m["outcome"] != "answered" || len(m) != 4 {
		t.Errorf("outbound = %v", m)
	}
}

func TestHostOrigin(t *testing.T) {
	t.Parallel()
	for frag, want := range map[string]string{
		"#host=https%3A%2F%2Fchat.example.com":     "https://chat.example.com",
		"#host=http://127.0.0.1:8081":              "http://127.0.0.1:8081",
		"host=https://Chat.Example.com/":           "https://chat.example.com",
		"#host=https://chat.example.com/path":      "",
		"#host=javascript:alert(1)":                "",
		"#host=https://user@chat.example.com":      "",
		"#host=*":                                  "",
		"#token=abc":                               "",
		"":                                         "",
		"#host=https://chat.example.com?x=1":       "",
		"#host=https%3A%2F%2Fchat.example.com%23x": "",
		"#host=null":                               "",
		"#host=ftp://chat.example.com":             "",
		"#host=wss://chat.example.com":             "",
		"#host=https://[::1":                       "",
		"#host=https://chat.example.com&x=%zz":     "", // a fragment not written by embed.js
	} {
		got, ok := hostOrigin(frag)
		if got != want || ok != (want != "") {
			t.Errorf("hostOrigin(%q) = %q, %v; want %q", frag, got, ok, want)
		}
	}
}

func TestThemeProperties(t *testing.T) {
	t.Parallel()
	th := &Theme{
		Colors: ThemeColors{Primary: "#0a7d5a", Background: "rgb(250 250 250)", Text: "oklch(0.3 0.02 250)", Border: "silver"},
		Font:   `"Inter", system-ui, sans-serif`,
		Radius: "14px",
	}
	props, problems := th.properties()
	if len(problems) != 0 {
		t.Fatalf("problems: %v", problems)
	}
	want := map[string]string{
		"--fb-primary":        "#0a7d5a",
		"--fb-focus":          "#0a7d5a",
		"--fb-primary-hover":  "color-mix(in srgb, #0a7d5a 80%, var(--fb-text))",
		"--fb-on-primary":     "lch(from #0a7d5a calc((49 - l) * infinity) 0 0)",
		"--fb-current-bg":     "color-mix(in srgb, #0a7d5a 14%, var(--fb-surface))",
		"--fb-bg":             "rgb(250 250 250)",
		"--fb-text":           "oklch(0.3 0.02 250)",
		"--fb-highlight-text": "oklch(0.3 0.02 250)",
		"--fb-border":         "silver",
		"--fb-border-soft":    "color-mix(in srgb, silver 45%, var(--fb-surface))",
		"--fb-font":           `"Inter", system-ui, sans-serif`,
		"--fb-radius":         "14px",
		"--fb-radius-s":       "calc(14px * 0.6)",
	}
	if len(props) != len(want) {
		t.Errorf("got %d properties, want %d: %v", len(props), len(want), props)
	}
	for k, v := range want {
		if props[k] != v {
			t.Errorf("%s = %q, want %q", k, props[k], v)
		}
	}
}

// TestThemeRefusesHostileValues: a host page's values must not reach
// other properties, load anything, or escape the declaration.
func TestThemeRefusesHostileValues(t *testing.T) {
	t.Parallel()
	th := &Theme{
		Mode: "sepia",
		Colors: ThemeColors{
			Primary:    "red; background: url(https://evil.example/x.png)",
			Background: "url(https://evil.example/x.png)",
			Surface:    "rgb(1 2 3) url(x)",
			Text:       "var(--fb-danger)",
			Danger:     "expression(alert(1))",
			OnPrimary:  "inherit",
			Muted:      "currentColor",
		},
		Font:   "x; } body { display:none",
		Radius: "calc(100vw)",
	}
	props, problems := th.properties()
	if len(props) != 0 {
		t.Errorf("hostile values became properties: %v", props)
	}
	if len(problems) != 9 {
		t.Errorf("got %d problems, want 9: %q", len(problems), problems)
	}
	if mode, p := th.mode(); mode != ModeAuto || len(p) != 1 {
		t.Errorf("mode sepia = %q, %v; want auto with a problem", mode, p)
	}
}

// TestThemeKeywordsAreNoColours: the CSS-wide keywords fit a colour's
// shape but name no colour, in any case.
func TestThemeKeywordsAreNoColours(t *testing.T) {
	t.Parallel()
	for _, v := range []string{"inherit", "initial", "unset", "revert", "revert-layer", "currentcolor", "INHERIT", "Unset"} {
		if props, problems := (&Theme{Colors: ThemeColors{Text: v}}).properties(); len(props) != 0 || len(problems) != 1 {
			t.Errorf("text colour %q: properties %v, problems %q", v, props, problems)
		}
	}
}

// TestThemePartial: what a theme leaves out is no problem, and no theme
// at all is none either.
func TestThemePartial(t *testing.T) {
	t.Parallel()
	for _, th := range []*Theme{nil, {}, {Mode: ModeDark}} {
		if props, problems := th.properties(); len(props) != 0 || len(problems) != 0 {
			t.Errorf("theme %+v: properties %v, problems %q", th, props, problems)
		}
	}
	for th, want := range map[*Theme]string{
		nil: ModeAuto, {}: ModeAuto, {Mode: ModeAuto}: ModeAuto, {Mode: ModeLight}: ModeLight, {Mode: ModeDark}: ModeDark,
	} {
		if mode, problems := th.mode(); mode != want || len(problems) != 0 {
			t.Errorf("theme %+v: mode %q, problems %q; want %q", th, mode, problems, want)
		}
	}
}

func TestParseConfig(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		status               int
		body                 string
		bridge, problemStart string
	}{
		{200, `{"bridge":"wss://bridge.example.com/ws"}`, "wss://bridge.example.com/ws", ""},
		{200, `{"bridge":" https://bridge.example.com "}`, "https://bridge.example.com", ""},
		{404, `not found`, "", "This page is not set up yet"},
		{200, `{}`, "", "This page is not set up yet"},
		{200, `{"bridge":"javascript:alert(1)"}`, "", "This page is not set up correctly"},
		{200, `{"bridge":"/ws"}`, "", "This page is not set up correctly"},
		{200, `{"bridge":"wss:///ws"}`, "", "This page is not set up correctly"},
		{200, `{"bridge":"ws://127.0.0.1:8080/ws"}`, "ws://127.0.0.1:8080/ws", ""},
		{200, `{"bridge":"http://localhost:8080"}`, "http://localhost:8080", ""},
		{200, `{"bridge":"WSS://bridge.example.com/ws"}`, "WSS://bridge.example.com/ws", ""},
		{200, `{"bridge":"wss://b.example/ws"` + strings.Repeat(" ", maxMessage-len(`{"bridge":"wss://b.example/ws"}`)) + `}`, "wss://b.example/ws", ""},
		{200, `<html>`, "", "This page is not set up correctly"},
		{500, ``, "", "This page is not set up correctly"},
		{0, ``, "", "This page is not set up correctly"},
	} {
		bridge, problem := parseConfig(tc.status, tc.body)
		if bridge != tc.bridge || !strings.HasPrefix(problem, tc.problemStart) || (tc.problemStart == "") != (problem == "") {
			t.Errorf("parseConfig(%d, %s) = %q, %q; want %q, %q…", tc.status, tc.body, bridge, problem, tc.bridge, tc.problemStart)
		}
	}
}

func TestWatch(t *testing.T) {
	t.Parallel()
	w := newWatch("wss://bridge.example.com:8443/ws", "https://site.example")
	if p := w.Problem("connecting"); p != "" {
		t.Errorf("while connecting the first time: %q", p)
	}
	p := w.Problem("offline")
	if !strings.Contains(p, "still trying") || strings.Contains(p, "--") || strings.Contains(p, "bridge") {
		t.Errorf("problem %q: want plain words, saying it keeps trying", p)
	}
	for _, want := range []string{"bridge.example.com:8443", "--allowed-origins may lack https://site.example"} {
		if h := w.Hint(); !strings.Contains(h, want) {
			t.Errorf("hint %q does not say %q", h, want)
		}
	}
	if w.Problem("connecting") != p {
		t.Error("the problem went away on a retry, before the bridge answered")
	}
	if p := w.Problem("online"); p != "" {
		t.Errorf("online: %q", p)
	}
	if p := w.Problem("offline"); p != "" {
		t.Errorf("an ordinary drop after being online was worded as a setup problem: %q", p)
	}
	var none *Watch
	if none.Problem("offline") != "" {
		t.Error("a nil watch has a problem")
	}
}

// TestNilHost: the widget calls its host unconditionally.
func TestNilHost(t *testing.T) {
	t.Parallel()
	var h *Host
	h.Report("online", 2)
	h.Settled("1", "answered")
	h.Close()
}
