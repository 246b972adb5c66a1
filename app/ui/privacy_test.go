package ui

import "testing"

// A field that seems to ask for a secret (a password, a card number) is
// a plain text box or text area, which every browser spell-checks by
// default: Chrome's "Enhanced spell check" and Edge's Microsoft Editor
// send what such a box holds to their makers' servers, and a phone's
// keyboard learns its words for suggestions. The widget already keeps
// such a field out of the tab's storage (TestFormDraftKeepsNoSecret);
// the box must also tell the browser and the keyboard to leave it alone.
// Other fields keep the browser's default: a note for a customer is
// better spell-checked.
func TestSensitiveFieldsNotSpellchecked(t *testing.T) {
	f, _, _ := mountForm(t, "Sign in", `{"type":"object","properties":{
 "password":{"type":"string","title":"Password"},
 "card":{"type":"string","title":"Card number","maxLength":19},
 "note":{"type":"string","title":"Note for the customer"}}}`)
	if len(f.Item.Sensitive) != 2 {
		t.Fatalf("sensitive fields %+v; want password and card", f.Item.Sensitive)
	}
	page := render(t, f)
	for _, c := range []struct{ key, control string }{{"password", "textarea"}, {"card", "input"}} {
		box := page.mustFind(t, "[data-field="+c.key+"]").mustFind(t, c.control)
		for attr, want := range map[string]string{"spellcheck": "false", "autocorrect": "off", "autocapitalize": "off"} {
			if got, ok := box.attrs[attr]; !ok || got != want {
				t.Errorf("%s's %s: %s=%q (present %v); want %q", c.key, c.control, attr, got, ok, want)
			}
		}
	}
	note := page.mustFind(t, "[data-field=note]").mustFind(t, "textarea")
	if _, ok := note.attrs["spellcheck"]; ok {
		t.Errorf("the note's box sets spellcheck=%q; want the browser's default", note.attrs["spellcheck"])
	}
}
