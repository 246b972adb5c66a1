package elicit

import (
	"errors"
	"math"
	"strings"
	"unicode"
)

// This file decodes punycode (RFC 3492), so a host written "xn--…" can
// be shown in the letters a person would read, and encodes it, so a host
// typed in Unicode can be shown as the browser will send it.
// golang.org/x/net/idna is too large a dependency for these two.

const (
	pcBase        = 36
	pcTMin        = 1
	pcTMax        = 26
	pcSkew        = 38
	pcDamp        = 700
	pcInitialBias = 72
	pcInitialN    = 128
)

var errPunycode = errors.New("not valid punycode")

// decodePunycode decodes one label without its "xn--" prefix (RFC 3492 §6.2).
func decodePunycode(s string) (string, error) {
	var out []rune
	pos := 0
	if b := strings.LastIndexByte(s, '-'); b >= 0 {
		for i := 0; i < b; i++ {
			if s[i] >= 0x80 {
				return "", errPunycode
			}
			out = append(out, rune(s[i]))
		}
		pos = b + 1
	}
	n, i, bias := pcInitialN, 0, pcInitialBias
	for pos < len(s) {
		oldi, w := i, 1
		for k := pcBase; ; k += pcBase {
			if pos == len(s) {
				return "", errPunycode
			}
			digit := punyDigit(s[pos])
			pos++
			if digit < 0 || digit > (math.MaxInt32-i)/w {
				return "", errPunycode
			}
			i += digit * w
			t := punyThreshold(k, bias)
			if digit < t {
				break
			}
			if w > math.MaxInt32/(pcBase-t) {
				return "", errPunycode
			}
			w *= pcBase - t
		}
		count := len(out) + 1
		bias = punyAdapt(i-oldi, count, oldi == 0)
		if i/count > math.MaxInt32-n {
			return "", errPunycode
		}
		n += i / count
		i %= count
		if n > 0x10FFFF || (n >= 0xD800 && n <= 0xDFFF) {
			return "", errPunycode
		}
		out = append(out, 0)
		copy(out[i+1:], out[i:])
		out[i] = rune(n)
		i++
	}
	return string(out), nil
}

func punyDigit(c byte) int {
	switch {
	case c >= '0' && c <= '9':
		return int(c-'0') + 26
	case c >= 'a' && c <= 'z':
		return int(c - 'a')
	case c >= 'A' && c <= 'Z':
		return int(c - 'A')
	}
	return -1
}

// punyThreshold is the threshold t of RFC 3492 §6.2 and §6.3 for the
// digit at position k: k - bias, clamped to [tmin, tmax].
func punyThreshold(k, bias int) int {
	return min(max(k-bias, pcTMin), pcTMax)
}

// encodePunycode encodes one label (RFC 3492 §6.3) without its "xn--"
// prefix, so a host typed in Unicode can be shown as the browser will
// send it.
func encodePunycode(s string) string {
	var out []byte
	runes := []rune(s)
	for _, r := range runes {
		if r < 0x80 {
			out = append(out, byte(r))
		}
	}
	b := len(out)
	h := b
	if b > 0 {
		out = append(out, '-')
	}
	n, delta, bias := rune(pcInitialN), 0, pcInitialBias
	for h < len(runes) {
		m := rune(unicode.MaxRune + 1)
		for _, r := range runes {
			if r >= n && r < m {
				m = r
			}
		}
		delta += int(m-n) * (h + 1)
		n = m
		for _, r := range runes {
			if r < n {
				delta++
			}
			if r != n {
				continue
			}
			q := delta
			for k := pcBase; ; k += pcBase {
				t := punyThreshold(k, bias)
				if q < t {
					break
				}
				out = append(out, punyEncodeDigit(t+(q-t)%(pcBase-t)))
				q = (q - t) / (pcBase - t)
			}
			out = append(out, punyEncodeDigit(q))
			bias = punyAdapt(delta, h+1, h == b)
			delta = 0
			h++
		}
		delta++
		n++
	}
	return string(out)
}

func punyEncodeDigit(d int) byte {
	if d < 26 {
		return byte('a' + d)
	}
	return byte('0' + d - 26)
}

// punyAdapt is the bias adaptation function of RFC 3492 §6.1.
func punyAdapt(delta, numPoints int, first bool) int {
	if first {
		delta /= pcDamp
	} else {
		delta /= 2
	}
	delta += delta / numPoints
	k := 0
	for delta > ((pcBase-pcTMin)*pcTMax)/2 {
		delta /= pcBase - pcTMin
		k += pcBase
	}
	return k + (pcBase-pcTMin+1)*delta/(delta+pcSkew)
}
