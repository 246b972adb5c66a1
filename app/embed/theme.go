package embed

import (
	"fmt"
	"math"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/maxence-charriere/go-app/v9/pkg/app"
)

// Theme is how a host page dresses the widget. Every value is untrusted
// text from the host page: each must match a narrow pattern or it is
// dropped with a reason, so no value can carry url() (a request to
// another host) or anything but the one CSS value it names.
type Theme struct {
	// Mode is "light", "dark", or "auto" (or ""): follow the person's
	// system setting, as the widget does alone.
	Mode   string      `json:"mode,omitempty"`
	Colors ThemeColors `json:"colors,omitempty"`
	Font   string      `json:"font,omitempty"`   // a font-family list of installed fonts
	Radius string      `json:"radius,omitempty"` // corner radius, e.g. "12px" or "0.5rem"
}

// ThemeColors are CSS colours (#hex, rgb(), hsl(), oklch()… or a name).
type ThemeColors struct {
	Primary    string `json:"primary,omitempty"`    // buttons, focus ring, the selected request
	OnPrimary  string `json:"onPrimary,omitempty"`  // text on primary
	Background string `json:"background,omitempty"` // behind the cards
	Surface    string `json:"surface,omitempty"`    // cards and fields
	Text       string `json:"text,omitempty"`
	Muted      string `json:"muted,omitempty"` // secondary text
	Border     string `json:"border,omitempty"`
	Danger     string `json:"danger,omitempty"` // errors, the decline button
}

// Modes a theme may ask for.
const (
	ModeAuto  = "auto"
	ModeLight = "light"
	ModeDark  = "dark"
)

// The value checks compile on first use, not at start-up: only a page
// whose host sends a theme pays for them, and compiling them at init
// cost about 30 ms of every widget's first load. One sync.Once for the
// three: each sync.OnceValue is a generic copy, ~1 KB of wasm apiece.
type valueCheckers struct {
	once                sync.Once
	color, font, radius *regexp.Regexp
}

var valueChecks valueCheckers

func checks() *valueCheckers {
	valueChecks.once.Do(func() {
		// Constant patterns: Compile cannot fail (and MustCompile would
		// bring its own code along).
		valueChecks.color, _ = regexp.Compile(`^(?:#[0-9a-fA-F]{3,8}|[a-zA-Z]{3,24}|(?:rgba?|hsla?|hwb|lab|lch|oklab|oklch)\([0-9a-zA-Z.,%/ +-]{1,60}\))$`)
		valueChecks.font, _ = regexp.Compile(`^[a-zA-Z0-9 ,"'_-]{1,200}$`)
		// Lengths only, no calc(): a radius has no reason to compute.
		valueChecks.radius, _ = regexp.Compile(`^(?:0|[0-9]{1,3}(?:\.[0-9]{1,3})?(?:px|rem|em))$`)
	})
	return &valueChecks
}

// isColor reports whether v is a colour: of a colour's shape (checks,
// which keeps out url(), var() and anything past the value) and, in the
// browser, one its CSS parser takes as a colour ("banana" is not). The
// CSS-wide keywords pass any such test but name no colour: "inherit" as
// the text colour left Send's label on nothing. currentcolor is left out
// too: as the primary it is the label's own colour.
func isColor(v string) bool {
	switch strings.ToLower(v) {
	case "inherit", "initial", "unset", "revert", "revert-layer", "currentcolor":
		return false
	}
	return checks().color.MatchString(v) && browserTakesColor(v)
}

// browserTakesColor reports whether the browser's CSS parser reads v as
// a colour; outside a browser (tests), whether there is one to ask.
func browserTakesColor(v string) bool {
	return !app.IsClient || app.Window().Get("CSS").Call("supports", "color", v).Bool()
}

// browserLuminance is the relative luminance (WCAG) of the colour v as
// the browser computes it, when it gives it as rgb() or rgba(): a
// probe element's computed colour. Browsers without relative colours
// give the colours of lab(), lch(), oklab() and oklch() in their own
// notation, which is not read here.
func browserLuminance(v string) (float64, bool) {
	if !app.IsClient {
		return 0, false
	}
	doc := app.Window().Get("document")
	probe := doc.Call("createElement", "span")
	probe.Get("style").Call("setProperty", "color", v)
	doc.Get("documentElement").Call("append", probe)
	computed := app.Window().Call("getComputedStyle", probe).Get("color").String()
	probe.Call("remove")
	inner, ok := strings.CutPrefix(computed, "rgb(")
	if !ok {
		inner, ok = strings.CutPrefix(computed, "rgba(")
	}
	inner, closed := strings.CutSuffix(inner, ")")
	parts := strings.FieldsFunc(inner, func(r rune) bool { return r == ',' || r == ' ' || r == '/' })
	if !ok || !closed || len(parts) < 3 {
		return 0, false
	}
	var y float64
	for i, weight := range []float64{0.2126, 0.7152, 0.0722} {
		c, err := strconv.ParseFloat(parts[i], 64)
		if err != nil || c < 0 || c > 255 {
			return 0, false
		}
		c /= 255
		if c <= 0.04045 {
			c /= 12.92
		} else {
			// x^2.375 for sRGB's x^2.4: square roots only (math.Pow
			// would add 5 KB to the wasm). Within 2% around the 0.179
			// threshold, which moves the choice of label only where
			// both reach 4.5:1.
			x := (c + 0.055) / 1.055
			c = x * x * math.Sqrt(math.Sqrt(math.Sqrt(x*x*x)))
		}
		y += weight * c
	}
	return y, true
}

