package demo

import (
	"context"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// protocols are the two ways a server asks: 2025-11-25 sends
// elicitation/create during the call; 2026-07-28 returns input requests.
var protocols = []string{"2025-11-25", "2026-07-28"}

// answerFunc plays the person: it gets each question and returns the answer.
type answerFunc func(req *mcp.ElicitRequest) *mcp.ElicitResult

// connect runs s against a real go-sdk client over in-memory transports.
// protocol "" lets the client propose its newest version.
func connect(t *testing.T, s *Server, protocol string, opts *mcp.ClientOptions) *mcp.ClientSession {
	t.Helper()
	ctx := context.Background()
	ct, st := mcp.NewInMemoryTransports()
	ss, err := s.MCP().Connect(ctx, st, nil)
	if err != nil {
		t.Fatalf("server connect: %v", err)
	}
	t.Cleanup(func() { ss.Close() })
	c := mcp.NewClient(&mcp.Implementation{Name: "test-client", Version: "1"}, opts)
	cs, err := c.Connect(ctx, ct, &mcp.ClientSessionOptions{ProtocolVersion: protocol})
	if err != nil {
		t.Fatalf("client connect: %v", err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

func answering(answer answerFunc) *mcp.ClientOptions {
	return &mcp.ClientOptions{
		ElicitationHandler: func(ctx context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			return answer(req), nil
		},
	}
}

// call runs a tool and returns its text, failing the test on a tool error.
func call(t *testing.T, cs *mcp.ClientSession, name string) string {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name})
	if err != nil {
		t.Fatalf("CallTool(%s): %v", name, err)
	}
	text := resultText(res)
	if res.IsError {
		t.Fatalf("CallTool(%s) reported an error: %s", name, text)
	}
	return text
}

func accept(content map[string]any) answerFunc {
	return func(*mcp.ElicitRequest) *mcp.ElicitResult {
		return &mcp.ElicitResult{Action: "accept", Content: content}
	}
}

func action(a string) answerFunc {
	return func(*mcp.ElicitRequest) *mcp.ElicitResult { return &mcp.ElicitResult{Action: a} }
}

func assertContains(t *testing.T, text string, want ...string) {
	t.Helper()
	for _, w := range want {
		if !strings.Contains(text, w) {
			t.Errorf("result %q\ndoes not contain %q", text, w)
		}
	}
}

// Answers to the travel form: every field, and only the required ones.
var (
	travelAnswer = map[string]any{
		"destination": "Lisbon", "reason": "Conference",
		"departure": "2027-03-12", "return": "2027-03-14",
		"flight":     "2027-03-12T07:30:00+01:00",
		"travellers": 2, "budget": 950.5,
		"extras": []any{"hotel", "car"}, "email": "sam@example.com",
		"agenda": "https://example.com/agenda", "flexible": true,
	}
	travelMinimal = map[string]any{
		"destination": "Porto", "reason": "Customer visit", "departure": "2027-06-01", "return": "2027-06-01",
		"travellers": 1, "email": "ana@example.com",
	}
)

func TestToolsAnswer(t *testing.T) {
	tests := []struct {
		tool   string
		answer answerFunc
		want   []string
		never  []string
	}{
		{"delete_old_invoices", accept(map[string]any{"confirm": true}), []string{"You confirmed", "were deleted"}, nil},
		{"delete_old_invoices", accept(map[string]any{"confirm": false}), []string{"without ticking the box", "were kept"}, []string{"were deleted"}},
		{"delete_old_invoices", action("decline"), []string{"You said no", "stay in the archive"}, nil},
		{"delete_old_invoices", action("cancel"), []string{"closed without an answer", "nothing was deleted"}, nil},
		{"choose_customer", accept(map[string]any{"customer": "cus_2210"}), []string{"Jordan Lee, Bristol"}, []string{"Leeds", "Cardiff"}},
		{"choose_customer", action("decline"), []string{"none of them", "No refund"}, nil},
		{"choose_customer", action("cancel"), []string{"closed without a choice"}, nil},
		{"request_travel", accept(travelAnswer), []string{
			"Conference to Lisbon", "from Fri 12 March 2027 to Sun 14 March 2027", "(dates can move by a day)",
			"Preferred flight: Fri 12 March 2027 at 07:30 (UTC+01:00)", "2 travellers", "€950.50 per person",
			"a hotel and a rental car", "sam@example.com", "https://example.com/agenda",
		}, nil},
		{"request_travel", accept(map[string]any{
			"destination": "Oslo", "reason": "Training", "departure": "2027-05-02", "return": "2027-04-30",
			"travellers": 1, "email": "kim@example.com",
		}), []string{"before the departure date", "not sent"}, []string{"Travel request sent"}},
		{"request_travel", action("decline"), []string{"not to send"}, nil},
		{"payroll_sign_in", accept(map[string]any{"username": "sam", "password": "hunter2"}), []string{"must never ask for a password"}, []string{"hunter2"}},
		{"payroll_sign_in", action("decline"), []string{"refused"}, nil},
	}
	for _, protocol := range protocols {
		for _, tt := range tests {
			t.Run(protocol+"/"+tt.tool, func(t *testing.T) {
				cs := connect(t, New(nil), protocol, answering(tt.answer))
				text := call(t, cs, tt.tool)
				assertContains(t, text, tt.want...)
				for _, n := range tt.never {
					if strings.Contains(text, n) {
						t.Errorf("result %q contains %q", text, n)
					}
				}
			})
		}
	}
}

// The go-sdk applies schema defaults to accepted content, so an untouched
// travel form is filled with 1 traveller, €800 and a hotel.
func TestTravelDefaults(t *testing.T) {
	for _, protocol := range protocols {
		cs := connect(t, New(nil), protocol, answering(accept(travelMinimal)))
		text := call(t, cs, "request_travel")
		assertContains(t, text, "1 traveller,", "€800 per person", "Also booking a hotel.")
		if strings.Contains(text, "dates can move") {
			t.Errorf("%s: flexible defaults to false, but the result says the dates can move: %q", protocol, text)
		}
	}
}

// The questions reach the client as written: who asks, the message, and
// the schema's fields.
func TestQuestionShape(t *testing.T) {
	var got *mcp.ElicitRequest
	cs := connect(t, New(&Options{Version: "1.2.3"}), "2025-11-25", answering(func(req *mcp.ElicitRequest) *mcp.ElicitResult {
		got = req
		return &mcp.ElicitResult{Action: "decline"}
	}))
	call(t, cs, "choose_customer")
	if got == nil {
		t.Fatal("no question was asked")
	}
	if !strings.Contains(got.Params.Message, "Which one should get the refund") {
		t.Errorf("message = %q", got.Params.Message)
	}
	schema, _ := got.Params.RequestedSchema.(map[string]any)
	props, _ := schema["properties"].(map[string]any)
	customer, _ := props["customer"].(map[string]any)
	if oneOf, _ := customer["oneOf"].([]any); len(oneOf) != 3 {
		t.Errorf("customer.oneOf has %d options, want 3: %v", len(oneOf), customer)
	}
	init := cs.InitializeResult()
	if init.ServerInfo.Title != Title || init.ServerInfo.Version != "1.2.3" {
		t.Errorf("server info = %+v, want title %q version 1.2.3", init.ServerInfo, Title)
	}
}

// A client at the newest protocol (2026-07-28) gets each question as an
// input request and calls the tool again with the answer; the go-sdk
// client does that through the same handler.
func TestNewestProtocol(t *testing.T) {
	cs := connect(t, New(nil), "", answering(accept(map[string]any{"confirm": true})))
	if v := cs.InitializeResult().ProtocolVersion; v < "2026-07-28" {
		t.Errorf("negotiated protocol %q, want 2026-07-28 or later", v)
	}
	assertContains(t, call(t, cs, "delete_old_invoices"), "You confirmed")
}

func TestToolsListed(t *testing.T) {
	s := New(nil)
	cs := connect(t, s, "2025-11-25", answering(action("cancel")))
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	served := map[string]string{}
	for _, tool := range res.Tools {
		served[tool.Name] = tool.Title
	}
	infos := s.Tools()
	if len(infos) != 5 || len(served) != len(infos) {
		t.Fatalf("panel lists %d tools, server serves %d: %v", len(infos), len(served), served)
	}
	for _, info := range infos {
		if served[info.Name] != info.Title || info.Description == "" {
			t.Errorf("tool %s: served title %q, panel %+v", info.Name, served[info.Name], info)
		}
	}
}

// When the bridge refuses a question (a full channel), the tool says so
// in words instead of a JSON-RPC error.
func TestToolExplainsRefusal(t *testing.T) {
	for code, want := range map[int64]string{
		-32000: "Too many questions are already waiting: answer or skip some, then try again.",
		-32002: "Too many questions were asked in the last minute: wait a moment, then try again.",
	} {
		cs := connect(t, New(nil), "2025-11-25", &mcp.ClientOptions{
			ElicitationHandler: func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
				return nil, &jsonrpc.Error{Code: code, Message: "refused"}
			},
		})
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "choose_customer"})
		if err != nil {
			t.Fatal(err)
		}
		if !res.IsError || resultText(res) != want {
			t.Errorf("code %d: result %v %q, want an error saying %q", code, res.IsError, resultText(res), want)
		}
	}
}
