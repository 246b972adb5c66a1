package e2e

import (
	"os"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// TestDemoPanelInChatExample: the second link `formbridge demo` prints
// opens the chat example, whose assistant says its questions show up in
// the Approvals panel; EMBED.md says the demo buttons are inside the
// widget there. A person must find them, in view inside the frame, and
// be able to run a question to its end.
func TestDemoPanelInChatExample(t *testing.T) {
	link := startDemoCommand(t)
	chat := strings.Replace(link, "/#", "/examples/chat.html#", 1)
	ctx := NewBrowser(t)
	do(t, ctx, "desktop viewport", chromedp.EmulateViewport(1280, 900))
	do(t, ctx, "open the chat example", chromedp.Navigate(chat))
	const doc = `document.querySelector("#widget iframe")?.contentDocument`
	waitJS(t, ctx, "the widget to connect", doc+`?.querySelector("[data-connection=online]") != null`)
	waitJS(t, ctx, "the demo buttons in the Approvals panel", doc+`?.querySelectorAll(".fb-demo button[data-demo-tool]").length === 5`)
	// In reach: the frame grows to hold the widget and the panel together,
	// up to the height the chat page allows it (then it scrolls within).
	waitJS(t, ctx, "the frame to grow to the panel", `(() => {
		const f = document.querySelector("#widget iframe");
		const panel = f.contentDocument.querySelector(".fb-demo");
		const cap = parseFloat(getComputedStyle(f).maxHeight) || Infinity;
		return f.clientHeight >= Math.min(cap, Math.ceil(panel.getBoundingClientRect().bottom + f.contentWindow.scrollY)) - 1;
	})()`)
	if img, err := chromedp.Run(ctx, chromedp.CaptureScreenshot()); err == nil {
		os.WriteFile(outDir(t)+"/chat-demo-panel.png", img, 0o644)
	}
	eval[bool](t, ctx, `(`+doc+`.querySelector('button[data-demo-tool="delete_old_invoices"]').click(), true)`)
	waitJS(t, ctx, "the question", doc+`.querySelector("form[data-elicitation-id] button[data-action=decline]") != null`)
	eval[bool](t, ctx, `(`+doc+`.querySelector("form[data-elicitation-id] button[data-action=decline]").click(), true)`)
	waitJS(t, ctx, "what the assistant was told", `[...`+doc+`.querySelectorAll(".fb-demo-results li")].some(li => li.textContent.includes("You said no"))`)
}
