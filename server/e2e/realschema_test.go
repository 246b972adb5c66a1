package e2e

import (
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// everythingServerForm is what the reference "everything" server sends
// (modelcontextprotocol/servers, src/everything/tools/trigger-elicitation-request.ts).
const everythingServerForm = `{"message":"Please provide inputs for the following fields:","requestedSchema":{"type":"object","properties":{
"name":{"title":"String","type":"string","description":"Your full, legal name"},
"check":{"title":"Boolean","type":"boolean","description":"Agree to the terms and conditions"},
"firstLine":{"title":"String with default","type":"string","description":"Favorite first line of a story","default":"It was a dark and stormy night."},
"email":{"title":"String with email format","type":"string","format":"email","description":"Your email address (will be verified, and never shared with anyone else)"},
"homepage":{"type":"string","format":"uri","title":"String with uri format","description":"Portfolio / personal website"},
"birthdate":{"title":"String with date format","type":"string","format":"date","description":"Your date of birth"},
"integer":{"title":"Integer","type":"integer","description":"Your favorite integer (do not give us your phone number, pin, or other sensitive info)","minimum":1,"maximum":100,"default":42},
"number":{"title":"Number in range 1-1000","type":"number","description":"Favorite number (there are no wrong answers)","minimum":0,"maximum":1000,"default":3.14},
"untitledSingleSelectEnum":{"type":"string","title":"Untitled Single Select Enum","description":"Choose your favorite friend","enum":["Monica","Rachel","Joey","Chandler","Ross","Phoebe"],"default":"Monica"},
"untitledMultipleSelectEnum":{"type":"array","title":"Untitled Multiple Select Enum","description":"Choose your favorite instruments","minItems":1,"maxItems":3,"items":{"type":"string","enum":["Guitar","Piano","Violin","Drums","Bass"]},"default":["Guitar"]},
"titledSingleSelectEnum":{"type":"string","title":"Titled Single Select Enum","description":"Choose your favorite hero","oneOf":[{"const":"hero-1","title":"Superman"},{"const":"hero-2","title":"Green Lantern"},{"const":"hero-3","title":"Wonder Woman"}],"default":"hero-1"},
"titledMultipleSelectEnum":{"type":"array","title":"Titled Multiple Select Enum","description":"Choose your favorite types of fish","minItems":1,"maxItems":3,"items":{"anyOf":[{"const":"fish-1","title":"Tuna"},{"const":"fish-2","title":"Salmon"},{"const":"fish-3","title":"Trout"}]},"default":["fish-1"]},
"legacyTitledEnum":{"type":"string","title":"Legacy Titled Single Select Enum","description":"Choose your favorite type of pet","enum":["pet-1","pet-2","pet-3","pet-4","pet-5"],"enumNames":["Cats","Dogs","Birds","Fish","Reptiles"],"default":"pet-1"}},
"required":["name"]}}`

// TestEverythingServerForm: the reference server's form shows every
// default, answers with them, and warns of no secret: its only mention
// of a PIN tells the person not to give one.
func TestEverythingServerForm(t *testing.T) {
	b := StartBridge(t, nil)
	ctx := NewBrowser(t)
	openWidget(t, ctx, b)
	out := b.Elicit(t, everythingServerForm, nil)
	waitForm(t, ctx)
	text := eval[string](t, ctx, `document.querySelector("form[data-elicitation-id]").innerText`)
	if strings.Contains(text, "seems to ask for") {
		i := strings.Index(text, "Be careful")
		t.Errorf("the approver is warned of a secret the form does not ask for:\n%s", text[max(i, 0):min(len(text), max(i, 0)+240)])
	}
	do(t, ctx, "answer", chromedp.SendKeys(field("name", "textarea, input"), "Ada"), chromedp.Click(action("accept")))
	wantResult(t, await(t, ctx, out), `{"action":"accept","content":{"name":"Ada","firstLine":"It was a dark and stormy night.",
		"integer":42,"number":3.14,"untitledSingleSelectEnum":"Monica","untitledMultipleSelectEnum":["Guitar"],
		"titledSingleSelectEnum":"hero-1","titledMultipleSelectEnum":["fish-1"],"legacyTitledEnum":"pet-1"}}`)
}
