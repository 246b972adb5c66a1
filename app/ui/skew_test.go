package ui

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/formbridge/formbridge/app/wire"
)

// TestSkewUnknownKindKeepsRequester: a bridge newer than this widget (a
// static site or a tab left open while the bridge was upgraded) reads a
// schema into a field kind this widget does not know. The widget rightly
// cannot show the form, but it must still say who is asking (MCP: show
// clearly which server asks) and how long the request waits: the person
// decides on Decline or Skip from exactly that. One unknown field must
// not wipe the requester, createdAt and expiresAt with it.
func TestSkewUnknownKindKeepsRequester(t *testing.T) {
	params := formParams(t, "Attach the signed contract", shortSchema)
	params.Meta = map[string]json.RawMessage{wire.MetaKey: json.RawMessage(`{"requester":{"name":"legal-bot","title":"Contracts Desk"},` +
		`"createdAt":"2026-12-02T10:00:00Z","expiresAt":"2026-12-02T10:10:00Z",` +
		`"form":{"fields":[{"key":"name","kind":"string","label":"Name"},{"key":"contract","kind":"file","label":"Signed contract","accept":["application/pdf"]}]}}`)}

	meta, ok := params.RequestMeta()
	if !ok || meta.Requester.DisplayName() != "Contracts Desk" || meta.ExpiresAt.IsZero() || meta.CreatedAt.IsZero() {
		t.Errorf("RequestMeta() = %+v, %v: requester and lifetime lost with the reading", meta, ok)
	}
	if meta.Form != nil {
		t.Errorf("a form with a field of an unknown kind was kept: %+v", meta.Form)
	}

	w, d, _ := mountWidget(t)
	w.onRequest(d.Context(), "r1", params, meta)
	card := show(t, w, d).mustFind(t, "form[data-elicitation-id=r1]")
	text := card.textContent()
	if !strings.Contains(text, "cannot be shown") {
		t.Errorf("card says %q; want that it cannot be shown", text)
	}
	if !strings.Contains(text, "Contracts Desk") {
		t.Errorf("card says %q; want it to name who asks (Contracts Desk), not %q", text, "A connected app")
	}
	card.mustFind(t, "button[data-action=decline]")
	card.mustFind(t, "button[data-action=cancel]")
}
