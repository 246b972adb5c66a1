package site

import (
	"fmt"
	"net/http"
	"strings"
)

// securityHeaders are set on every response of the site.
type securityHeaders struct {
	csp string
}

// newSecurityHeaders builds the policy. The widget needs:
//   - script-src 'wasm-unsafe-eval' to compile app.wasm (no eval otherwise),
//     and the hashes of the page's own inline scripts (widgetScripts);
//   - style-src-attr 'unsafe-inline' because go-app writes style
//     attributes with setAttribute; style elements stay 'self' only;
//   - connect-src 'self' for the WebSocket to its own bridge;
//   - img-src data: for small images a stylesheet may inline;
//   - frame-ancestors: the hosts allowed to embed the widget in an iframe.
func newSecurityHeaders(allowedOrigins, scriptHashes []string) (*securityHeaders, error) {
	ancestors := []string{"'self'"}
	for _, o := range allowedOrigins {
		o = strings.TrimSpace(o)
		if o == "" {
			continue
		}
		if strings.ContainsAny(o, " ;,'\"\t\r\n") {
			return nil, fmt.Errorf("allowed origin %q cannot be used in a Content-Security-Policy", o)
		}
		ancestors = append(ancestors, o)
	}
	csp := strings.Join([]string{
		"default-src 'self'",
		scriptSrc(scriptHashes),
		"style-src 'self'",
		"style-src-attr 'unsafe-inline'",
		"img-src 'self' data:",
		"connect-src 'self'",
		"object-src 'none'",
		"base-uri 'none'",
		"form-action 'none'",
		"frame-ancestors " + strings.Join(ancestors, " "),
	}, "; ")
	return &securityHeaders{csp: csp}, nil
}

func (s *securityHeaders) set(h http.Header) {
	h.Set("Content-Security-Policy", s.csp)
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Referrer-Policy", "no-referrer")
}
