package elicit

import (
	"net/url"
	"strings"
	"time"
	"unicode/utf8"
)

// This file checks the four string formats. The go-sdk checks a schema's
// structure and types but not format, so a server that asks for an email
// address would otherwise receive whatever was typed.

// validFormat reports whether s is a valid value of the format.
func validFormat(fm Format, s string) bool {
	switch fm {
	case FormatEmail:
		return validEmail(s)
	case FormatURI:
		return validURI(s)
	case FormatDate:
		return validDate(s)
	case FormatDateTime:
		return validDateTime(s)
	}
	return true
}

// validEmail reports whether s is a bare address (RFC 5321 Mailbox, the
// meaning of JSON Schema's "email"): a dot-atom local part, "@", and a
// domain of letter-digit-hyphen labels. Quoted local parts, comments,
// display names and address literals are refused: people do not type
// them, and a server asking for an address does not expect them. A
// domain without a dot (user@localhost) is accepted, as the RFC and
// browsers do. Letters beyond ASCII are not: they make an "idn-email"
// (RFC 6531), which servers checking "email" refuse (the TypeScript
// SDK's validator does). Chromium's email box gives an international
// domain in its ASCII form (xn--…) already.
func validEmail(s string) bool {
	at := strings.LastIndexByte(s, '@')
	if at <= 0 || at == len(s)-1 || !isASCII(s) {
		return false
	}
	local, domain := s[:at], s[at+1:]
	if len(local) > 64 || len(domain) > 253 {
		return false
	}
	for _, atom := range strings.Split(local, ".") {
		if atom == "" {
			return false
		}
		for _, r := range atom {
			if !isAtext(r) {
				return false
			}
		}
	}
	for _, label := range strings.Split(domain, ".") {
		if !validHostLabel(label) {
			return false
		}
	}
	return true
}

// isAtext reports whether r may appear in a dot-atom (RFC 5322 §3.2.3).
func isAtext(r rune) bool {
	switch {
	case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9':
		return true
	case r >= 0x80:
		return !unfitInAddress(r)
	}
	return strings.ContainsRune("!#$%&'*+-/=?^_`{|}~", r)
}

// validHostLabel reports whether label is a DNS label of letters, digits
// and hyphens, 1 to 63 bytes, not starting or ending with a hyphen.
func validHostLabel(label string) bool {
	if label == "" || len(label) > 63 || label[0] == '-' || label[len(label)-1] == '-' {
		return false
	}
	for _, r := range label {
		ok := r == '-' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' ||
			r >= 0x80 && !unfitInAddress(r)
		if !ok {
			return false
		}
	}
	return true
}

func isSpaceOrControl(r rune) bool {
	return r <= ' ' || r == 0x7f || (r >= 0x80 && r <= 0x9f) || r == 0xa0 || r == 0x2028 || r == 0x2029 ||
		r == 0xfeff || (r >= 0x2000 && r <= 0x200f) || r == 0x3000
}

// unfitInAddress reports what an email address or host name may not hold
// beyond ASCII: spaces and controls, and the invisible or direction marks
// hiddenRune knows (U+202E shows an address reversed, a soft hyphen
// hides in "example.com").
func unfitInAddress(r rune) bool {
	return r == utf8.RuneError || isSpaceOrControl(r) || hiddenRune(r)
}

// validURI reports whether s is an absolute URI (RFC 3986 §4.3): a
// scheme, then characters the RFC allows: "%" only before two hex
// digits, "[" and "]" only around an IP literal host, one "#" at most.
// For http and https a host is required too, since "https://" alone is a
// slip, not an address.
func validURI(s string) bool {
	if s == "" || len(s) > 8192 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c <= ' ' || c >= 0x7f || strings.IndexByte(`"<>\^`+"`{|}", c) >= 0 {
			return false
		}
		if c == '%' && (i+2 >= len(s) || !isHex(s[i+1]) || !isHex(s[i+2])) {
			return false
		}
	}
	u, err := url.Parse(s)
	if err != nil || u.Scheme == "" || !validScheme(s[:len(u.Scheme)]) || strings.Count(s, "#") > 1 {
		return false
	}
	if brackets := strings.Count(s, "[") + strings.Count(s, "]"); brackets > 0 &&
		(brackets != 2 || !strings.HasPrefix(u.Host, "[") || !strings.Contains(u.Host, "]")) {
		return false
	}
	if (u.Scheme == "http" || u.Scheme == "https") && u.Host == "" {
		return false
	}
	return true
}

func isHex(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

func isASCIILetter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}

// validScheme reports whether s is ALPHA *( ALPHA / DIGIT / "+" / "-" / "." ).
func validScheme(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		letter := isASCIILetter(c)
		if i == 0 && !letter {
			return false
		}
		if !letter && !(c >= '0' && c <= '9') && c != '+' && c != '-' && c != '.' {
			return false
		}
	}
	return s != ""
}

// validDate reports whether s is a real calendar date as YYYY-MM-DD
// (RFC 3339 full-date): 2026-02-30 is refused.
func validDate(s string) bool {
	if len(s) != 10 {
		return false
	}
	_, err := time.Parse(time.DateOnly, s)
	return err == nil
}

// validDateTime reports whether s is an RFC 3339 date-time with an
// offset ("Z" or ±hh:mm), the meaning of JSON Schema's "date-time".
func validDateTime(s string) bool {
	_, err := ParseDateTime(s)
	return err == nil
}

// ParseDateTime parses an RFC 3339 date-time as a date-time answer or
// default must be written. RFC 3339 §5.6 allows a lower-case "t" and
// "z"; Go's parser wants upper case.
func ParseDateTime(s string) (time.Time, error) {
	if len(s) < len("2006-01-02T15:04:05Z") || len(s) > 64 {
		return time.Time{}, errBadDateTime
	}
	// The only letters a valid one has.
	if s[10] == 't' {
		s = s[:10] + "T" + s[11:]
	}
	if n := len(s); s[n-1] == 'z' {
		s = s[:n-1] + "Z"
	}
	if s[10] != 'T' {
		return time.Time{}, errBadDateTime
	}
	t, err := time.Parse(time.RFC3339Nano, s)
	// Go takes an offset of +24:00 or +05:60; RFC 3339 stops at 23:59.
	if n := len(s); err == nil && s[n-1] != 'Z' && (s[n-5:n-3] > "23" || s[n-2:] > "59") {
		return time.Time{}, errBadDateTime
	}
	return t, err
}
