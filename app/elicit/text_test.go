package elicit

import (
	"testing"
	"time"
)

func TestHumanize(t *testing.T) {
	t.Parallel()
	tests := map[string]string{
		"firstName":    "First name",
		"first_name":   "First name",
		"userID":       "User ID",
		"HTTPServer":   "HTTP server",
		"address2":     "Address 2",
		"api-key":      "Api key",
		"already Nice": "Already nice",
		"email":        "Email",
		"__":           "__",
		"":             "",
		"ÉtéDate":      "Été date",
	}
	for in, want := range tests {
		t.Run(in, func(t *testing.T) {
			t.Parallel()
			if got := Humanize(in); got != want {
				t.Errorf("Humanize(%q) = %q, want %q", in, got, want)
			}
		})
	}
}

func TestLocalDateTime(t *testing.T) {
	t.Parallel()
	tests := []struct {
		value  string
		offset time.Duration
		want   string // "" = error
	}{
		{"2026-12-02T10:30", time.Hour, "2026-12-02T10:30:00+01:00"},
		{"2026-12-02T10:30", 0, "2026-12-02T10:30:00Z"},
		{"2026-12-02T10:30:15", -(5*time.Hour + 30*time.Minute), "2026-12-02T10:30:15-05:30"},
		{"2026-12-02T10:30:15.250", 9 * time.Hour, "2026-12-02T10:30:15.25+09:00"},
		{"2026-12-02 10:30", 0, "2026-12-02T10:30:00Z"},
		{"2026-12-02T10:30", time.Hour + 30*time.Second, "2026-12-02T10:30:00+01:00"},
		{"2026-02-30T10:30", 0, ""},
		{"2026-12-02", 0, ""},
		{"2026-12-02T25:00", 0, ""},
		{"2026-12-02T10:30+01:00", 0, ""},
		{"2026-12-02T10:30", 24 * time.Hour, ""},
		{"", 0, ""},
	}
	for _, tt := range tests {
		t.Run(tt.value, func(t *testing.T) {
			t.Parallel()
			got, err := LocalDateTime(tt.value, tt.offset)
			if tt.want == "" {
				if err == nil {
					t.Errorf("LocalDateTime(%q, %v) = %q, want an error", tt.value, tt.offset, got)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Errorf("LocalDateTime(%q, %v) = %q, %v; want %q", tt.value, tt.offset, got, err, tt.want)
			}
		})
	}
}

func TestFormats(t *testing.T) {
	t.Parallel()
	tests := []struct {
		format Format
		value  string
		ok     bool
	}{
		{FormatEmail, "name@example.com", true},
		{FormatEmail, "first.last+tag@sub.example.co.uk", true},
		{FormatEmail, "user@localhost", true},
		{FormatEmail, "josé@example.com", false}, // an idn-email, which "email" servers refuse
		{FormatEmail, "ann@exämple.com", false},
		{FormatEmail, "ann@xn--exmple-cua.com", true}, // as Chromium's email box gives it
		{FormatEmail, "name@", false},
		{FormatEmail, "@example.com", false},
		{FormatEmail, "a..b@example.com", false},
		{FormatEmail, "a b@example.com", false},
		{FormatEmail, "Ann <a@example.com>", false},
		{FormatEmail, "a@-example.com", false},
		{FormatEmail, "a@example..com", false},
		{FormatEmail, "ceo\u202emoc.live@example.com", false}, // shows reversed
		{FormatEmail, "ann@exa\u2066mple.com", false},
		{FormatEmail, "ann\u2060@example.com", false},
		{FormatEmail, "ann@exa\u00admple.com", false}, // soft hyphen: shows as example.com
		{FormatEmail, "ann@example.com\U000e0041", false},
		{FormatURI, "https://example.com/a?b#c", true},
		{FormatURI, "mailto:a@example.com", true},
		{FormatURI, "urn:isbn:0451450523", true},
		{FormatURI, "example.com", false},
		{FormatURI, "/relative/path", false},
		{FormatURI, "https://", false},
		{FormatURI, "https://exa mple.com", false},
		{FormatURI, "1http://example.com", false},
		{FormatURI, "https://[::1]:8080/x", true},
		{FormatURI, "https://example.com/%41", true},
		{FormatURI, "https://example.com/?q[]=1", false}, // RFC 3986: brackets only around an IP literal
		{FormatURI, "https://example.com/a[1]", false},
		{FormatURI, "https://example.com/a#b#c", false},
		{FormatURI, "https://example.com/%zz", false},
		{FormatURI, "https://example.com/?q=%4", false},
		{FormatDate, "2024-02-29", true},
		{FormatDate, "2025-02-29", false},
		{FormatDate, "2026-1-5", false},
		{FormatDate, "2026-01-05T00:00:00Z", false},
		{FormatDateTime, "2026-12-02T10:30:00Z", true},
		{FormatDateTime, "2026-12-02t10:30:00.123z", true},
		{FormatDateTime, "2026-12-02T10:30:00-07:00", true},
		{FormatDateTime, "2026-12-02T10:30:00", false},
		{FormatDateTime, "2026-12-02 10:30:00Z", false},
		{FormatDateTime, "2026-12-02T10:30Z", false},
		{FormatDateTime, "2026-12-02T16:00:00+23:59", true},
		{FormatDateTime, "2026-12-02T16:00:00+24:00", false},
		{FormatDateTime, "2026-12-02T16:00:00+05:60", false},
		{FormatDateTime, "2026-12-02T16:00:00.5-24:00", false},
	}
	for _, tt := range tests {
		t.Run(string(tt.format)+" "+tt.value, func(t *testing.T) {
			t.Parallel()
			if got := validFormat(tt.format, tt.value); got != tt.ok {
				t.Errorf("valid = %v, want %v", got, tt.ok)
			}
		})
	}
}

func TestMessages(t *testing.T) {
	t.Parallel()
	tests := []struct {
		schema, code, want string
	}{
		{`{"type":"integer","minimum":1,"maximum":100}`, CodeTooLarge, "Enter a whole number between 1 and 100"},
		{`{"type":"number","minimum":0.5}`, CodeTooSmall, "Enter a number that is 0.5 or more"},
		{`{"type":"integer","minimum":0.5}`, CodeTooSmall, "Enter a whole number that is 1 or more"},
		{`{"type":"integer","minimum":0.5,"maximum":1.5}`, CodeTooLarge, "Enter 1"},
		{`{"type":"number","maximum":1e21}`, CodeTooLarge, "Enter a number that is 1000000000000000000000 or less"},
		{`{"type":"integer"}`, CodeNotInteger, "Enter a whole number"},
		{`{"type":"string","format":"email"}`, CodeFormat, "Enter an email address, like name@example.com"},
		{`{"type":"string","minLength":1,"maxLength":1}`, CodeTooLong, "Enter exactly 1 character"},
		{`{"type":"string","minLength":2,"maxLength":8}`, CodeTooShort, "Enter between 2 and 8 characters"},
		{`{"type":"array","items":{"enum":["a","b"]},"minItems":2}`, CodeRequired, "Choose at least 2"},
		{`{"type":"array","items":{"enum":["a","b"]}}`, CodeRequired, "Choose at least one"},
		{`{"type":"string","enum":["a"]}`, CodeRequired, "Choose one of the options"},
		{`{"type":"boolean"}`, CodeNotAnOption, "Choose yes or no"},
	}
	for _, tt := range tests {
		t.Run(tt.want, func(t *testing.T) {
			t.Parallel()
			f := mustParse(t, `{"type":"object","properties":{"f":`+tt.schema+`}}`).Fields[0]
			if got := f.message(tt.code); got != tt.want {
				t.Errorf("message(%s) = %q, want %q", tt.code, got, tt.want)
			}
		})
	}
}

func TestDateTimeLocalValue(t *testing.T) {
	t.Parallel()
	tests := []struct {
		value  string
		offset time.Duration
		want   string // "" = error
	}{
		{"2026-12-02T09:30:00Z", time.Hour, "2026-12-02T10:30"},
		{"2026-12-02T10:30:00+01:00", time.Hour, "2026-12-02T10:30"},
		{"2026-12-31T23:30:15-01:00", 0, "2027-01-01T00:30:15"},
		{"2026-12-02t09:30:00.25z", 0, "2026-12-02T09:30:00.25"},
		{"2026-12-02T09:30:00", 0, ""},
		{"2026-12-02T09:30:00Z", 25 * time.Hour, ""},
	}
	for _, tt := range tests {
		t.Run(tt.value, func(t *testing.T) {
			t.Parallel()
			got, err := DateTimeLocalValue(tt.value, tt.offset)
			if tt.want == "" {
				if err == nil {
					t.Errorf("got %q, want an error", got)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Fatalf("got %q, %v; want %q", got, err, tt.want)
			}
			// Back through LocalDateTime it names the same instant.
			back, err := LocalDateTime(got, tt.offset)
			if err != nil {
				t.Fatal(err)
			}
			a, _ := ParseDateTime(back)
			b, _ := ParseDateTime(tt.value)
			if !a.Equal(b) {
				t.Errorf("round trip %s -> %s -> %s changed the instant", tt.value, got, back)
			}
		})
	}
}
