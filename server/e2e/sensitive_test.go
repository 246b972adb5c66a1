package e2e

import (
	"strings"
	"testing"
)

// TestPasswordWarningNamesWhatIsShown: the demo's payroll form has a box
// labelled "Password"; the warning must point at that label, not at "its
// name behind the scenes", which the person never sees.
func TestPasswordWarningNamesWhatIsShown(t *testing.T) {
	b := StartBridge(t, nil)
	ctx := NewBrowser(t)
	openWidget(t, ctx, b)
	b.Elicit(t, `{"message":"Sign in","requestedSchema":{"type":"object","properties":{
		"password":{"type":"string","title":"Password"}}}}`, nil)
	waitForm(t, ctx)
	waitJS(t, ctx, "the warning", `document.body.innerText.includes("Be careful")`)
	if text := eval[string](t, ctx, `document.body.innerText`); strings.Contains(text, "behind the scenes") {
		t.Errorf("the warning names a hidden name while the label says Password:\n%s", text)
	}
}
