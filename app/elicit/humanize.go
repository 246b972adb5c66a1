package elicit

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// Humanize turns a property key into a label for a field without a
// title: "firstName" and "first_name" become "First name", "userID"
// becomes "User ID", "address2" becomes "Address 2". A person should
// never read a raw key when a plain one can be made.
func Humanize(key string) string {
	ws := words(key)
	if len(ws) == 0 {
		return strings.TrimSpace(key)
	}
	for i, w := range ws {
		if isAcronym(w) {
			continue
		}
		w = strings.ToLower(w)
		if i == 0 {
			r, n := utf8.DecodeRuneInString(w)
			w = string(unicode.ToTitle(r)) + w[n:]
		}
		ws[i] = w
	}
	return strings.Join(ws, " ")
}

// isAcronym reports whether w is two or more letters, all upper case.
func isAcronym(w string) bool {
	n := 0
	for _, r := range w {
		if !unicode.IsUpper(r) {
			return false
		}
		n++
	}
	return n > 1
}

// words splits a key or a phrase into words at spaces, punctuation,
// camelCase humps ("apiKey" → "api", "Key"), runs of capitals
// ("HTTPServer" → "HTTP", "Server") and letter-digit boundaries
// ("card2" → "card", "2"). Case is kept.
func words(s string) []string {
	var out []string
	rs := []rune(s)
	start := -1
	flush := func(end int) {
		if start >= 0 && end > start {
			out = append(out, string(rs[start:end]))
		}
		start = -1
	}
	for i, r := range rs {
		if !unicode.IsLetter(r) && !unicode.IsDigit(r) {
			flush(i)
			continue
		}
		if start < 0 {
			start = i
			continue
		}
		prev := rs[i-1]
		switch {
		case unicode.IsDigit(r) != unicode.IsDigit(prev):
			flush(i)
			start = i
		case unicode.IsUpper(r) && unicode.IsLower(prev):
			flush(i)
			start = i
		case unicode.IsLower(r) && unicode.IsUpper(prev) && i-1 > start:
			// "HTTPServer": the last capital of a run starts the next word.
			flush(i - 1)
			start = i - 1
		}
	}
	flush(len(rs))
	return out
}
