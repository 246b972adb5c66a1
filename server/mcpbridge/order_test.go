package mcpbridge

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/formbridge/formbridge/app/elicit"
)

// TestSchemaOrderKeptForPrettyPrintedSchema: an MCP server sends its
// schema pretty-printed (indented, as many Python and TypeScript servers
// do). Its text is larger than elicit.MaxSchemaBytes, but what the bridge
// measures is the text paramsJSON sends, which encoding/json compacts: the
// bridge takes it. Its fields must still show in the server's order, not
// alphabetically.
func TestSchemaOrderKeptForPrettyPrintedSchema(t *testing.T) {
	// 100 fields, each a choice of 20, near the bridge's size limit;
	// z_00 first, a_25 later: the server's order is not alphabetical.
	var b strings.Builder
	b.WriteString(`{"type":"object","properties":{`)
	for j := range elicit.MaxProperties {
		if j > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `%q:{"type":"string","title":"Question %d","description":%q,"enum":[`, fmt.Sprintf("%c_%02d", 'z'-j%26, j), j, strings.Repeat("x", 2200))
		for k := range 20 {
			if k > 0 {
				b.WriteByte(',')
			}
			fmt.Fprintf(&b, `"option %d"`, k)
		}
		b.WriteString(`]}`)
	}
	b.WriteString(`}}`)
	var pretty bytes.Buffer
	json.Indent(&pretty, []byte(b.String()), "", "    ") // as the server sent it
	b.Reset()
	b.Write(pretty.Bytes())
	raw := json.RawMessage(b.String())
	var compact bytes.Buffer
	json.Compact(&compact, raw)
	if len(raw) <= elicit.MaxSchemaBytes || compact.Len() > elicit.MaxSchemaBytes {
		t.Fatalf("setup: %d bytes as sent, %d compact; want over and under %d", len(raw), compact.Len(), elicit.MaxSchemaBytes)
	}
	noteParams(json.RawMessage(`{"message":"Fill in","requestedSchema":` + string(raw) + `}`))

	var v any
	json.Unmarshal(raw, &v)
	params, err := paramsJSON(&mcp.ElicitParams{Message: "Fill in", RequestedSchema: v}, "form")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := elicit.ParseRequest(params); err != nil {
		t.Fatalf("the bridge refuses what the host sends: %v", err)
	}
	first, last := bytes.Index(params, []byte(`"z_00"`)), bytes.Index(params, []byte(`"a_25"`))
	if first < 0 || last < 0 || first > last {
		t.Errorf("the fields reach the bridge out of the server's order (z_00 at %d, a_25 at %d)", first, last)
	}
}

// TestSchemaMemoryRefreshesOnRepeat: a server asks the same form again
// (the same schema text). What it just sent must be the newest in the
// memory: the oldest goes first when the bound is reached, and a form
// asked moments ago must not be the one to go, while schemas remembered
// after its first time stay.
func TestSchemaMemoryRefreshesOnRepeat(t *testing.T) {
	m := &schemaMemory{byKey: map[[sha256.Size]byte]json.RawMessage{}}
	big := func(i int) json.RawMessage {
		return json.RawMessage(fmt.Sprintf(`{"type":"object","description":%q,"properties":{"b%d":{"type":"string"},"a":{"type":"string"}}}`, strings.Repeat("x", 250<<10), i))
	}
	again := json.RawMessage(`{"type":"object","properties":{"zip":{"type":"string"},"city":{"type":"string"}}}`)
	m.remember(again)
	for i := range 8 {
		m.remember(big(i))
	}
	m.remember(again)  // asked again: its handler looks it up moments from now
	m.remember(big(8)) // another session's large form arrives meanwhile
	var v any
	json.Unmarshal(again, &v)
	if _, ok := m.recall(v); !ok {
		t.Error("the schema remembered last but one was dropped before older ones: its fields lose their order")
	}
}
