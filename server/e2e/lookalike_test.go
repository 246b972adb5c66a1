package e2e

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/formbridge/formbridge/app/wire"
)

// TestURLLookalike: a link to "аpple.com" (a Cyrillic "а") leads with
// the warning, gives the name's plain spelling, and never shows the
// imitation in bold or highlighted, as if it were the real site.
func TestURLLookalike(t *testing.T) {
	b := StartBridge(t, nil)
	ctx := NewBrowser(t)
	openWidget(t, ctx, b)
	out := b.Elicit(t, `{"mode":"url","message":"Sign in to continue","elicitationId":"el-1","url":"https://\u0430pple.com/login"}`, nil)
	waitForm(t, ctx)

	first := eval[string](t, ctx, `document.querySelector(".fb-url-body").firstElementChild.className`)
	if !strings.Contains(first, "fb-warning") {
		t.Errorf("the card starts with %q, want the warning", first)
	}
	if got := eval[string](t, ctx, `document.querySelector(".fb-site strong").textContent`); got != "xn--pple-43d.com" {
		t.Errorf("plain spelling shown: %q", got)
	}
	// Every element whose own text holds the imitation, and its weight.
	bold := eval[[]string](t, ctx, `[...document.querySelectorAll(".fb-url-body *")]
		.filter((el) => [...el.childNodes].some((n) => n.nodeType === 3 && n.textContent.includes("\u0430pple")))
		.filter((el) => parseInt(getComputedStyle(el).fontWeight) >= 600 || el.closest("strong, b, .fb-domain"))
		.map((el) => el.outerHTML)`)
	if len(bold) != 0 {
		t.Errorf("the imitation is shown in bold or highlighted: %q", bold)
	}
	codes := eval[[]string](t, ctx, `[...document.querySelectorAll("li[data-warning]")].map((li) => li.dataset.warning)`)
	if strings.Join(codes, ",") != "mixed_script,punycode" {
		t.Errorf("warnings %q", codes)
	}
	do(t, ctx, "decline", chromedp.Click(action("decline")))
	wantResult(t, await(t, ctx, out), `{"action":"decline"}`)
}

// TestURLHiddenCharactersRefused: a link whose text a direction override
// reorders never reaches the person; the server hears why at once.
func TestURLHiddenCharactersRefused(t *testing.T) {
	b := StartBridge(t, nil)
	ctx := NewBrowser(t)
	openWidget(t, ctx, b)
	out := b.Elicit(t, `{"mode":"url","message":"Your invoice","elicitationId":"el-2","url":"https://example.com/invoice\u202efdp.exe"}`, nil)
	select {
	case o := <-out:
		var werr *wire.Error
		if !errors.As(o.Err, &werr) || werr.Code != wire.CodeInvalidParams || !strings.Contains(fmt.Sprint(werr.Message, werr.Data), "invisible characters") {
			t.Fatalf("Elicit = %+v, %v; want -32602 naming the invisible characters", o.Result, o.Err)
		}
	case <-time.After(resultTimeout):
		t.Fatal("the link was not refused")
	}
	time.Sleep(300 * time.Millisecond)
	if n := eval[int](t, ctx, `document.querySelectorAll("form[data-elicitation-id]").length`); n != 0 {
		t.Errorf("%d requests shown for a refused link", n)
	}
}
