package elicit

import "strings"

// This file spots forms that look like they ask for secrets. The spec
// forbids servers to ask for passwords, API keys, tokens or payment
// credentials in form mode, and asks clients to push back; the widget
// warns the person with what is found here. A false alarm teaches
// people to ignore the warning, so matching is by whole words and
// phrases: "secretary", "pinned", "spin", "max tokens" and "token count"
// are not secrets.

// Sensitivity flags a field that looks like it asks for a secret.
type Sensitivity struct {
	Field  string `json:"field"`
	What   string `json:"what"`   // "password", "API key", "card number", ...
	Reason string `json:"reason"` // plain words: why it was flagged
}

// secretPhrases maps what is asked for to the word sequences that name
// it, lower case, each matched as whole words.
var secretPhrases = []struct {
	what    string
	phrases []string
}{
	{"password", []string{"password", "passwords", "passwd", "pwd", "passcode",
		// The same in other languages a server may be localized to.
		"passwort", "kennwort", "contraseña", "contrasena", "mot de passe", "mdp", "senha",
		"wachtwoord", "lösenord", "losenord", "adgangskode", "salasana", "hasło", "haslo", "heslo",
		"şifre", "sifre", "пароль", "κωδικός"}},
	{"passphrase", []string{"passphrase", "pass phrase"}},
	// A sign-in code asked for by a form is how accounts are taken over.
	{"one-time code", []string{"otp", "one time code", "one time passcode", "2fa code", "2 fa code", "mfa code",
		"verification code", "authentication code", "auth code", "sign in code", "login code"}},
	{"PIN", []string{"pin", "pin code", "pincode"}},
	{"API key", []string{"api key", "apikey", "api secret", "access key", "secret key"}},
	{"access token", []string{"access token", "auth token", "api token", "bearer token", "refresh token",
		"session token", "oauth token", "id token", "accesstoken", "authtoken"}},
	{"private key", []string{"private key", "privkey", "ssh key", "signing key", "seed phrase", "recovery phrase", "mnemonic phrase",
		"seed words", "recovery words", "recovery seed", "wallet seed", "mnemonic"}},
	{"secret", []string{"secret", "secrets", "client secret"}},
	{"card number", []string{"card number", "credit card", "debit card", "card no", "cardnumber", "cc number", "ccnum"}},
	{"card security code", []string{"cvv", "cvc", "cvv2", "cvc2", "csc", "card security code", "card code"}},
	{"IBAN", []string{"iban"}},
	{"social security number", []string{"ssn", "social security"}},
}

// secretFragments name a password in scripts written without spaces
// between words, so they are matched anywhere in the text.
var secretFragments = []string{"密码", "密碼", "口令", "パスワード", "暗証番号", "비밀번호"}

// notSecretTokens are words before "token" that make it a count or a
// page marker, not a credential ("max token", "next page token").
var notSecretTokens = []string{"max", "min", "input", "output", "page", "next", "continuation", "cursor", "sync", "design"}

// Sensitive lists the fields that look like they ask for secrets, in
// field order, one entry per field. Only fields a person types into
// (text and numbers) are looked at: a choice or a yes/no cannot carry a
// secret.
func (f *Form) Sensitive() []Sensitivity {
	if f == nil {
		return nil
	}
	var out []Sensitivity
	for i := range f.Fields {
		fd := &f.Fields[i]
		if fd.Kind != KindString && fd.Kind != KindNumber && fd.Kind != KindInteger {
			continue
		}
		for _, src := range [...]struct{ where, text string }{
			// What the person reads first: the hidden name only when
			// nothing shown names the secret.
			{"Its title", fd.Title}, {"Its description", fd.Description}, {"Its name behind the scenes", fd.Key},
		} {
			if what := secretIn(src.text); what != "" {
				out = append(out, Sensitivity{
					Field:  fd.Key,
					What:   what,
					Reason: src.where + " mentions " + WithArticle(what) + ".",
				})
				break
			}
		}
	}
	return out
}

// secretIn returns what secret text names, or "".
func secretIn(text string) string {
	// Invisible characters would split "Pass\u200bword" into two words
	// and hide it; the person reads one.
	text = strings.Map(func(r rune) rune {
		if hiddenRune(r) {
			return -1
		}
		return r
	}, text)
	for _, f := range secretFragments {
		if strings.Contains(text, f) {
			return "password"
		}
	}
	ws := unforbiddenWords(text)
	if len(ws) == 0 {
		return ""
	}
	padded := " " + strings.Join(ws, " ") + " "
	for _, s := range secretPhrases {
		for _, p := range s.phrases {
			if strings.Contains(padded, " "+p+" ") {
				return s.what
			}
		}
	}
	// "token" alone, or last after a name ("github token"), is a
	// credential; after a count word it is not.
	for i, w := range ws {
		if w != "token" || (i+1 < len(ws) && len(ws) > 1) {
			continue
		}
		if i > 0 && containsString(notSecretTokens, ws[i-1]) {
			continue
		}
		return "access token"
	}
	return ""
}

// handOverVerbs are the verbs of a prohibition that forbids giving
// something: "do not give us your phone number, pin, or other sensitive
// info" names a PIN only to forbid it.
var handOverVerbs = []string{"give", "enter", "type", "share", "include", "send", "provide", "put", "write", "paste", "use", "tell", "add", "post"}

// placeWords end what a prohibition forbids, and begin where or how.
var placeWords = []string{"in", "into", "inside", "within", "on", "when", "from", "for", "between", "around"}

// unforbiddenWords is text's words, lower case, without what a
// prohibition forbids: each sentence or bracket is cut at "do not",
// "don't" or "never" followed by a verb of handing over. The reference
// "everything" server's favourite-number field says "(do not give us
// your phone number, pin, or other sensitive info)", and a warning over
// it was a false alarm in the form every client is tried with. Only the
// prohibition's own sentence loses it: a title, a name or another
// sentence that names the secret is still found. A server set on
// dodging the warning could always word around it; this is for honest
// ones.
func unforbiddenWords(text string) []string {
	var out []string
	for _, part := range strings.FieldsFunc(text, func(r rune) bool { return strings.ContainsRune(".!?;()[]\n", r) }) {
		ws := words(part)
		for i, w := range ws {
			ws[i] = strings.ToLower(w)
		}
		for i := range ws {
			n := 0
			switch {
			case ws[i] == "never":
				n = 1
			case ws[i] == "do" && i+1 < len(ws) && ws[i+1] == "not", ws[i] == "don" && i+1 < len(ws) && ws[i+1] == "t":
				n = 2
			}
			if n > 0 && i+n < len(ws) && containsString(handOverVerbs, ws[i+n]) {
				// Only what is forbidden goes: "do not include spaces in
				// your PIN" forbids the spaces, and still asks for the PIN.
				j := i + n + 1
				for j < len(ws) && !containsString(placeWords, ws[j]) {
					j++
				}
				ws = append(ws[:i], ws[j:]...)
				break
			}
		}
		out = append(out, ws...)
	}
	return out
}

func containsString(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// WithArticle writes "a password", "an API key", "a one-time code": the
// article as the name is read aloud.
func WithArticle(what string) string {
	switch {
	case what == "":
		return "a secret"
	case strings.HasPrefix(what, "one"): // said "won"
	case strings.IndexByte("aeiouAEIOU", what[0]) >= 0:
		return "an " + what
	}
	return "a " + what
}
