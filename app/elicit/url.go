package elicit

import (
	"errors"
	"fmt"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// This file checks a URL-mode link before a person is offered to open
// it. The spec asks a client to show the full URL with its domain
// highlighted and to warn on hosts that can mislead: punycode, IP
// literals, a name before "@", plain http. Only https (and http to this
// machine, for local development) may be opened at all: javascript:,
// data: and file: links run or read things in the person's browser.

// MaxURLBytes bounds a URL-mode link: longer ones hide their host from a
// person reading them and are refused.
const MaxURLBytes = 8192

// URLWarning is a reason to look twice at a URL before opening it.
type URLWarning struct {
	Code    string `json:"code"` // "disguised", "punycode", "mixed_script", "ip_address", "userinfo", "port", "http"
	Message string `json:"message"`
}

// URLInfo is a checked URL for URL mode.
type URLInfo struct {
	URL    string `json:"url"`
	Scheme string `json:"scheme"`
	Host   string `json:"host"`   // as typed (Unicode if it was punycode)
	Domain string `json:"domain"` // registrable part to highlight, e.g. "example.co.uk"
	// ASCIIHost is the host in the letters a browser puts on the wire
	// ("xn--pple-43d.com" for "аpple.com"), set only when Host is
	// written otherwise (international letters, or characters a browser
	// maps to others): it cannot imitate another name. Domain is then
	// the registrable part of the name opened. (A numeric address's
	// Domain is the address opened, whichever way Host writes it.)
	ASCIIHost string       `json:"asciiHost,omitempty"`
	Port      string       `json:"port,omitempty"`
	Warnings  []URLWarning `json:"warnings,omitempty"`
}

// CheckURL checks a URL-mode link. A link that must not be opened (a
// scheme other than https, http to another machine, no host, spaces or
// control characters) is an error whose message can be shown as is.
func CheckURL(raw string) (*URLInfo, error) {
	switch {
	case raw == "":
		return nil, errors.New("the link is empty")
	case len(raw) > MaxURLBytes:
		return nil, fmt.Errorf("the link is longer than %d characters", MaxURLBytes)
	case !utf8.ValidString(raw):
		return nil, errors.New("the link is not valid text")
	}
	for _, r := range raw {
		// Direction controls and other invisible characters change what
		// a person reads ("…\u202Efdp.exe" shows as "…exe.pdf") without
		// changing where the link goes.
		if hiddenRune(r) {
			return nil, errHidden
		}
		// Browsers silently drop or rewrite these ("\" becomes "/"), so the
		// link opened would not be the link shown.
		if r == '\\' || isSpaceOrControl(r) {
			return nil, errors.New("the link contains spaces, backslashes or control characters")
		}
	}
	u, err := url.Parse(raw)
	if err != nil {
		return nil, errors.New("the link is not a valid web address")
	}
	scheme := strings.ToLower(u.Scheme)
	switch {
	case scheme == "":
		return nil, errors.New("the link must start with https://")
	case scheme != "https" && scheme != "http":
		return nil, fmt.Errorf("%q links cannot be opened; only https links can", scheme+":")
	case u.Opaque != "" || u.Host == "":
		return nil, errors.New("the link has no site name after " + scheme + "://")
	}
	host := strings.ToLower(u.Hostname())
	info := &URLInfo{URL: raw, Scheme: scheme, Port: u.Port()}
	if n, err := strconv.Atoi(info.Port); info.Port != "" && (err != nil || n < 1 || n > 65535) {
		return nil, errors.New("the link's port number is not valid")
	}
	bracketed, ascii := strings.HasPrefix(u.Host, "["), ""
	if !bracketed {
		// The name the browser looks up, for the number check and the name.
		if ascii, err = hostToASCII(host); err != nil {
			return nil, errHostName
		}
	}
	addr, isIP, err := parseIP(host, ascii, bracketed)
	if err != nil {
		return nil, err
	}
	if isIP {
		// Shown as written, named by the address it opens: "010.0.0.1"
		// opens 8.0.0.1.
		info.Host, info.Domain = host, addr.String()
		info.warn("ip_address", ipWarning(host, addr))
	} else {
		if err := info.setHost(host, ascii); err != nil {
			return nil, err
		}
	}
	if scheme == "http" {
		// An address in disguise is no local development's.
		if !isLoopback(host, addr, isIP) || isIP && oldForm(host, addr) {
			return nil, errors.New("plain http links cannot be opened; only https links can")
		}
		info.warn("http", "The link is not secure (it starts with http, not https). It opens a page on this device itself.")
	}
	if u.User != nil {
		// The plain spelling when there is one: the point is to show
		// the real site, and a look-alike name would seem to be it.
		site := info.Host
		switch {
		case info.ASCIIHost != "":
			site = info.ASCIIHost
		case isIP:
			site = info.Domain
		}
		info.warn("userinfo", "The link starts with \""+u.User.Username()+"@\", which is not where it leads: it opens "+site)
	}
	if info.Port != "" && !(scheme == "https" && info.Port == "443") && !(scheme == "http" && info.Port == "80") {
		info.warn("port", "The address has an unusual number after the site name (:"+info.Port+"); websites seldom need one.")
	}
	return info, nil
}

func (i *URLInfo) warn(code, msg string) {
	i.Warnings = append(i.Warnings, URLWarning{Code: code, Message: msg})
}

var errHostName = errors.New("the link's site name is not valid")

// setHost checks a host name (lower case) given with the name a browser
// opens for it (hostToASCII's), and finds that name's registrable
// domain. A host written in other letters than the name it opens
// (international letters, or characters a browser maps to others) gets
// the plain spelling too, as ASCIIHost, with warnings.
func (i *URLInfo) setHost(host, ascii string) error {
	ascii = strings.TrimSuffix(ascii, ".")
	labels := strings.Split(ascii, ".")
	international := false
	for k, l := range labels {
		if strings.HasPrefix(l, "xn--") {
			d, err := punycodeToUnicode(l)
			if err != nil || d == "" {
				return errHostName
			}
			labels[k], international = d, true
			if strings.ContainsFunc(d, hiddenRune) {
				return errHidden
			}
		}
		if !validHostLabel(labels[k]) && !validUnderscoreLabel(labels[k]) {
			return errHostName
		}
	}
	opened := strings.Join(labels, ".")
	written := writtenHost(strings.TrimSuffix(host, "."))
	i.Host = opened
	i.Domain = registrableDomain(labels)
	disguised := written != opened
	if !international && !disguised {
		return nil
	}
	i.ASCIIHost = ascii
	if disguised {
		// Shown as written, which is what the person sees in the link;
		// the card names the site opened by its plain spelling.
		i.Host = written
		i.warn("disguised", "The site name is written with unusual characters that the browser reads as other ones: this link really opens "+ascii+".")
	}
	for _, l := range labels {
		if mixedScript(l) {
			// Before the punycode warning: the stronger reason to look twice.
			i.warn("mixed_script", "The site name mixes letters from different alphabets, a trick used to imitate a familiar site.")
			break
		}
	}
	if international {
		i.warn("punycode", "The site name uses letters beyond a to z, some of which look just like familiar ones. Its real name, in plain letters, is "+ascii+": make sure this is the site you expect.")
	}
	return nil
}

// writtenHost is host as a person reads it in the link: its punycode
// labels in the letters they stand for.
func writtenHost(host string) string {
	labels := strings.Split(host, ".")
	for k, l := range labels {
		if d, err := punycodeToUnicode(l); strings.HasPrefix(l, "xn--") && err == nil {
			labels[k] = d
		}
	}
	return strings.Join(labels, ".")
}

// Lookalike reports whether the host is written in other letters than
// the plain spelling of the name it opens (letters beyond a to z, or
// characters a browser reads as others), so its name may imitate another
// site's and must not be presented as if it could be trusted at a glance.
func (i *URLInfo) Lookalike() bool { return i.ASCIIHost != "" }

// errHidden refuses a link with invisible characters.
var errHidden = errors.New("the link contains invisible characters that can disguise where it really goes")

// hiddenRune reports characters that show as nothing, or change how the
// text around them is shown, but still count in a URL: Unicode format
// characters (bidi marks, embeddings, overrides and isolates U+202A-
// U+202E and U+2066-U+2069, zero-width spaces and joiners, the soft
// hyphen, tags), variation selectors, the grapheme joiner and the
// Hangul fillers, which draw blank.
func hiddenRune(r rune) bool {
	switch {
	case r < 0xad:
		return false
	case unicode.Is(unicode.Cf, r),
		r >= 0xfe00 && r <= 0xfe0f, r >= 0xe0100 && r <= 0xe01ef, // variation selectors
		r >= 0x180b && r <= 0x180f, // Mongolian variation selectors and vowel separator
		r == 0x034f, r == 0x115f, r == 0x1160, r == 0x3164, r == 0xffa0, r == 0x2800:
		return true
	}
	return false
}

// validUnderscoreLabel allows "_" in a label (seen in real sub-domains),
// with the other rules of a DNS label.
func validUnderscoreLabel(l string) bool {
	return strings.Contains(l, "_") && validHostLabel(strings.ReplaceAll(l, "_", "a"))
}

// isLoopback reports whether host is this machine.
func isLoopback(host string, addr netip.Addr, isIP bool) bool {
	if isIP {
		return addr.IsValid() && addr.Unmap().IsLoopback()
	}
	h := strings.TrimSuffix(host, ".")
	return h == "localhost" || strings.HasSuffix(h, ".localhost")
}

// mixedScript reports whether a label mixes letters of different scripts
// ("pаypal" with a Cyrillic "а"). Han with kana or Hangul is one writing
// system, not a mix.
func mixedScript(label string) bool {
	first := ""
	for _, r := range label {
		if !unicode.IsLetter(r) {
			continue
		}
		s := scriptOf(r)
		if first == "" {
			first = s
		} else if s != first {
			return true
		}
	}
	return false
}

// scriptOf names the script of a letter, folding the scripts that are
// written together (Japanese, Korean) into one.
func scriptOf(r rune) string {
	switch {
	case r < 0x80 || unicode.Is(unicode.Latin, r):
		return "Latin"
	case unicode.Is(unicode.Cyrillic, r):
		return "Cyrillic"
	case unicode.Is(unicode.Greek, r):
		return "Greek"
	case unicode.Is(unicode.Han, r), unicode.Is(unicode.Hiragana, r), unicode.Is(unicode.Katakana, r), unicode.Is(unicode.Hangul, r):
		return "CJK"
	case unicode.Is(unicode.Armenian, r):
		return "Armenian"
	case unicode.Is(unicode.Hebrew, r):
		return "Hebrew"
	case unicode.Is(unicode.Arabic, r):
		return "Arabic"
	case unicode.Is(unicode.Cherokee, r):
		return "Cherokee"
	}
	return "other"
}

// multiLabelSuffixes are common public suffixes of two labels, under
// which a registrable domain has three ("example.co.uk"). A full public
// suffix list is too large for the widget; a name under a suffix not
// listed is highlighted one label short, which still shows the real site.
var multiLabelSuffixes = map[string]bool{
	"co.uk": true, "org.uk": true, "ac.uk": true, "gov.uk": true, "me.uk": true, "ltd.uk": true, "plc.uk": true, "net.uk": true, "sch.uk": true, "nhs.uk": true,
	"com.au": true, "net.au": true, "org.au": true, "edu.au": true, "gov.au": true, "asn.au": true, "id.au": true,
	"co.nz": true, "org.nz": true, "net.nz": true, "govt.nz": true, "ac.nz": true,
	"co.jp": true, "ne.jp": true, "or.jp": true, "ac.jp": true, "go.jp": true,
	"co.kr": true, "or.kr": true, "co.in": true, "net.in": true, "org.in": true, "gov.in": true, "ac.in": true,
	"com.br": true, "net.br": true, "org.br": true, "gov.br": true, "com.cn": true, "net.cn": true, "org.cn": true, "gov.cn": true,
	"com.mx": true, "com.ar": true, "com.tr": true, "com.tw": true, "com.hk": true, "com.sg": true, "com.my": true, "com.ph": true, "com.pk": true,
	"co.za": true, "co.il": true, "co.id": true, "co.th": true, "com.ua": true, "com.pl": true, "com.es": true, "com.co": true, "com.pe": true, "com.vn": true,
	"com.eg": true, "com.sa": true, "com.ng": true, "co.ke": true,
}

// registrableDomain gives the part of a host a person should check: the
// last two labels, or three under a known two-label suffix.
func registrableDomain(labels []string) string {
	n := 2
	if len(labels) >= 3 && multiLabelSuffixes[labels[len(labels)-2]+"."+labels[len(labels)-1]] {
		n = 3
	}
	if len(labels) < n {
		n = len(labels)
	}
	return strings.Join(labels[len(labels)-n:], ".")
}
