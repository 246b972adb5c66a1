package e2e

import (
	"bufio"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

var demoLink = regexp.MustCompile(`http://127\.0\.0\.1:\d+/#token=\S+`)

// startDemoCommand builds the formbridge command and runs `formbridge
// demo` on a free loopback port, as `make run` does, until the test
// ends. It returns the link the command prints for a person to open.
func startDemoCommand(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "formbridge")
	if out, err := exec.Command("go", "build", "-o", bin, "..").CombinedOutput(); err != nil {
		t.Fatalf("building formbridge: %v\n%s", err, out)
	}
	cmd := exec.Command(bin, "demo", "--addr", "127.0.0.1:0", "--web-dir", WebDir())
	r, w := io.Pipe()
	cmd.Stdout, cmd.Stderr = w, w
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan struct{})
	go func() {
		cmd.Wait()
		w.Close()
		close(exited)
	}()
	t.Cleanup(func() {
		cmd.Process.Signal(os.Interrupt)
		select {
		case <-exited:
		case <-time.After(10 * time.Second):
			cmd.Process.Kill()
			<-exited
		}
	})
	links := make(chan string, 1)
	go func() {
		s := bufio.NewScanner(r)
		for s.Scan() {
			if l := demoLink.FindString(s.Text()); l != "" && len(links) == 0 {
				links <- l
			}
		}
		io.Copy(io.Discard, r) // a line too long for the scanner must not block the command
	}()
	select {
	case l := <-links:
		return l
	case <-exited:
		t.Fatalf("formbridge demo stopped before printing its link")
	case <-time.After(stepTimeout):
		t.Fatalf("formbridge demo printed no link")
	}
	return ""
}

// TestDemoPanel: a person trying `formbridge demo` presses a demo button,
// answers the question that appears in the widget, and reads what the
// assistant was told. The panel (web/demo.js) is not part of the widget:
// it lives after the widget's root and comes back after a reload, when
// the link's token is only in the tab's storage.
func TestDemoPanel(t *testing.T) {
	link := startDemoCommand(t)
	ctx := NewBrowser(t)
	deleteButton := chromedp.CSS(`button[data-demo-tool="delete_old_invoices"]`)
	do(t, ctx, "open the demo page",
		chromedp.Navigate(link),
		chromedp.WaitVisible(chromedp.CSS(`[data-connection="online"]`)),
		chromedp.WaitVisible(deleteButton),
	)
	if got := eval[int](t, ctx, `document.querySelectorAll(".fb-demo button[data-demo-tool]").length`); got < 5 {
		t.Errorf("%d demo buttons, want one per demo question (5)", got)
	}
	if eval[bool](t, ctx, `!!document.querySelector(".fb-widget .fb-demo")`) {
		t.Error("the demo panel is inside the widget")
	}

	mouseClick(t, ctx, deleteButton)
	waitForm(t, ctx)
	waitJS(t, ctx, "the button counts the waiting question",
		`document.querySelector('button[data-demo-tool="delete_old_invoices"]').textContent.includes("(1 waiting)")`)
	do(t, ctx, "tick the box", chromedp.Click(field("confirm", "input")))
	mouseClick(t, ctx, action("accept"))
	waitJS(t, ctx, "the result is shown",
		`[...document.querySelectorAll(".fb-demo-results li")].some(li => li.textContent.includes("The 40 invoices from 2019 were deleted"))`)
	if eval[bool](t, ctx, `document.querySelector('button[data-demo-tool="delete_old_invoices"]').textContent.includes("waiting")`) {
		t.Error("the button still counts an answered question")
	}
	if img, err := chromedp.Run(ctx, chromedp.FullScreenshot(100)); err == nil {
		os.WriteFile(filepath.Join(outDir(t), "demo-panel.png"), img, 0o644) // for people to look at
	}

	do(t, ctx, "reload the page (the fragment is gone from the address bar)",
		chromedp.Reload(),
		chromedp.WaitVisible(chromedp.CSS(`[data-connection="online"]`)),
		chromedp.WaitVisible(deleteButton),
	)
	if strings.Contains(eval[string](t, ctx, `location.href`), "token=") {
		t.Error("the token stays in the address bar")
	}
	mouseClick(t, ctx, chromedp.CSS(`button[data-demo-tool="delete_old_invoices"]`))
	waitForm(t, ctx)
	mouseClick(t, ctx, action("decline"))
	waitJS(t, ctx, "the decline is reported",
		`[...document.querySelectorAll(".fb-demo-results li")].some(li => li.textContent.includes("You said no"))`)
}
