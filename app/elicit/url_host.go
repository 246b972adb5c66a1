//go:build !js

package elicit

import "golang.org/x/net/idna"

// browserHost maps a host name as a browser does before it looks the
// name up (the URL Standard's "domain to ASCII": UTS #46 processing,
// non-transitional, without the STD3 rules), so the bridge names the
// site a link really opens: "ｅｘａｍｐｌｅ.com" opens example.com, and
// "accounts.google.com．evil.com" (a full-width dot) a machine of
// evil.com.
var browserHost = idna.New(idna.MapForLookup(), idna.Transitional(false), idna.CheckHyphens(false),
	idna.StrictDomainName(false), idna.BidiRule(), idna.CheckJoiners(true), idna.VerifyDNSLength(false))

// hostToASCII is the name a browser looks up for host.
func hostToASCII(host string) (string, error) { return browserHost.ToASCII(host) }

// punycodeToUnicode decodes one "xn--" label.
func punycodeToUnicode(label string) (string, error) { return idna.Punycode.ToUnicode(label) }
