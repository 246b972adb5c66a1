// Package forwarding reads the headers a reverse proxy adds when it
// passes a request on for a client: whether there are any, and the
// client's address for the log.
package forwarding

import (
	"net/http"
	"strings"

	"github.com/formbridge/formbridge/server/internal/ratelog"
)

// headers are those a proxy adds; any one of them means the request was
// passed on for someone else.
var headers = []string{"Forwarded", "X-Forwarded-For", "X-Real-Ip", "X-Forwarded-Host", "X-Forwarded-Proto", "Via"}

// Present reports whether a proxy passed r on for another client. Any
// line of those headers counts, even an empty one: a proxy that appends
// its own line (HAProxy's option forwardfor) passes on the client's
// before it, and Header.Get reads only the first.
func Present(r *http.Request) bool {
	for _, h := range headers {
		if len(r.Header.Values(h)) > 0 {
			return true
		}
	}
	return false
}

// Remote is r's peer address for a log line, followed by the client a
// proxy names ("127.0.0.1:50312 for 203.0.113.7"): behind a proxy every
// peer is the proxy. The client named is the one the nearest proxy
// added (the last entry of X-Forwarded-For or Forwarded); anyone can
// send these headers, so it is an aid for reading the log, never a check,
// and the peer address stays first.
func Remote(r *http.Request) string {
	client := ""
	if v := r.Header.Values("X-Forwarded-For"); len(v) > 0 {
		client = lastEntry(v[len(v)-1])
	} else if v := r.Header.Values("Forwarded"); len(v) > 0 {
		for _, pair := range strings.Split(lastEntry(v[len(v)-1]), ";") {
			if k, val, ok := strings.Cut(strings.TrimSpace(pair), "="); ok && strings.EqualFold(k, "for") {
				client = strings.Trim(val, `"`)
			}
		}
	} else {
		client = strings.TrimSpace(r.Header.Get("X-Real-Ip"))
	}
	if client == "" {
		return r.RemoteAddr
	}
	return r.RemoteAddr + " for " + ratelog.Clip(client, 64)
}

// lastEntry is the last of a header line's comma-separated entries.
func lastEntry(line string) string {
	if i := strings.LastIndexByte(line, ','); i >= 0 {
		line = line[i+1:]
	}
	return strings.TrimSpace(line)
}
