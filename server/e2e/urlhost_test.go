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
// host Chromium cannot open, and names the address Chromium opens for a
// numeric host in any of its forms. A person must never be offered a
// link the browser then refuses, nor told it goes to a site when it goes
// to an address. The hosts: tricky ones, then thousands drawn from
// digits, dots, "x" and hex letters (a fixed seed), where the URL
// Standard's IPv4 rules live. The bridge may refuse more than Chromium
// (empty labels, "a..b"), never less.
func TestCheckURLReadsHostsAsChromium(t *testing.T) {
	hosts := []string{
		"1.2.3.4", "1.2.3.4.5", "0x7f.1", "0x100000000", "0xffffffff", "4294967295", "4294967296",
		"010.0.0.1", "09", "0x", "0x.0x", "1.2.3.256", "1.2.65536", "1.16777216", "1.2.3.4.", "192.168.1",
		"example.123", "example.0x1", "example.com.1e", "1e", "99999999999999999999", "0000000000000000000001.2.3.4",
		"\uff11\uff12\uff17.\uff10.\uff10.\uff11", "\uff11.\uff12.\uff13.\uff14.\uff15", "example\uff0e123",
		"[::1]", "[fe80::1%25eth0]", "[1.2.3.4]", "[::ffff:1.2.3.4]", "[2001:db8::1]", "[::1",
	}
	r := rand.New(rand.NewPCG(6, 12))
	const alphabet = "0123456789xX.abcf"
	for range 5000 {
		var b strings.Builder
		for range 1 + r.IntN(13) {
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
				t.Errorf("%q: Chromium opens %s; the bridge reads host %q, warnings %+v", host, want, info.Host, info.Warnings)
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

// namesAddress reports whether the bridge's reading of a link tells the
// person it goes to addr: as its host, its plain spelling, or in its
// warning ("…, which the browser reads as 127.0.0.1: …").
func namesAddress(info *elicit.URLInfo, addr string) bool {
	want, err := netip.ParseAddr(addr)
	if err != nil {
		return false
	}
	named := []string{strings.TrimSuffix(info.Host, "."), info.ASCIIHost}
	for _, w := range info.Warnings {
		if _, after, ok := strings.Cut(w.Message, "reads as "); ok && w.Code == "ip_address" {
			named = append(named, strings.TrimSuffix(strings.Fields(after)[0], ":"))
		}
	}
	for _, n := range named {
		if a, err := netip.ParseAddr(n); err == nil && a == want {
			return true
		}
	}
	return false
}
