package elicit

import (
	"reflect"
	"strings"
	"testing"
)

func TestCheckURL(t *testing.T) {
	t.Parallel()
	tests := []struct {
		raw, host, domain string
		warnings          []string
	}{
		{"https://example.com/path?q=1#top", "example.com", "example.com", nil},
		{"HTTPS://Example.COM", "example.com", "example.com", nil},
		{"https://login.accounts.example.com/", "login.accounts.example.com", "example.com", nil},
		{"https://www.example.co.uk/x", "www.example.co.uk", "example.co.uk", nil},
		{"https://a.b.shop.com.au", "a.b.shop.com.au", "shop.com.au", nil},
		{"https://co.uk", "co.uk", "co.uk", nil},
		{"https://intranet/", "intranet", "intranet", nil},
		{"https://example.com.", "example.com", "example.com", nil},
		{"https://example.com:443/", "example.com", "example.com", nil},
		{"https://my_host.example.com/", "my_host.example.com", "example.com", nil},
		{"https://example.com:8443/", "example.com", "example.com", []string{"port"}},
		{"https://example.com:1/", "example.com", "example.com", []string{"port"}},
		{"https://example.com:65535/", "example.com", "example.com", []string{"port"}},
		{"https://example.com:/", "example.com", "example.com", nil},
		{"https://user:pass@example.com/", "example.com", "example.com", []string{"userinfo"}},
		{"https://good.com@evil.com/", "evil.com", "evil.com", []string{"userinfo"}},
		{"https://xn--mnchen-3ya.de/", "münchen.de", "münchen.de", []string{"punycode"}},
		{"https://xn--80ak6aa92e.com/", "аррӏе.com", "аррӏе.com", []string{"punycode"}},
		{"https://pаypal.com/", "pаypal.com", "pаypal.com", []string{"mixed_script", "punycode"}},
		{"https://日本語.jp/", "日本語.jp", "日本語.jp", []string{"punycode"}},
		{"https://BÜCHER.de/", "bücher.de", "bücher.de", []string{"punycode"}},
		// Written in characters a browser maps to others: the domain is
		// the one the browser opens.
		{"https://accounts.google.com．evil.com/login", "accounts.google.com．evil.com", "evil.com", []string{"disguised"}},
		{"https://ｅｘａｍｐｌｅ.com/", "ｅｘａｍｐｌｅ.com", "example.com", []string{"disguised"}},
		{"https://ⓐpple.com/", "ⓐpple.com", "apple.com", []string{"disguised"}},
		{"https://pаypal。com/", "pаypal。com", "pаypal.com", []string{"disguised", "mixed_script", "punycode"}},
		{"https://93.184.216.34/", "93.184.216.34", "93.184.216.34", []string{"ip_address"}},
		{"https://255.0.0.1/", "255.0.0.1", "255.0.0.1", []string{"ip_address"}},
		{"https://example.com/" + strings.Repeat("a", MaxURLBytes-len("https://example.com/")), "example.com", "example.com", nil},
		{"https://[2001:db8::1]:8443/", "2001:db8::1", "2001:db8::1", []string{"ip_address", "port"}},
		{"https://0x7f.1/", "0x7f.1", "127.0.0.1", []string{"ip_address"}},
		{"https://010.0.0.1/", "010.0.0.1", "8.0.0.1", []string{"ip_address"}},
		{"https://\uff11\uff12\uff17.\uff10.\uff10.\uff11/", "\uff11\uff12\uff17.\uff10.\uff10.\uff11", "127.0.0.1", []string{"ip_address"}},
		{"https://\uff11.2.3.4/", "\uff11.2.3.4", "1.2.3.4", []string{"ip_address"}},
		{"http://localhost:8080/callback", "localhost", "localhost", []string{"http", "port"}},
		{"http://app.localhost/", "app.localhost", "app.localhost", []string{"http"}},
		{"http://127.0.0.1/", "127.0.0.1", "127.0.0.1", []string{"ip_address", "http"}},
		{"http://[::1]:80/", "::1", "::1", []string{"ip_address", "http"}},
	}
	for _, tt := range tests {
		t.Run(tt.raw, func(t *testing.T) {
			t.Parallel()
			info, err := CheckURL(tt.raw)
			if err != nil {
				t.Fatal(err)
			}
			var codes []string
			for _, w := range info.Warnings {
				codes = append(codes, w.Code)
				if w.Message == "" {
					t.Errorf("warning %s has no message", w.Code)
				}
			}
			if info.Host != tt.host || info.Domain != tt.domain || !reflect.DeepEqual(codes, tt.warnings) {
				t.Errorf("host %q domain %q warnings %q, want %q %q %q", info.Host, info.Domain, codes, tt.host, tt.domain, tt.warnings)
			}
			if info.URL != tt.raw {
				t.Errorf("URL = %q, want the link as given", info.URL)
			}
		})
	}
}

