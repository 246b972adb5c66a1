// Package demo is an MCP server whose tools ask a person questions
// (elicitation/create), written the way a real approver would meet them:
// a destructive action to confirm, a record to pick, a travel request, a
// form that wrongly asks for a password, and a link to open to connect an
// account. formbridge demo connects it to the bridge so each question
// shows up in the widget; tests use it as a peer that elicits every
// field kind. The tools work at every protocol version (see ask.go).
package demo

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Name is the demo server's MCP name; Title is what the person sees as
// the one asking.
const (
	Name  = "formbridge-demo"
	Title = "Acme Office Assistant (demo)"
)

// Options configure the demo server. The zero value works, except that
// the account-connection tool needs BaseURL.
type Options struct {
	// BaseURL is where people reach the bridge, e.g. "http://127.0.0.1:8080".
	// The account-connection tool links to BaseURL + CallbackPath.
	BaseURL string
	// Version is the assistant's version in its Implementation; "" = 1.0.
	// It is the fictional assistant's, not formbridge's: approvers see it.
	Version string
	Logger  *slog.Logger // nil = discard
}

// Server is the demo MCP server plus the callback page its
// account-connection tool links to.
type Server struct {
	mcp      *mcp.Server
	baseURL  string
	connects *connections
	log      *slog.Logger
}

// New builds the demo server with all its tools.
func New(opts *Options) *Server {
	if opts == nil {
		opts = &Options{}
	}
	ver := opts.Version
	if ver == "" {
		ver = "1.0"
	}
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	s := &Server{
		baseURL:  strings.TrimRight(opts.BaseURL, "/"),
		connects: newConnections(),
		log:      log,
	}
	s.mcp = mcp.NewServer(&mcp.Implementation{Name: Name, Title: Title, Version: ver}, &mcp.ServerOptions{
		Instructions: "A demo assistant for formbridge. Each tool asks the person one question and reports their answer.",
		Logger:       log,
	})
	for _, t := range s.tools() {
		h := t.run
		s.mcp.AddTool(&mcp.Tool{
			Name:        t.Name,
			Title:       t.Title,
			Description: t.Description,
			InputSchema: json.RawMessage(`{"type":"object","properties":{}}`),
		}, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			text, err := h(ctx, req)
			var ni *needInput
			if errors.As(err, &ni) {
				return ni.result, nil
			}
			if err != nil {
				s.log.Warn("demo tool failed", "tool", req.Params.Name, "err", err)
				return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: sentence(err.Error())}}}, nil
			}
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}}, nil
		})
	}
	return s
}

// MCP is the go-sdk server, to connect to a transport.
func (s *Server) MCP() *mcp.Server { return s.mcp }

// ToolInfo describes a demo tool for the panel.
type ToolInfo struct {
	Name        string `json:"name"`
	Title       string `json:"title"`
	Description string `json:"description"`
}

// tool is one demo tool: run asks its question (see ask) and returns, in
// plain words, what the person answered.
type tool struct {
	ToolInfo
	run func(ctx context.Context, req *mcp.CallToolRequest) (string, error)
}

// tools lists the demo tools in the order the panel shows them.
func (s *Server) tools() []tool {
	return []tool{
		{ToolInfo{"delete_old_invoices", "Confirm a deletion", "Asks before permanently deleting 40 old invoices."}, confirmDelete},
		{ToolInfo{"choose_customer", "Pick the right customer", "Three customers share a name: asks which one gets a refund."}, chooseCustomer},
		{ToolInfo{"request_travel", "Travel request", "A longer form: dates, a time, numbers, choices, an email address and a link."}, requestTravel},
		{ToolInfo{"payroll_sign_in", "A form that asks for a password", "Wrongly asks for a password, so you can see the warning."}, payrollSignIn},
		{ToolInfo{"connect_calendar", "Connect an account", "Asks you to open a link to connect a calendar, and finishes when you have."}, s.connectCalendar},
	}
}

// Tools lists the demo tools in the order the panel shows them.
func (s *Server) Tools() []ToolInfo {
	var infos []ToolInfo
	for _, t := range s.tools() {
		infos = append(infos, t.ToolInfo)
	}
	return infos
}

// sentence makes an error message read as a sentence for the person: Go
// errors start in lower case and end without a full stop.
func sentence(msg string) string {
	if msg == "" {
		return msg
	}
	msg = strings.ToUpper(msg[:1]) + msg[1:]
	if !strings.HasSuffix(msg, ".") {
		msg += "."
	}
	return msg
}
