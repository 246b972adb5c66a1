package elicit

import (
	"net/netip"
	"strconv"
	"strings"
)

// This file reads a numeric host as a browser does (the URL Standard's
// host parser). A host whose last label is a number is an IPv4 address
// to a browser, in any of the old forms ("0x7f.1", "2130706433",
// "010.0.0.1", which is 8.0.0.1), and a link whose number is not one
// ("1.2.3.4.5", "example.123", "0x100000000") does not open at all. The
// bridge refuses those rather than show the person a link that cannot
// be opened, and names the address the old forms really open.

// parseIP reads a host (lower case, without brackets) that is an address
// to a browser. bracketed says it was written in [ ], which makes it an
// IPv6 address or nothing. Otherwise it is an address when ascii, the
// name the browser maps it to, ends in a number ("１２７.０.０.１" is
// 127.0.0.1). A host that must be an address but is not a valid one is
// errHostName.
func parseIP(host, ascii string, bracketed bool) (addr netip.Addr, isIP bool, err error) {
	if bracketed {
		// Browsers read no zone ("%25eth0") and no IPv4 in brackets.
		a, perr := netip.ParseAddr(host)
		if perr != nil || !a.Is6() || a.Zone() != "" {
			return netip.Addr{}, false, errHostName
		}
		return a, true, nil
	}
	if !endsInNumber(ascii) {
		return netip.Addr{}, false, nil // a name (setHost checks it)
	}
	a, ok := parseIPv4(ascii)
	if !ok {
		return netip.Addr{}, false, errHostName
	}
	return a, true, nil
}

// ipWarning says a link goes to an address, and which one when it is
// written in another form than the usual four numbers.
func ipWarning(host string, addr netip.Addr) string {
	if oldForm(host, addr) {
		return "This link goes to the numeric address " + addr.String() + ", written in a disguised way (" + host + "), instead of a website's name."
	}
	return "This link goes to a numeric address (" + host + ") instead of a website's name."
}

// oldForm reports whether host is an address written otherwise than the
// browser writes it: IPv4 in other than its usual four numbers, IPv6
// with zeros the browser leaves out ("::0" opens [::]).
func oldForm(host string, addr netip.Addr) bool {
	return !strings.EqualFold(addr.String(), strings.TrimSuffix(host, "."))
}

// endsInNumber is the URL Standard's "ends in a number": the host's last
// label (before a final dot) is all digits, or "0x" and hex digits, of
// any length (too large a number is then no address at all).
func endsInNumber(host string) bool {
	labels := strings.Split(host, ".")
	if labels[len(labels)-1] == "" {
		if len(labels) == 1 {
			return false
		}
		labels = labels[:len(labels)-1]
	}
	last := labels[len(labels)-1]
	if last != "" && strings.Trim(last, "0123456789") == "" {
		return true
	}
	hex, ok := strings.CutPrefix(last, "0x")
	if !ok {
		hex, ok = strings.CutPrefix(last, "0X")
	}
	return ok && strings.Trim(hex, "0123456789abcdefABCDEF") == ""
}

// parseIPv4 is the URL Standard's IPv4 parser: up to four numbers, each
// decimal, octal (a leading 0) or hex (0x), the last filling the bytes
// the others leave.
func parseIPv4(host string) (netip.Addr, bool) {
	parts := strings.Split(host, ".")
	if parts[len(parts)-1] == "" && len(parts) > 1 {
		parts = parts[:len(parts)-1]
	}
	if len(parts) > 4 {
		return netip.Addr{}, false
	}
	var v uint64
	for k, p := range parts {
		n, ok := ipv4Number(p)
		if !ok {
			return netip.Addr{}, false
		}
		if k < len(parts)-1 {
			if n > 255 {
				return netip.Addr{}, false
			}
			v |= n << (8 * (3 - k))
			continue
		}
		if n >= 1<<(8*(5-len(parts))) {
			return netip.Addr{}, false
		}
		v |= n
	}
	return netip.AddrFrom4([4]byte{byte(v >> 24), byte(v >> 16), byte(v >> 8), byte(v)}), true
}

// ipv4Number reads one part of an IPv4 host: "0x…" hex, "0…" octal, else
// decimal; "0x" alone is zero. A number past 64 bits is too large for
// any part of an address, so it fails too.
func ipv4Number(s string) (uint64, bool) {
	if s == "" {
		return 0, false
	}
	base := 10
	switch {
	case len(s) >= 2 && (s[:2] == "0x" || s[:2] == "0X"):
		s, base = s[2:], 16
	case len(s) >= 2 && s[0] == '0':
		s, base = s[1:], 8
	}
	if s == "" {
		return 0, true
	}
	if s[0] == '+' || s[0] == '-' {
		return 0, false // ParseUint takes neither, but say so
	}
	n, err := strconv.ParseUint(s, base, 64)
	return n, err == nil
}
