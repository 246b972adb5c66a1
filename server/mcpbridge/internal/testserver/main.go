// Command testserver is a small go-sdk MCP server on stdio for the
// mcpbridge tests: they build it and run it as a real subprocess.
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"log"
	"os"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// crashQuestion is what the crash tool asks before the process dies.
const crashQuestion = "Wait for me"

const tripSchema = `{"type":"object","properties":{` +
	`"zeta":{"type":"string","title":"Destination"},` +
	`"alpha":{"type":"integer","title":"Nights","minimum":1},` +
	`"mid":{"type":"boolean","title":"Window seat","default":false}},` +
	`"required":["zeta","alpha"]}`

func main() {
	srv := mcp.NewServer(&mcp.Implementation{Name: "subprocess-desk", Version: "0.9"}, nil)
	text := func(v any) (*mcp.CallToolResult, any, error) {
		b, err := json.Marshal(v)
		if err != nil {
			return nil, nil, err
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: string(b)}}}, nil, nil
	}
	type addIn struct {
		A int `json:"a"`
		B int `json:"b"`
	}
	mcp.AddTool(srv, &mcp.Tool{Name: "add"}, func(ctx context.Context, req *mcp.CallToolRequest, in addIn) (*mcp.CallToolResult, any, error) {
		return text(in.A + in.B)
	})
	// echo returns its arguments as it received them.
	srv.AddTool(&mcp.Tool{Name: "echo", InputSchema: json.RawMessage(`{"type":"object"}`)}, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: string(req.Params.Arguments)}}}, nil
	})
	mcp.AddTool(srv, &mcp.Tool{Name: "fail"}, func(ctx context.Context, req *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
		return nil, nil, errors.New("the printer is on fire")
	})
	// book asks with input requests; the go-sdk turns them into
	// elicitation/create for clients before 2026-07-28.
	mcp.AddTool(srv, &mcp.Tool{Name: "book"}, func(ctx context.Context, req *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
		resp, ok := req.Params.InputResponses["trip"]
		if !ok {
			return &mcp.CallToolResult{
				InputRequests: mcp.InputRequestMap{"trip": &mcp.ElicitParams{Message: "Book the trip?", RequestedSchema: json.RawMessage(tripSchema)}},
				RequestState:  "s-1",
			}, nil, nil
		}
		return text(resp)
	})
	// crash dies while its elicitation waits for a person: the process
	// exits right after writing it (crashAfterAsking).
	mcp.AddTool(srv, &mcp.Tool{Name: "crash"}, func(ctx context.Context, req *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
		res, err := req.Session.Elicit(ctx, &mcp.ElicitParams{Message: crashQuestion, RequestedSchema: json.RawMessage(tripSchema)})
		if err != nil {
			return nil, nil, err
		}
		return text(res)
	})
	if err := srv.Run(context.Background(), crashAfterAsking{&mcp.StdioTransport{}}); err != nil {
		log.Print(err)
	}
}

// crashAfterAsking exits the process as soon as the crash tool's question
// is written, so the question is out and waiting when the server dies,
// however slow the machine.
type crashAfterAsking struct{ mcp.Transport }

func (t crashAfterAsking) Connect(ctx context.Context) (mcp.Connection, error) {
	c, err := t.Transport.Connect(ctx)
	return crashConn{c}, err
}

type crashConn struct{ mcp.Connection }

func (c crashConn) Write(ctx context.Context, msg jsonrpc.Message) error {
	err := c.Connection.Write(ctx, msg)
	if req, ok := msg.(*jsonrpc.Request); ok && req.Method == "elicitation/create" && bytes.Contains(req.Params, []byte(crashQuestion)) {
		os.Exit(3)
	}
	return err
}
