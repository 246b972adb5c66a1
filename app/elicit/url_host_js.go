//go:build js

package elicit

import "errors"

// The widget renders the bridge's reading of a link (RequestView.Link)
// and never checks one itself, so its wasm carries no IDNA tables: in the
// browser, CheckURL refuses every named host.

var errNoLinkChecks = errors.New("links are checked by the bridge")

func hostToASCII(string) (string, error) { return "", errNoLinkChecks }

func punycodeToUnicode(string) (string, error) { return "", errNoLinkChecks }
