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

// TestURLLookalike: a link whose site name can pass for another, by
// letters of another alphabet ("аpple.com" with a Cyrillic "а") or by
// characters the browser reads as others (a full-width dot or letters),
// leads with the warning, names the site by the plain spelling of the
// very name Chromium opens, and never shows the imitation in bold or
// highlighted, as if it were the real site.
func TestURLLookalike(t *testing.T) {
	b := StartBridge(t, nil)
	ctx := NewBrowser(t)
	openWidget(t, ctx, b)
	for i, tc := range []struct{ url, shown, real, warnings string }{
		{"https://\u0430pple.com/login", "\u0430pple", "xn--pple-43d.com", "mixed_script,punycode"},
		{"https://accounts.google.com\uff0eevil.com/login", "com\uff0eevil", "accounts.google.com.evil.com", "disguised"},
		{"https://\uff45\uff58\uff41\uff4d\uff50\uff4c\uff45.com/", "\uff45\uff58", "example.com", "disguised"},
	} {
		t.Run(tc.real, func(t *testing.T) {
			out := b.Elicit(t, fmt.Sprintf(`{"mode":"url","message":"Sign in to continue","elicitationId":"el-%d","url":"%s"}`, i, tc.url), nil)
			id := waitForm(t, ctx)
			first := eval[string](t, ctx, `document.querySelector(".fb-url-body").firstElementChild.className`)
			if !strings.Contains(first, "fb-warning") {
				t.Errorf("the card starts with %q, want the warning", first)
			}
			if got := eval[string](t, ctx, `document.querySelector(".fb-site strong").textContent`); got != tc.real {
				t.Errorf("plain spelling shown: %q, want %q", got, tc.real)
			}
			if got := eval[string](t, ctx, `new URL(document.querySelector("[data-url]").dataset.url).hostname`); got != tc.real {
				t.Errorf("Chromium opens %q; the card names %q", got, tc.real)
			}
			// Every element whose own text holds the imitation, and its weight.
			bold := eval[[]string](t, ctx, `[...document.querySelectorAll(".fb-url-body *")]
				.filter((el) => [...el.childNodes].some((n) => n.nodeType === 3 && n.textContent.includes("`+tc.shown+`")))
				.filter((el) => parseInt(getComputedStyle(el).fontWeight) >= 600 || el.closest("strong, b, .fb-domain"))
				.map((el) => el.outerHTML)`)
			if len(bold) != 0 {
				t.Errorf("the imitation is shown in bold or highlighted: %q", bold)
			}
			codes := eval[[]string](t, ctx, `[...document.querySelectorAll("li[data-warning]")].map((li) => li.dataset.warning)`)
			if strings.Join(codes, ",") != tc.warnings {
				t.Errorf("warnings %q, want %s", codes, tc.warnings)
			}
			do(t, ctx, "decline", chromedp.Click(action("decline")))
			wantResult(t, await(t, ctx, out), `{"action":"decline"}`)
			// Gone before the next: its card must not be taken for the next one's.
			do(t, ctx, "the card leaves", chromedp.WaitNotPresent(chromedp.CSS(`form[data-elicitation-id=`+css(id)+`]`)))
		})
	}
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
