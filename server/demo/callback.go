package demo

import (
	"html/template"
	"net/http"
)

var callbackPage = template.Must(template.New("callback").Parse(`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{{.Heading}}</title>
<style>
body { font-family: system-ui, sans-serif; max-width: 32rem; margin: 4rem auto; padding: 0 1rem; line-height: 1.5; color: #1b1b1b; }
h1 { font-size: 1.5rem; }
.demo { display: inline-block; padding: .1rem .5rem; border-radius: .25rem; background: #fff3c4; font-size: .875rem; }
</style>
</head>
<body>
<p class="demo">Demo page</p>
<h1>{{.Heading}}</h1>
<p>{{.Text}}</p>
</body>
</html>
`))

// serveCallback is the page the account-connection link opens. A real
// provider would ask the person to sign in and allow access; the demo
// connects at once.
func (s *Server) serveCallback(w http.ResponseWriter, r *http.Request) {
	// GET only: visiting is what connects, and HEAD must not change anything.
	if r.Method != http.MethodGet {
		w.Header().Set("Allow", "GET")
		http.Error(w, "Only GET is allowed here.", http.StatusMethodNotAllowed)
		return
	}
	h := w.Header()
	h.Set("Content-Type", "text/html; charset=utf-8")
	h.Set("Cache-Control", "no-store")
	h.Set("Referrer-Policy", "no-referrer") // the link carries the secret
	h.Set("Content-Security-Policy", "default-src 'none'; style-src 'unsafe-inline'")
	data := struct{ Heading, Text string }{
		"Acme Calendar is connected",
		"You can close this tab and go back to the assistant.",
	}
	status := http.StatusOK
	if !s.connects.visit(r.URL.Query().Get("id")) {
		status = http.StatusNotFound
		data.Heading = "This link has expired"
		data.Text = "It was already finished or withdrawn. Go back to the assistant and ask again if you still need to connect."
	}
	w.WriteHeader(status)
	_ = callbackPage.Execute(w, data)
}
