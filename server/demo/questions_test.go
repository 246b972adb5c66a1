package demo

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/formbridge/formbridge/app/elicit"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Every demo question passes the bridge's own checks, so the demo never
// fails at the bridge, and only the password form looks like it asks for
// a secret (the widget warns on that one alone).
func TestQuestionsPassTheBridge(t *testing.T) {
	s := New(&Options{BaseURL: "http://127.0.0.1:8080"})
	for _, info := range s.Tools() {
		t.Run(info.Name, func(t *testing.T) {
			var params []byte
			opts := answering(func(req *mcp.ElicitRequest) *mcp.ElicitResult {
				params, _ = json.Marshal(req.Params)
				return &mcp.ElicitResult{Action: "decline"}
			})
			opts.Capabilities = &mcp.ClientCapabilities{Elicitation: &mcp.ElicitationCapabilities{
				Form: &mcp.FormElicitationCapabilities{}, URL: &mcp.URLElicitationCapabilities{},
			}}
			cs := connect(t, s, "2025-11-25", opts)
			if _, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: info.Name}); err != nil {
				t.Fatal(err)
			}
			req, err := elicit.ParseRequest(params)
			if err != nil {
				t.Fatalf("the bridge would refuse %s: %v", params, err)
			}
			if req.Form == nil {
				return // URL mode
			}
			flagged := len(req.Form.Sensitive()) > 0
			if want := info.Name == "payroll_sign_in"; flagged != want {
				t.Errorf("sensitive fields flagged: %v, want %v (%+v)", flagged, want, req.Form.Sensitive())
			}
		})
	}
}

// The travel answers the tests give are answers the bridge would let
// through.
func TestTravelAnswersAreValid(t *testing.T) {
	f, err := elicit.Parse([]byte(travelSchema))
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range []map[string]any{travelAnswer, travelMinimal} {
		b, _ := json.Marshal(a) // as the bridge gets it: numbers as float64
		var content map[string]any
		_ = json.Unmarshal(b, &content)
		if errs := f.Validate(content); len(errs) > 0 {
			t.Errorf("%v: %v", a, errs)
		}
	}
}
