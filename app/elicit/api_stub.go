package elicit

// This file pins the package's API so the other packages can build
// against it while it is written. Each function moves to its own file
// (parse.go, collect.go, validate.go, defaults.go, sensitive.go, url.go,
// request.go) and this file is deleted.

// URLWarning is a reason to look twice at a URL before opening it.
type URLWarning struct {
	Code    string `json:"code"` // "punycode", "mixed_script", "ip_address", "userinfo", "port", "http"
	Message string `json:"message"`
}

// URLInfo is a checked URL for URL mode.
type URLInfo struct {
	URL      string       `json:"url"`
	Scheme   string       `json:"scheme"`
	Host     string       `json:"host"`   // as typed (Unicode if it was punycode)
	Domain   string       `json:"domain"` // registrable part to highlight, e.g. "example.co.uk"
	Port     string       `json:"port,omitempty"`
	Warnings []URLWarning `json:"warnings,omitempty"`
}

// CheckURL checks a URL-mode link. Unsafe schemes are an error.
func CheckURL(raw string) (*URLInfo, error) { panic("unimplemented") }
