package demo_test

import (
	"context"
	"fmt"
	"log"

	"github.com/formbridge/formbridge/server/demo"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Connect the demo server to a go-sdk client and answer its first
// question. formbridge demo does the same, with the answer coming from a
// person through the bridge instead of from code.
func Example() {
	ctx := context.Background()
	ct, st := mcp.NewInMemoryTransports()
	if _, err := demo.New(nil).MCP().Connect(ctx, st, nil); err != nil {
		log.Fatal(err)
	}
	client := mcp.NewClient(&mcp.Implementation{Name: "example-host"}, &mcp.ClientOptions{
		ElicitationHandler: func(ctx context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			return &mcp.ElicitResult{Action: "decline"}, nil
		},
	})
	cs, err := client.Connect(ctx, ct, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	if err != nil {
		log.Fatal(err)
	}
	defer cs.Close()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "delete_old_invoices"})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(res.Content[0].(*mcp.TextContent).Text)
	// Output: You said no. The 40 invoices stay in the archive.
}
