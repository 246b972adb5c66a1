package main

import (
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"time"

	"golang.org/x/net/idna"
)

// bridgeFlags are the options every command that runs a bridge takes.
type bridgeFlags struct {
	addr, token, apiKey, origins, logFormat, webDir, publicURL *string
	timeout                                                    *time.Duration
}

func addBridgeFlags(fs *flagSet) *bridgeFlags {
	return &bridgeFlags{
		addr:  fs.String("addr", "FORMBRIDGE_ADDR", "127.0.0.1:8080", "the `host:port` to listen on; 0.0.0.0:8080 (with --public-url) to accept other machines"),
		token: fs.String("token", "FORMBRIDGE_TOKEN", "", "the `secret` in the widget link (channel \"default\"); a new random one at each start if empty"),
		apiKey: fs.String("api-key", "FORMBRIDGE_API_KEY", "",
			"the `key` programs must send to use the HTTP API (/api/v1/); the API is off without one"),
		origins: fs.String("allowed-origins", "FORMBRIDGE_ALLOWED_ORIGINS", "",
			"comma-separated `origins` of web pages that may embed the widget, e.g. https://chat.example.com"),
		timeout: fs.Duration("timeout", "FORMBRIDGE_TIMEOUT", 10*time.Minute,
			"how long a question waits for an answer before it is cancelled"),
		logFormat: fs.String("log-format", "FORMBRIDGE_LOG_FORMAT", "text", "how log lines look: `text` or json"),
		webDir:    fs.String("web-dir", "FORMBRIDGE_WEB_DIR", "", "serve the widget's files from this `folder` instead of the built-in ones"),
		publicURL: fs.String("public-url", "FORMBRIDGE_PUBLIC_URL", "",
			"the `URL` people use to reach this bridge, when it differs from --addr (behind a proxy)"),
	}
}

// splitList reads a comma-separated flag, ignoring blanks.
func splitList(s string) []string {
	var out []string
	for _, part := range strings.Split(s, ",") {
		if part = strings.TrimSpace(part); part != "" {
			out = append(out, part)
		}
	}
	return out
}

// checkOrigins reads --allowed-origins: each an origin, scheme and host
// (https://chat.example.com, http://127.0.0.1:3000, https://*.example.com),
// as both the page's frame-ancestors and the WebSocket's Origin check
// read it. A trailing "/", as an address bar shows it, is dropped: kept,
// it let the page be framed while every connection from it got 403.
// Anything else is refused with the reason, never taken as written.
func checkOrigins(s string) ([]string, error) {
	var out []string
	for _, o := range splitList(s) {
		if o == "*" {
			return nil, &usageError{`--allowed-origins "*" would let every web site frame the widget and connect to the bridge; list the origins, e.g. https://chat.example.com`}
		}
		u, err := url.Parse(strings.TrimSuffix(o, "/"))
		switch {
		case err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Hostname() == "" ||
			u.Path != "" || u.RawQuery != "" || u.Fragment != "" || u.User != nil || u.Opaque != "" ||
			strings.ContainsAny(o, " ;'\"\t\r\n"):
			return nil, &usageError{fmt.Sprintf("--allowed-origins takes origins such as https://chat.example.com (a scheme and a host, with a port if it has one, nothing after), not %q", o)}
		case strings.Contains(u.Host, "["):
			// The WebSocket check reads "[" as the start of a pattern.
			return nil, &usageError{fmt.Sprintf("--allowed-origins: %q: an IPv6 address cannot be allowed; use a host name (localhost) or an IPv4 address", o)}
		case strings.Contains(strings.TrimPrefix(u.Hostname(), "*."), "*"):
			return nil, &usageError{fmt.Sprintf("--allowed-origins: %q: a wildcard may only stand for a subdomain, as in https://*.example.com", o)}
		}
		// As browsers write an Origin: the host in ASCII (bücher.example
		// as xn--bcher-kva.example), no default port.
		wild, name := "", u.Hostname()
		if rest, ok := strings.CutPrefix(name, "*."); ok {
			wild, name = "*.", rest
		}
		host, err := idna.Lookup.ToASCII(name)
		if err != nil {
			return nil, &usageError{fmt.Sprintf("--allowed-origins: %q: %v", o, err)}
		}
		host = wild + host
		if p := u.Port(); p != "" {
			n, err := strconv.Atoi(p)
			if err != nil || n < 1 || n > 65535 {
				return nil, &usageError{fmt.Sprintf("--allowed-origins: %q: the port must be a number from 1 to 65535", o)}
			}
			if !(u.Scheme == "https" && n == 443 || u.Scheme == "http" && n == 80) {
				host += ":" + strconv.Itoa(n)
			}
		}
		out = append(out, u.Scheme+"://"+host)
	}
	return out, nil
}

// checkPublicURL accepts an http(s) URL with a host and no fragment.
func checkPublicURL(s string) (string, error) {
	u, err := url.Parse(s)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.Fragment != "" || u.RawQuery != "" {
		return "", &usageError{fmt.Sprintf("--public-url must be an http:// or https:// address such as https://approvals.example.com, not %q", s)}
	}
	if strings.Trim(u.EscapedPath(), "/") != "" { // escaped: "/%2F" is a path too
		// The page loads its files from /v/… and its WebSocket from /ws
		// on the host: under a path behind a proxy, the link opens a page
		// that cannot load.
		return "", &usageError{fmt.Sprintf("--public-url %q has a path: the bridge must be served at the root of its address (give it a host name of its own, such as https://approvals.example.com)", s)}
	}
	return strings.TrimRight(u.String(), "/"), nil
}
