package demo

import (
	"context"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// confirmDelete asks before something permanent. The box starts unticked
// (default: false), so accepting an untouched form keeps the invoices.
func confirmDelete(ctx context.Context, req *mcp.CallToolRequest) (string, error) {
	res, err := ask(ctx, req,
		"Delete 40 old invoices from the archive?\n\n"+
			"They are from 2019, all paid, and past the 7 years we must keep them. Deleting cannot be undone.",
		`{
  "type": "object",
  "properties": {
    "confirm": {
      "type": "boolean",
      "title": "Yes, delete these 40 invoices permanently",
      "description": "Leave this unticked to keep them.",
      "default": false
    }
  },
  "required": ["confirm"]
}`)
	if err != nil {
		return "", err
	}
	switch res.Action {
	case "accept":
		if yes, _ := res.Content["confirm"].(bool); yes {
			return "You confirmed. The 40 invoices from 2019 were deleted. (This is a demo: nothing was really deleted.)", nil
		}
		return "You sent the form without ticking the box, so the 40 invoices were kept.", nil
	case "decline":
		return "You said no. The 40 invoices stay in the archive.", nil
	default:
		return "The question was closed without an answer, so nothing was deleted.", nil
	}
}
