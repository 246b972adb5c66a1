package demo

import (
	"context"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// customers are the matches the chooser offers: the const is the record's
// id (what is sent back), the title is what the person reads.
var customers = []struct{ id, title string }{
	{"cus_1042", "Jordan Lee, Leeds (customer since 2019, last order in May)"},
	{"cus_2210", "Jordan Lee, Bristol (customer since 2022, last order yesterday)"},
	{"cus_3307", "Jordan Lee, Cardiff (new customer, no orders yet)"},
}

// chooseCustomer asks which of several matching records is meant: a
// titled single select (oneOf with const and title).
func chooseCustomer(ctx context.Context, req *mcp.CallToolRequest) (string, error) {
	res, err := ask(ctx, req,
		"I found 3 customers named Jordan Lee. Which one should get the refund of £120.00 for order 8841?",
		`{
  "type": "object",
  "properties": {
    "customer": {
      "type": "string",
      "title": "Customer",
      "oneOf": [
        {"const": "cus_1042", "title": "Jordan Lee, Leeds (customer since 2019, last order in May)"},
        {"const": "cus_2210", "title": "Jordan Lee, Bristol (customer since 2022, last order yesterday)"},
        {"const": "cus_3307", "title": "Jordan Lee, Cardiff (new customer, no orders yet)"}
      ]
    }
  },
  "required": ["customer"]
}`)
	if err != nil {
		return "", err
	}
	switch res.Action {
	case "accept":
		id, _ := res.Content["customer"].(string)
		for _, c := range customers {
			if c.id == id {
				return fmt.Sprintf("The refund of £120.00 will go to %s. (This is a demo: no money moved.)", c.title), nil
			}
		}
		return "", fmt.Errorf("the answer named a customer that was not offered (%q)", id)
	case "decline":
		return "You said none of them. No refund was made; the order stays open for someone to check.", nil
	default:
		return "The question was closed without a choice, so no refund was made.", nil
	}
}