// properties maps the theme onto the widget's custom properties (those
// web/app.css declares on :root). problems say, in plain words, which
// values were dropped and why, for the host developer's console.
func (t *Theme) properties() (props map[string]string, problems []string) {
	props = map[string]string{}
	if t == nil {
		return props, nil
	}
	color := func(key, value string, names ...string) {
		if value == "" {
			return
		}
		if !isColor(value) {
			problems = append(problems, fmt.Sprintf("theme colors.%s %s is not a CSS colour such as #2f5bd3 or rgb(47 91 211); ignored", key, quote(value)))
			return
		}
		for _, n := range names {
			props[n] = value
		}
	}
	c := t.Colors
	color("primary", c.Primary, "--fb-primary", "--fb-focus")
	if _, ok := props["--fb-primary"]; ok {
		// Shades the palette would otherwise keep in its own hue: hover
		// moves toward the text colour (darker in light mode, lighter in
		// dark), the selected request is a wash of the primary.
		props["--fb-primary-hover"] = "color-mix(in srgb, " + c.Primary + " 80%, var(--fb-text))"
		props["--fb-current-bg"] = "color-mix(in srgb, " + c.Primary + " 14%, var(--fb-surface))"
	}
	color("onPrimary", c.OnPrimary, "--fb-on-primary")
	if _, ok := props["--fb-on-primary"]; !ok && props["--fb-primary"] != "" {
		// The palette's own label colour suits its own primary only (dark
		// on the dark palette's light blue): on a host's primary the label
		// is white below lightness 49 and black above, at least 4.5:1
		// either way. Only where the browser reads relative colours (not
		// Safari 17, Firefox 115): elsewhere the label would lose its
		// colour altogether, so the palette's stays.
		// There, the browser's own reading of the primary as sRGB
		// (getComputedStyle) picks the label instead, when it gives one.
		if onPrimary := "lch(from " + c.Primary + " calc((49 - l) * infinity) 0 0)"; browserTakesColor(onPrimary) {
			props["--fb-on-primary"] = onPrimary
		} else if y, ok := browserLuminance(c.Primary); ok {
			// White below the luminance where black and white contrast
			// equally with it (0.179, lch lightness 49), black above.
			props["--fb-on-primary"] = "#ffffff"
			if y > 0.179 {
				props["--fb-on-primary"] = "#000000"
			}
		}
	}
	color("background", c.Background, "--fb-bg")
	color("surface", c.Surface, "--fb-surface")
	color("text", c.Text, "--fb-text", "--fb-highlight-text")
	color("muted", c.Muted, "--fb-muted")
	color("border", c.Border, "--fb-border")
	if _, ok := props["--fb-border"]; ok {
		props["--fb-border-soft"] = "color-mix(in srgb, " + c.Border + " 45%, var(--fb-surface))"
	}
	color("danger", c.Danger, "--fb-danger")
	if t.Font != "" {
		if checks().font.MatchString(t.Font) {
			props["--fb-font"] = t.Font
		} else {
			problems = append(problems, fmt.Sprintf("theme font %s is not a list of font names such as \"Inter, system-ui, sans-serif\"; ignored", quote(t.Font)))
		}
	}
	if t.Radius != "" {
		if checks().radius.MatchString(t.Radius) {
			props["--fb-radius"] = t.Radius
			props["--fb-radius-s"] = "calc(" + t.Radius + " * 0.6)"
		} else {
			problems = append(problems, fmt.Sprintf("theme radius %s is not a length such as 12px or 0.5rem; ignored", quote(t.Radius)))
		}
	}
	return props, problems
}

// mode is the theme's mode, "auto" for anything unknown.
func (t *Theme) mode() (string, []string) {
	if t == nil {
		return ModeAuto, nil
	}
	switch t.Mode {
	case "", ModeAuto:
		return ModeAuto, nil
	case ModeLight, ModeDark:
		return t.Mode, nil
	}
	return ModeAuto, []string{fmt.Sprintf("theme mode %s is not light, dark or auto; using auto", quote(t.Mode))}
}

// sortedKeys gives a map's keys in order, so properties are applied the
// same way every time.
func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
