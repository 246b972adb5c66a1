package embed

import (
	"encoding/json"
	"net/url"
	"strings"

	"github.com/maxence-charriere/go-app/v9/pkg/app"
)

// ConfigEnv names the variable holding the URL path of a static site's
// config.json; `formbridge static` sets it, the bridge's own page does not.
const ConfigEnv = "FORMBRIDGE_CONFIG"

// Config is a static site's config.json. It names the bridge only: the
// file is public, so a token in it would be everyone's.
type Config struct {
	Bridge string `json:"bridge"` // wss://bridge.example.com/ws (or https://bridge.example.com)
}

// Static reports whether this page is a static site's, which has no
// bridge on its own origin.
func Static() bool { return app.Getenv(ConfigEnv) != "" }

// Words the person sees when a static page cannot know its bridge. The
// first sentence is for them; the rest for whoever set the page up.
const (
	noBridge = "This page is not set up yet: it does not know where to get your requests from. " +
		"Whoever set it up can name the formbridge bridge in the link (#bridge=wss://…) or in config.json next to this page."
	badConfig = "This page is not set up correctly: its settings file cannot be read. " +
		"Whoever set it up can check config.json next to this page: it should look like {\"bridge\": \"wss://bridge.example.com/ws\"}."
)

// pageConfig is the global web/connect.js leaves on a static site's
// page: a promise of config.json's {status, text}, fetched as the page
// was parsed (to connect while the wasm loaded).
const pageConfig = "formbridgeConfig"

// LoadConfig reads the static site's config.json, as the page's script
// fetched it or else with the browser's fetch, then calls done on the UI
// goroutine with the bridge it names, or with a problem to show the
// person instead.
func LoadConfig(ctx app.Context, done func(ctx app.Context, bridge, problem string)) {
	read := func(ctx app.Context, status int, text string) {
		bridge, problem := parseConfig(status, text)
		done(ctx, bridge, problem)
	}
	if early := app.Window().Get(pageConfig); early.Truthy() {
		// Once: a later read (there is none today) fetches anew.
		app.Window().Set(pageConfig, nil)
		failed := func() { ctx.Dispatch(func(ctx app.Context) { read(ctx, 0, "") }) }
		then(early, func(answer app.Value) {
			if answer.Type() != app.TypeObject { // Get would panic
				failed()
				return
			}
			status, text := answer.Get("status"), answer.Get("text")
			if status.Type() != app.TypeNumber || text.Type() != app.TypeString {
				failed()
				return
			}
			ctx.Dispatch(func(ctx app.Context) { read(ctx, status.Int(), text.String()) })
		}, failed)
		return
	}
	// no-cache: a changed bridge must be seen at the next load; omit:
	// the file is public and needs no cookie.
	init := map[string]any{"cache": "no-cache", "credentials": "omit", "redirect": "error"}
	fetchText(ctx, app.Getenv(ConfigEnv), init, read)
}

// parseConfig reads config.json's answer: the bridge, or a problem in
// plain words. A missing file (404) is a page without a bridge, not a
// broken one.
func parseConfig(status int, body string) (bridge, problem string) {
	switch {
	case status == 404:
		return "", noBridge
	case status != 200:
		return "", badConfig
	}
	var c Config
	if len(body) > maxMessage || json.Unmarshal([]byte(body), &c) != nil {
		return "", badConfig
	}
	c.Bridge = strings.TrimSpace(c.Bridge)
	if c.Bridge == "" {
		return "", noBridge
	}
	u, err := url.Parse(c.Bridge)
	if err != nil || u.Host == "" {
		return "", badConfig
	}
	switch strings.ToLower(u.Scheme) {
	case "ws", "wss", "http", "https":
		return c.Bridge, ""
	}
	return "", badConfig
}

// otherBridge is shown when a link names a bridge other than the one the
// site's config.json names.
const otherBridge = "This link tries to connect this page to a different place than the one it is set up for, so it was not opened. " +
	"Ask whoever sent you the link for the right one."

// ChooseBridge decides where a static page connects, from the bridge its
// link names (linkBridge, "" for none) and what LoadConfig found. A site
// that names its bridge in config.json keeps it: a link cannot point the
// team's trusted page at someone else's bridge, whose forms would then
// appear under this site's name. same reports whether two bridge
// addresses are the same place.
func ChooseBridge(linkBridge, configBridge, configProblem string, same func(a, b string) bool) (bridge, problem string) {
	switch {
	case configBridge != "" && linkBridge != "" && !same(linkBridge, configBridge):
		return "", otherBridge
	case configBridge != "":
		return configBridge, ""
	case linkBridge != "" && configProblem == noBridge:
		// No config.json (or one naming no bridge): the link decides.
		return linkBridge, ""
	}
	return "", configProblem
}