func TestCheckURLRefusals(t *testing.T) {
	t.Parallel()
	for _, raw := range []string{
		"",
		"javascript:alert(1)",
		"JavaScript://example.com/%0aalert(1)",
		"data:text/html,<script>alert(1)</script>",
		"file:///etc/passwd",
		"ftp://example.com/",
		"mailto:a@example.com",
		"vbscript:msgbox",
		"blob:https://example.com/uuid",
		"example.com",
		"//example.com/path",
		"https:example.com",
		"https://",
		"https:///path",
		"http://example.com/",
		"http://10.0.0.1/",
		"http://localhost.example.com/",
		" https://example.com",
		"https://exa mple.com",
		"https://evil.com\\@good.com",
		"https://example.com/\x00",
		"https://ex\u200bample.com",
		"https://example.com/invoice\u202Efdp.exe", // reads as "…exe.pdf"
		"https://example.com/\u202A", "https://example.com/\u202B", "https://example.com/\u202C", "https://example.com/\u202D",
		"https://example.com/a\u2066b", "https://example.com/a\u2067b", "https://example.com/a\u2068b", "https://example.com/a\u2069b",
		"https://example.com/?q=\u061C", "https://example.com/\u00AD", "https://example.com/\u2060", "https://example.com/\u2064",
		"https://example.com/\uFE0F", "https://example.com/\u034F", "https://example.com/\u3164", "https://example.com/#\U000E0041",
		"https://xn--example-276c.com/", // "exa\u202Emple.com" in punycode
		"https://a\u05d0.com/",          // Latin then Hebrew in one label: no browser opens it
		"https://-bad-.com/",
		"https://xn--.com/",
		"https://xn--a.com/", // decodes to a control character
		"https://exa%20mple.com/",
		// Numbers a browser must read as an address, and cannot.
		"https://1.2.3.4.5/",
		"https://0x100000000/",
		"https://0x10000000000000000/", // past 64 bits: still a number to a browser
		"https://a.0x10000000000000000/",
		"https://1.0xfffffffffffffffff/",
		"https://4294967296/",
		"https://1.2.3.256/",
		"https://1.2.65536/",
		"https://09/",
		"https://example.123/",
		"https://example.0x1/",
		"https://\uff11.\uff12.\uff13.\uff14.\uff15/",
		// Brackets hold an IPv6 address without a zone, or nothing.
		"https://[fe80::1%25eth0]/",
		"https://[1.2.3.4]/",
		// An address in disguise is no local development's.
		"http://0x7f.1/",
		"http://2130706433/",
		"https://example.com:0/",
		"https://example.com:65536/",
		"https://example.com:99999999999999999999/",
		"\xff",
	} {
		t.Run(raw, func(t *testing.T) {
			t.Parallel()
			info, err := CheckURL(raw)
			if err == nil {
				t.Fatalf("accepted: %+v", info)
			}
			if err.Error() == "" {
				t.Error("empty error")
			}
		})
	}
}

func TestCheckURLSchemeMessage(t *testing.T) {
	t.Parallel()
	_, err := CheckURL("javascript:alert(1)")
	if want := `"javascript:" links cannot be opened; only https links can`; err == nil || err.Error() != want {
		t.Errorf("error = %v, want %q", err, want)
	}
}

// TestCheckURLHidden: a link with invisible or direction-changing
// characters is refused in words a person understands.
func TestCheckURLHidden(t *testing.T) {
	t.Parallel()
	for _, raw := range []string{"https://example.com/invoice\u202Efdp.exe", "https://exa\u2066mple.com/", "https://example.com/\u200D"} {
		_, err := CheckURL(raw)
		if err == nil || !strings.Contains(err.Error(), "invisible characters") {
			t.Errorf("CheckURL(%q) = %v, want the invisible characters refusal", raw, err)
		}
	}
}

// TestCheckURLLookalike: a host with letters beyond a to z is also given
// in the plain spelling a browser sends, whichever form the link used,
// and its warnings name that spelling.
func TestCheckURLLookalike(t *testing.T) {
	t.Parallel()
	tests := []struct{ raw, host, ascii string }{
		{"https://аpple.com/login", "аpple.com", "xn--pple-43d.com"},
		{"https://xn--pple-43d.com:8443/login", "аpple.com", "xn--pple-43d.com"},
		{"https://login.münchen.de/", "login.münchen.de", "login.xn--mnchen-3ya.de"},
		{"https://日本語.jp/", "日本語.jp", "xn--wgv71a119e.jp"},
		{"https://example.com/", "example.com", ""},
		{"https://accounts.google.com．evil.com/", "accounts.google.com．evil.com", "accounts.google.com.evil.com"},
		{"https://ｅｘａｍｐｌｅ.com/", "ｅｘａｍｐｌｅ.com", "example.com"},
	}
	for _, tt := range tests {
		info, err := CheckURL(tt.raw)
		if err != nil {
			t.Fatal(err)
		}
		if info.Host != tt.host || info.ASCIIHost != tt.ascii || info.Lookalike() != (tt.ascii != "") {
			t.Errorf("%s: host %q ascii %q lookalike %v, want %q %q", tt.raw, info.Host, info.ASCIIHost, info.Lookalike(), tt.host, tt.ascii)
		}
		for _, w := range info.Warnings {
			if (w.Code == "punycode" || w.Code == "disguised") && !strings.Contains(w.Message, tt.ascii) {
				t.Errorf("%s: warning %q does not give the plain spelling %s", tt.raw, w.Message, tt.ascii)
			}
		}
	}
}

