package main

import (
	"fmt"
	"net/url"
	"strings"
	"time"
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

// checkPublicURL accepts an http(s) URL with a host and no fragment.
func checkPublicURL(s string) (string, error) {
	u, err := url.Parse(s)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.Fragment != "" || u.RawQuery != "" {
		return "", &usageError{fmt.Sprintf("--public-url must be an http:// or https:// address such as https://approvals.example.com, not %q", s)}
	}
	return strings.TrimRight(u.String(), "/"), nil
}
