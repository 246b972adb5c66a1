package demo

import (
	"context"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// payrollSignIn is a bad example on purpose: MCP forbids asking for
// passwords in a form, and formbridge should warn the person. The answer
// is never repeated or kept.
func payrollSignIn(ctx context.Context, req *mcp.CallToolRequest) (string, error) {
	res, err := ask(ctx, req,
		"To export this month's payslips I need to sign in to the payroll system as you.",
		`{
  "type": "object",
  "properties": {
    "username": {"type": "string", "title": "Payroll username", "maxLength": 64},
    "password": {"type": "string", "title": "Password", "maxLength": 64}
  },
  "required": ["username", "password"]
}`)
	if err != nil {
		return "", err
	}
	switch res.Action {
	case "accept":
		return "You sent a username and a password. A real assistant must never ask for a password in a form like this; " +
			"it should send you to the payroll system's own sign-in page instead. (This is a demo: what you typed was thrown away.)", nil
	case "decline":
		return "You refused to share your password. Good call: a form should never ask for it.", nil
	default:
		return "The question was closed, and nothing was shared.", nil
	}
}