// The warning about text before an @ names the site the link really
// opens, in plain letters when its name imitates another: shown as it
// displays, it would read as the very site the link pretends to be.
func TestUserinfoWarningNamesRealSite(t *testing.T) {
	t.Parallel()
	for raw, want := range map[string]string{
		"https://paypal.com@xn--pypal-4ve.com/login": "it opens xn--pypal-4ve.com",
		"https://paypal.com@pаypal.com/login":        "it opens xn--pypal-4ve.com",
		"https://good.com@evil.com/":                 "it opens evil.com",
	} {
		info, err := CheckURL(raw)
		if err != nil {
			t.Fatal(err)
		}
		var msg string
		for _, w := range info.Warnings {
			if w.Code == "userinfo" {
				msg = w.Message
			}
		}
		if !strings.HasSuffix(msg, want) || strings.Contains(msg, "pаypal") {
			t.Errorf("%s: %q; want it to end %q", raw, msg, want)
		}
	}
}

// TestCheckURLNamesTheAddress: a numeric host in one of the old forms
// browsers still read is shown as written, and named, as its domain and
// in its warning, by the address it really opens; nothing calls it a
// website pretending to be another.
func TestCheckURLNamesTheAddress(t *testing.T) {
	t.Parallel()
	for raw, addr := range map[string]string{
		"https://0x7f.1/":          "127.0.0.1",
		"https://010.0.0.1/":       "8.0.0.1",
		"https://3627734734/":      "216.58.214.206",
		"https://192.168.1/":       "192.168.0.1",
		"https://0xc0.0250.1.0x1/": "192.168.1.1",
	} {
		info, err := CheckURL(raw)
		if err != nil {
			t.Fatalf("%s: %v", raw, err)
		}
		if len(info.Warnings) != 1 || !strings.Contains(info.Warnings[0].Message, "address "+addr+", written in a disguised way") {
			t.Errorf("%s: warnings %+v, want one naming %s", raw, info.Warnings, addr)
		}
		if info.Domain != addr || info.Lookalike() {
			t.Errorf("%s: domain %q, want %s, and not a look-alike name", raw, info.Domain, addr)
		}
	}
	info, err := CheckURL("https://93.184.216.34/")
	if err != nil || strings.Contains(info.Warnings[0].Message, "disguised") || info.Lookalike() {
		t.Errorf("the usual form is named as written: %+v, %v", info, err)
	}
}

// The URL Standard's number rules, case by case: what ends in a number
// (and so must be an address), and the address it is.
func TestIPv4Rules(t *testing.T) {
	t.Parallel()
	for host, want := range map[string]bool{
		"1.2.3.4": true, "1.2.3.4.": true, "1.2.3.4..": false, "example.com": false, "0x": true, "a.0x": true,
		"0x.0x": true, "00": true, "08": true, "0x" + strings.Repeat("f", 17): true, "0xg": false, "a.1e": false,
		".": false, "": false, "x.09": true,
	} {
		if got := endsInNumber(host); got != want {
			t.Errorf("endsInNumber(%q) = %v, want %v", host, got, want)
		}
	}
	for host, want := range map[string]string{
		"1.2.3.4": "1.2.3.4", "1.2.3.4.": "1.2.3.4", "0x": "0.0.0.0", "0x.0x": "0.0.0.0", "00": "0.0.0.0",
		"010.0.0.1": "8.0.0.1", "0x7f.1": "127.0.0.1", "192.168.1": "192.168.0.1", "4294967295": "255.255.255.255",
		"08": "", "4294967296": "", "1.2.3.256": "", "1.2.3.4.5": "", "256.1": "", "1.16777216": "", "a.0x": "",
		"0x" + strings.Repeat("f", 17): "", "1..2": "", "-1": "", "+1": "",
	} {
		addr, ok := parseIPv4(host)
		if got := addr.String(); !ok && want != "" || ok && got != want {
			t.Errorf("parseIPv4(%q) = %s, %v; want %q", host, got, ok, want)
		}
	}
}
