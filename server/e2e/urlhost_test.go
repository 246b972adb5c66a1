package e2e

import (
	"encoding/json"
	"math/rand/v2"
	"net/netip"
	"strings"
	"testing"

	"github.com/formbridge/formbridge/app/elicit"
)

// TestCheckURLReadsHostsAsChromium: the bridge refuses every link whose
// host Chromium cannot open, names the address Chromium opens for a
// numeric host in any of its forms, and never calls a name an address.
// A person must never be offered a link the browser then refuses, nor
// told it goes to a site when it goes to an address. The hosts: tricky
// ones, then thousands drawn from digits, dots, "x" and hex letters (a
// fixed seed), where the URL Standard's IPv4 rules live. The bridge may
// refuse more than Chromium (empty labels, "a..b"), never less.
func TestCheckURLReadsHostsAsChromium(t *testing.T) {
	hosts := []string{
		"1.2.3.4", "1.2.3.4.5", "0x7f.1", "0x100000000", "0xffffffff", "4294967295", "4294967296",
		"010.0.0.1", "09", "0x", "0x.0x", "1.2.3.256", "1.2.65536", "1.16777216", "1.2.3.4.", "192.168.1",
		"example.123", "example.0x1", "example.com.1e", "1e", "99999999999999999999", "0000000000000000000001.2.3.4",
		"\uff11\uff12\uff17.\uff10.\uff10.\uff11", "\uff11.\uff12.\uff13.\uff14.\uff15", "example\uff0e123",
		"[::1]", "[fe80::1%25eth0]", "[1.2.3.4]", "[::ffff:1.2.3.4]", "[2001:db8::1]", "[::1",
		"0x10000000000000000", "a.0x10000000000000000", "1.0xfffffffffffffffff", "\uff11.2.3.4", "\u2469.0.0.1",
	}
	r := rand.New(rand.NewPCG(6, 12))
	const alphabet = "0123456789xX.abcf"
	// Mostly short, where addresses are; some long enough for a number
	// past 64 bits.
	for i := range 6500 {
		n := 1 + r.IntN(13)
		if i >= 5000 {
			n = 14 + r.IntN(11)
		}
		var b strings.Builder
		for range n {
			b.WriteByte(alphabet[r.IntN(len(alphabet))])
		}
		hosts = append(hosts, b.String())
	}
	list, _ := json.Marshal(hosts)

	ctx := NewBrowser(t)
	// What Chromium opens for each: its host name, "!" when it cannot
	// open the link at all.
	opened := eval[[]string](t, ctx, `(`+string(list)+`).map((h) => {
		try { return new URL("https://" + h + "/").hostname; } catch { return "!"; }
	})`)
	if len(opened) != len(hosts) {
		t.Fatalf("Chromium read %d hosts of %d", len(opened), len(hosts))
	}
	checked := 0
	for i, host := range hosts {
		info, err := elicit.CheckURL("https://" + host + "/")
		switch want := opened[i]; {
		case want == "!":
			if err == nil {
				t.Errorf("%q: Chromium cannot open it, and the bridge passes it (%+v)", host, info)
			}
		case err != nil:
			// Stricter than the browser: allowed.
		case isAddress(want):
			checked++
			if !namesAddress(info, strings.Trim(want, "[]")) {
				t.Errorf("%q: Chromium opens %s; the bridge reads host %q, domain %q, warnings %+v", host, want, info.Host, info.Domain, info.Warnings)
			}
		default:
			for _, w := range info.Warnings {
				if w.Code == "ip_address" {
					t.Errorf("%q: Chromium opens the name %s; the bridge calls it an address (%s)", host, want, w.Message)
				}
			}
		}
	}
	if checked < 500 {
		t.Errorf("only %d hosts read as addresses by both: the sample does not test what it is for", checked)
	}
}

// isAddress reports whether a host name Chromium gives is an IP address.
func isAddress(host string) bool {
	return strings.HasPrefix(host, "[") || strings.Trim(host, "0123456789.") == ""
}

// namesAddress reports whether the bridge's reading of a link names
// addr as the address it opens (its domain), and warns that it is one.
func namesAddress(info *elicit.URLInfo, addr string) bool {
	want, err := netip.ParseAddr(addr)
	if err != nil {
		return false
	}
	got, err := netip.ParseAddr(info.Domain)
	if err != nil || got != want {
		return false
	}
	for _, w := range info.Warnings {
		if w.Code == "ip_address" {
			return true
		}
	}
	return false
}
