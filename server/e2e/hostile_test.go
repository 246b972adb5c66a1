package e2e

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

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
	"\u2067evil\u2069 <b onmouseover=\"window.__pwned='b'\">bold</b>",
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

// TestDirectionOverrides: a direction override ("Pay\u202eroll" shows as
// "Payllor") in text shown to the person refuses the request at once,
// saying why; in the requester's name the bridge takes it out, and the
// person reads the name as written.
func TestDirectionOverrides(t *testing.T) {
	b := StartBridge(t, nil)
	ctx := NewBrowser(t)
	openWidget(t, ctx, b)
	out := b.Elicit(t, `{"message":"Approve the transfer to account \u202eRU-0042\u202c?","requestedSchema":{"type":"object","properties":{}}}`, nil)
	select {
	case o := <-out:
		var werr *wire.Error
		if !errors.As(o.Err, &werr) || werr.Code != wire.CodeInvalidParams || !strings.Contains(fmt.Sprint(werr.Data), "U+202E") {
			t.Fatalf("Elicit = %+v, %v; want -32602 naming U+202E", o.Result, o.Err)
		}
	case <-time.After(resultTimeout):
		t.Fatal("the message was not refused")
	}

	requester := wire.Implementation{Name: "payroll", Title: "Pay\u202eroll\u202c Bot"}
	out = b.ElicitAs(t, requester, `{"message":"Run payroll?","requestedSchema":{"type":"object","properties":{}}}`, nil)
	waitForm(t, ctx)
	if text := eval[string](t, ctx, `document.querySelector("form[data-elicitation-id]").textContent`); !strings.Contains(text, "Payroll Bot") || strings.ContainsRune(text, 0x202e) {
		t.Errorf("the form reads %q; want the requester as Payroll Bot", text)
	}
	do(t, ctx, "decline", chromedp.Click(action("decline")))
	wantResult(t, await(t, ctx, out), `{"action":"decline"}`)
}
