package e2e

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/formbridge/formbridge/app/wire"
)

// Each string tries to run script if it were ever parsed as HTML or
// followed as a link; each sets window.__pwned if it runs.
var hostile = []string{
	`<img src=x onerror="window.__pwned='img'">`,
	`<script>window.__pwned='script'</script>`,
	`<svg onload="window.__pwned='svg'"></svg>`,
	`javascript:window.__pwned='link'`,
	"\u202eevil\u202c <b onmouseover=\"window.__pwned='b'\">bold</b>",
}

func TestHostileStringsRenderAsText(t *testing.T) {
	b := StartBridge(t, nil)
	ctx := NewBrowser(t)
	openWidget(t, ctx, b)

	schema := map[string]any{
		"type": "object",
		"properties": map[string]any{
			"a": map[string]any{"type": "string", "title": hostile[0], "description": hostile[1]},
			"b": map[string]any{"type": "string", "title": hostile[2], "oneOf": []map[string]string{
				{"const": "x", "title": hostile[3]}, {"const": "y", "title": hostile[4]},
			}},
			"c": map[string]any{"type": "array", "title": hostile[3], "items": map[string]any{"anyOf": []map[string]string{
				{"const": "p", "title": hostile[0]}, {"const": "q", "title": hostile[1]},
			}}},
		},
	}
	params, err := json.Marshal(map[string]any{"message": strings.Join(hostile, " "), "requestedSchema": schema})
	if err != nil {
		t.Fatal(err)
	}
	requester := wire.Implementation{Name: "evil", Title: hostile[1], Version: hostile[0]}
	out := b.ElicitAs(t, requester, string(params), nil)
	waitForm(t, ctx)
	// Hover everything, as a person's mouse would.
	eval[bool](t, ctx, `(() => { document.querySelectorAll("form *").forEach((el) => el.dispatchEvent(new MouseEvent("mouseover", {bubbles: true}))); return true; })()`)

	if pwned := eval[string](t, ctx, `String(window.__pwned)`); pwned != "undefined" {
		t.Fatalf("server text ran script: window.__pwned = %s", pwned)
	}
	for _, tag := range []string{"img", "script", "svg", "a", "b[onmouseover]"} {
		if n := eval[int](t, ctx, `document.querySelectorAll("main `+tag+`").length`); n != 0 {
			t.Errorf("the page has %d <%s> elements made from server text", n, tag)
		}
	}
	text := eval[string](t, ctx, `document.querySelector("main").textContent`)
	for _, s := range hostile {
		if !strings.Contains(text, s) {
			t.Errorf("the page does not show %q literally", s)
		}
	}
	do(t, ctx, "decline", chromedp.Click(action("decline")))
	wantResult(t, await(t, ctx, out), `{"action":"decline"}`)
}
