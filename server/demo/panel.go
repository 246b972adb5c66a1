package demo

import (
	"context"
	"encoding/json"
	"errors"
	"mime"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Paths of the panel's HTTP API (see docs/DEMO.md).
const (
	ToolsPath = "/demo/tools"
	RunPath   = "/demo/run"
)

// PanelOptions configure Handler.
type PanelOptions struct {
	// Client is an MCP client session connected to this server. Tools run
	// through it, so their questions take the real path to the person.
	Client *mcp.ClientSession
	// Authorize reports whether a token may use the panel: the token of
	// the channel the demo's questions go to.
	Authorize func(token string) bool
}

// Handler serves the demo panel's API and the account-connection page:
//
//	GET  /demo/tools     the tools, in panel order    (token required)
//	POST /demo/run       runs one, waits for its answer (token required)
//	GET  /demo/callback  the page the connection link opens
//
// The panel lives in the widget page, which knows the channel token; it
// sends it as "Authorization: Bearer <token>". Requests from another
// origin are refused so a foreign page cannot fire questions.
func (s *Server) Handler(opts *PanelOptions) http.Handler {
	p := &panel{s: s, opts: *opts}
	mux := http.NewServeMux()
	mux.HandleFunc(ToolsPath, p.guard(http.MethodGet, p.serveTools))
	mux.HandleFunc(RunPath, p.guard(http.MethodPost, p.serveRun))
	mux.HandleFunc(CallbackPath, s.serveCallback)
	return mux
}

type panel struct {
	s    *Server
	opts PanelOptions
}

// RunRequest is the body of POST /demo/run.
type RunRequest struct {
	Tool string `json:"tool"`
}

// RunResult is the answer of POST /demo/run: what the tool reported, in
// words for the person. IsError is true when the tool could not finish.
type RunResult struct {
	Tool    string `json:"tool"`
	Title   string `json:"title"`
	Text    string `json:"text"`
	IsError bool   `json:"isError"`
}

// guard checks method, origin and token before h runs.
func (p *panel) guard(method string, h http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "no-store")
		if r.Method != method {
			w.Header().Set("Allow", method)
			writeError(w, http.StatusMethodNotAllowed, "use "+method+" here")
			return
		}
		if !sameOrigin(r) {
			writeError(w, http.StatusForbidden, "the demo panel only answers pages served by this bridge")
			return
		}
		token, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
		if !ok || token == "" || p.opts.Authorize == nil || !p.opts.Authorize(token) {
			w.Header().Set("WWW-Authenticate", `Bearer realm="formbridge demo"`)
			writeError(w, http.StatusUnauthorized, "missing or wrong token: open the widget with the link formbridge printed")
			return
		}
		h(w, r)
	}
}

// sameOrigin refuses browsers' cross-site requests. Browsers send Origin
// on every POST and on cross-origin GETs, and Sec-Fetch-Site on all; a
// request with neither is not from a browser page, and still needs the
// token.
func sameOrigin(r *http.Request) bool {
	if site := r.Header.Get("Sec-Fetch-Site"); site != "" && site != "same-origin" && site != "none" {
		return false
	}
	origin := r.Header.Get("Origin")
	if origin == "" {
		return true
	}
	u, err := url.Parse(origin)
	return err == nil && u.Host != "" && strings.EqualFold(u.Host, r.Host)
}

func (p *panel) serveTools(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, http.StatusOK, struct {
		Tools []ToolInfo `json:"tools"`
	}{p.s.Tools()})
}

func (p *panel) serveRun(w http.ResponseWriter, r *http.Request) {
	if ct, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type")); ct != "application/json" {
		writeError(w, http.StatusUnsupportedMediaType, "send the body as application/json")
		return
	}
	var req RunRequest
	dec := json.NewDecoder(http.MaxBytesReader(w, r.Body, 4<<10))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&req); err != nil || req.Tool == "" {
		writeError(w, http.StatusBadRequest, `the body must be JSON like {"tool": "delete_old_invoices"}`)
		return
	}
	var info *ToolInfo
	for _, t := range p.s.Tools() {
		if t.Name == req.Tool {
			info = &t
			break
		}
	}
	if info == nil {
		writeError(w, http.StatusNotFound, "there is no demo tool named "+strconv.Quote(req.Tool))
		return
	}
	if p.opts.Client == nil {
		writeError(w, http.StatusServiceUnavailable, "the demo assistant is not connected")
		return
	}
	// r's context ends when the panel goes away: the call, and with it the
	// question on the widget, is then withdrawn.
	res, err := p.opts.Client.CallTool(r.Context(), &mcp.CallToolParams{Name: info.Name})
	if err != nil {
		if errors.Is(r.Context().Err(), context.Canceled) {
			return // nobody is listening any more
		}
		writeError(w, http.StatusBadGateway, "the demo server did not answer: "+err.Error())
		return
	}
	writeJSON(w, http.StatusOK, RunResult{Tool: info.Name, Title: info.Title, Text: resultText(res), IsError: res.IsError})
}

// resultText joins a tool result's text blocks.
func resultText(res *mcp.CallToolResult) string {
	var parts []string
	for _, c := range res.Content {
		if t, ok := c.(*mcp.TextContent); ok {
			parts = append(parts, t.Text)
		}
	}
	return strings.Join(parts, "\n")
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

func writeError(w http.ResponseWriter, status int, msg string) {
	writeJSON(w, status, struct {
		Error string `json:"error"`
	}{msg})
}
