package demo

import (
	"context"
	"encoding/json"
	"errors"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The demo asks its questions in whichever way the session's protocol
// allows. Before 2026-07-28 a server sends elicitation/create itself, in
// the middle of the tool call. From 2026-07-28 it may not: the tool call
// ends with the question as an input request, and the client calls the
// tool again with the answer (SEP-2322). The tools are written once, for
// both: ask returns the answer, or a needInput that ends the first call.

// answerKey names the one question a tool asks in its input requests.
const answerKey = "answer"

// needInput ends a tool call with a question for the client (2026-07-28).
// It travels up through the tool as an error and becomes its result.
type needInput struct{ result *mcp.CallToolResult }

func (*needInput) Error() string { return "the client must answer the question first" }

// classic reports whether ss predates 2026-07-28, where a server may send
// requests of its own. The go-sdk reads a session without initialize
// parameters as the newest protocol; so does this.
func classic(ss *mcp.ServerSession) bool {
	p := ss.InitializeParams()
	return p != nil && p.ProtocolVersion < "2026-07-28"
}

// getAnswer asks p and returns the person's answer. state is echoed back by
// the client with the answer at 2026-07-28 (the client can read it).
func getAnswer(ctx context.Context, req *mcp.CallToolRequest, p *mcp.ElicitParams, state string) (*mcp.ElicitResult, error) {
	if classic(req.Session) {
		res, err := req.Session.Elicit(ctx, p)
		if err != nil {
			return nil, explain(err)
		}
		return res, nil
	}
	if res, ok := req.Params.InputResponses[answerKey].(*mcp.ElicitResult); ok {
		return res, nil
	}
	return nil, &needInput{&mcp.CallToolResult{
		InputRequests: mcp.InputRequestMap{answerKey: p},
		RequestState:  state,
	}}
}

// ask asks a form-mode question. schema is JSON text, so the order of its
// properties is the order the person sees (a Go map would sort them).
func ask(ctx context.Context, req *mcp.CallToolRequest, message, schema string) (*mcp.ElicitResult, error) {
	return getAnswer(ctx, req, &mcp.ElicitParams{Mode: "form", Message: message, RequestedSchema: json.RawMessage(schema)}, "")
}

// Error codes the bridge answers an elicitation with when a channel is
// full (see app/wire).
const (
	codeTooManyPending = -32000
	codeRateLimited    = -32002
)

// explain turns a failed elicitation into words for the panel.
func explain(err error) error {
	var rpcErr *jsonrpc.Error
	if errors.As(err, &rpcErr) {
		switch rpcErr.Code {
		case codeTooManyPending:
			return errors.New("too many questions are already waiting: answer or skip some, then try again")
		case codeRateLimited:
			return errors.New("too many questions were asked in the last minute: wait a moment, then try again")
		}
	}
	switch {
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return errors.New("the question was withdrawn before anyone answered")
	case strings.Contains(err.Error(), "does not support"):
		return errors.New("the app connected to this demo cannot show this kind of question")
	}
	return errors.New("the question could not be asked: " + err.Error())
}
