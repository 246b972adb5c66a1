package elicit

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestSensitive(t *testing.T) {
	t.Parallel()
	// Each case is one property; what is "" when it must not be flagged.
	var tests []struct{ name, prop, what string }
	add := func(name, key, prop, what string) {
		tests = append(tests, struct{ name, prop, what string }{name, `"` + key + `":` + prop, what})
	}
	str := func(title, desc string) string {
		b, _ := json.Marshal(map[string]string{"type": "string", "title": title, "description": desc})
		return string(b)
	}
	// Asked for: each must be flagged.
	add("password key", "password", `{"type":"string"}`, "password")
	add("camel key", "userPassword", `{"type":"string"}`, "password")
	add("password title", "p", str("Your password", ""), "password")
	add("passphrase", "p", str("Wallet passphrase", ""), "passphrase")
	add("pin title", "p", str("PIN", ""), "PIN")
	add("pin integer", "pin_code", `{"type":"integer"}`, "PIN")
	add("secret", "client_secret", `{"type":"string"}`, "secret")
	add("api key camel", "openAIApiKey", `{"type":"string"}`, "API key")
	add("api key upper", "APIKey", `{"type":"string"}`, "API key")
	add("apikey one word", "apikey", `{"type":"string"}`, "API key")
	add("access token", "x", str("Access token", ""), "access token")
	add("token alone", "token", `{"type":"string"}`, "access token")
	add("named token", "github_token", `{"type":"string"}`, "access token")
	add("private key", "x", str("", "Paste your SSH private key"), "private key")
	add("card number", "cardNumber", `{"type":"string"}`, "card number")
	add("credit card", "x", str("Credit card", ""), "card number")
	add("cvv", "cvv", `{"type":"integer"}`, "card security code")
	add("cvc2", "x", str("CVC2", ""), "card security code")
	add("iban", "iban", `{"type":"string"}`, "IBAN")
	add("ssn", "ssn", `{"type":"string"}`, "social security number")
	add("social security", "x", str("Social Security number", ""), "social security number")
	add("otp", "otp", `{"type":"string"}`, "one-time code")
	add("2fa", "x", str("2FA code", ""), "one-time code")
	add("verification code", "verificationCode", `{"type":"string"}`, "one-time code")
	add("split by a zero-width space", "p", str("Pass\u200bword", ""), "password")
	add("german", "passwort", `{"type":"string"}`, "password")
	add("spanish", "p", str("Contraseña", ""), "password")
	add("french", "p", str("Mot de passe", ""), "password")
	add("chinese", "p", str("请输入密码", ""), "password")
	add("recovery words", "x", str("", "The recovery seed words of your wallet"), "private key")
	// A prohibition names a secret only to forbid it, in its own sentence
	// or bracket; a title, a name or another sentence that asks still counts.
	add("asked beside a prohibition", "x", str("", "Your PIN (do not share it with anyone)"), "PIN")
	add("title asks, description forbids sharing", "x", str("PIN", "Never share your PIN"), "PIN")
	add("forgetting is not handing over", "x", str("", "Do not forget your password"), "password")
	add("asked after a prohibition", "x", str("", "Never give us your password. Type your password here"), "password")
	add("a rule on how to write it", "x", str("", "Do not include spaces or dashes in your card number"), "card number")
	add("don't, on how to write it", "x", str("", "Don't use spaces in your PIN"), "PIN")
	// Not asked for: none may be flagged.
	add("random seed", "seed", str("Random seed", "For a repeatable run"), "")
	add("ends in do", "x", str("What to do", "Ask Don"), "")
	add("ends in never", "x", str("Now or never", ""), "")
	add("or not is no prohibition", "x", str("", "Signed in or not, enter your PIN"), "PIN")
	add("italian word", "x", str("Una parola", ""), "")
	add("zip code", "zipCode", `{"type":"string"}`, "")
	add("promo code", "x", str("Promo code", "From your voucher"), "")
	add("country code", "countryCode", `{"type":"string"}`, "")
	add("token count", "token_count", `{"type":"integer"}`, "")
	add("max tokens", "maxTokens", `{"type":"integer"}`, "")
	add("max token", "x", str("Max token", ""), "")
	add("next page token", "nextPageToken", `{"type":"string"}`, "")
	add("secretary", "x", str("Secretary's name", ""), "")
	add("pinned", "pinned_note", `{"type":"string"}`, "")
	add("spin", "x", str("Spin speed", ""), "")
	add("spinner", "spinner", `{"type":"string"}`, "")
	add("passenger", "passenger", `{"type":"string"}`, "")
	add("keyboard", "keyboardLayout", `{"type":"string"}`, "")
	add("a choice cannot carry a secret", "password_strength", `{"type":"string","enum":["weak","strong"]}`, "")
	add("a yes or no cannot carry a secret", "remember_password", `{"type":"boolean"}`, "")
	add("plain name", "fullName", str("Full name", "As on your passport"), "")
	// The reference "everything" server's integer (modelcontextprotocol/servers,
	// src/everything/tools/trigger-elicitation-request.ts).
	add("forbidden in brackets", "integer", `{"type":"integer","title":"Integer","description":"Your favorite integer (do not give us your phone number, pin, or other sensitive info)"}`, "")
	add("notes that forbid secrets", "x", str("Notes", "Anything else? Do not include passwords or API keys"), "")
	add("don't", "x", str("Comment", "Don't paste your API key here"), "")
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			form := mustParse(t, `{"type":"object","properties":{`+tt.prop+`}}`)
			got := form.Sensitive()
			if tt.what == "" {
				if len(got) != 0 {
					t.Errorf("flagged %+v, want nothing", got)
				}
				return
			}
			if len(got) != 1 || got[0].What != tt.what || got[0].Field != form.Fields[0].Key {
				t.Fatalf("got %+v, want one %q", got, tt.what)
			}
			if !strings.Contains(got[0].Reason, tt.what) {
				t.Errorf("reason %q does not say what", got[0].Reason)
			}
		})
	}
}

func TestWithArticle(t *testing.T) {
	for what, want := range map[string]string{
		"password": "a password", "API key": "an API key", "one-time code": "a one-time code",
		"IBAN": "an IBAN", "access token": "an access token", "PIN": "a PIN", "": "a secret",
	} {
		if got := WithArticle(what); got != want {
			t.Errorf("WithArticle(%q) = %q; want %q", what, got, want)
		}
	}
}
