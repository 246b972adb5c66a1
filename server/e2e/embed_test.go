package e2e

import (
	"context"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/target"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"github.com/formbridge/formbridge/app/wire"
	"github.com/formbridge/formbridge/server/api"
	"github.com/formbridge/formbridge/server/gateway"
	"github.com/formbridge/formbridge/server/hub"
	"github.com/formbridge/formbridge/server/site"
)

// The embedding tests put the host page and the widget on different
// sites: the bridge is reached as localhost, the pages as 127.0.0.1.
// Chrome then runs the widget's iframe in its own process, as it would
// for chat.example.com embedding bridge.example.com, and the test reaches
// into it as a target of its own (frameContext).

// startOriginBridge is StartBridge with --allowed-origins, reached at
// http://localhost:port.
func startOriginBridge(t *testing.T, allowed ...string) *Bridge {
	t.Helper()
	return startBridgeWith(t, bridgeSetup{Allowed: allowed})
}

// bridgeSetup is what the embedding tests set on a bridge.
type bridgeSetup struct {
	Allowed       []string // --allowed-origins
	Token, APIKey string   // --token ("" = generated), --api-key ("" = no API)
}

func startBridgeWith(t *testing.T, o bridgeSetup) *Bridge {
	t.Helper()
	h := hub.New(&hub.Options{DefaultToken: o.Token, ServerInfo: wire.Implementation{Name: "formbridge", Version: "e2e"}})
	siteHandler, err := site.New(&site.Options{WebDir: WebDir(), Version: "e2e", AllowedOrigins: o.Allowed})
	if err != nil {
		t.Fatalf("site: %v", err)
	}
	b := &Bridge{Hub: h, Token: h.DefaultToken(), APIKey: o.APIKey, widgets: map[net.Conn]bool{}}
	mux := http.NewServeMux()
	mux.Handle(wire.Path, gateway.New(h, &gateway.Options{AllowedOrigins: o.Allowed, Logger: slog.New(helloLog{b})}))
	if o.APIKey != "" {
		mux.Handle("/api/v1/", api.New(h, &api.Options{APIKey: o.APIKey}))
	}
	mux.Handle("/", siteHandler)
	addr := serve(t, mux, b.track)
	t.Cleanup(h.Close)
	b.URL = "http://localhost:" + port(addr)
	return b
}

// serveDir serves dir with the standard library's file server, as any
// static host would, under prefix ("/" or "/approvals/"), and returns
// the origin, http://127.0.0.1:port.
func serveDir(t *testing.T, dir, prefix string) string {
	t.Helper()
	mux := http.NewServeMux()
	mux.Handle(prefix, http.StripPrefix(strings.TrimSuffix(prefix, "/"), http.FileServer(http.Dir(dir))))
	return "http://" + serve(t, mux, nil)
}

// serve runs h on a free loopback port until the test ends.
func serve(t *testing.T, h http.Handler, state func(net.Conn, http.ConnState)) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("listen: %v", err)
	}
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second, ConnState: state}
	go srv.Serve(ln)
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if srv.Shutdown(ctx) != nil {
			srv.Close()
		}
	})
	return ln.Addr().String()
}

func port(addr string) string {
	_, p, _ := net.SplitHostPort(addr)
	return p
}

// frameContext attaches to the widget's iframe, whose URL starts with
// prefix, once Chrome lists it.
func frameContext(t *testing.T, ctx context.Context, prefix string) context.Context {
	t.Helper()
	return frameContexts(t, ctx, prefix, 1)[0]
}

// frameContexts is frameContext for the first n iframes at prefix.
func frameContexts(t *testing.T, ctx context.Context, prefix string, n int) []context.Context {
	t.Helper()
	deadline := time.Now().Add(stepTimeout)
	for time.Now().Before(deadline) {
		infos, err := chromedp.Targets(ctx)
		if err != nil {
			t.Fatalf("listing targets: %v", err)
		}
		var ids []target.ID
		for _, info := range infos {
			if info.Type == "iframe" && strings.HasPrefix(info.URL, prefix) {
				ids = append(ids, info.TargetID)
			}
		}
		if len(ids) < n {
			time.Sleep(100 * time.Millisecond)
			continue
		}
		frames := make([]context.Context, n)
		for i, id := range ids[:n] {
			fctx, cancel := chromedp.NewContext(ctx, chromedp.WithTargetID(id))
			t.Cleanup(cancel)
			logs := &consoleLog{t: t}
			t.Cleanup(logs.stop)
			logs.listen(fctx, "widget frame")
			frames[i] = fctx
		}
		return frames
	}
	t.Fatalf("fewer than %d iframes at %s appeared", n, prefix)
	return nil
}

// chatEvent is what the chat example records of the widget's events.
type chatEvent struct {
	Type    string `json:"type"`
	Count   int    `json:"count"`
	ID      string `json:"id"`
	Outcome string `json:"outcome"`
	State   string `json:"state"`
}

// recordRawMessages keeps every message the host page receives, as
// sent, to check what the widget tells a host.
const recordRawMessages = `window.rawMessages = []; window.addEventListener("message", (e) => window.rawMessages.push(e.data)); true`

const confirmDelete = `{"message":"Delete the 40 duplicate invoices?","requestedSchema":{"type":"object","properties":{
	"reason":{"type":"string","title":"Why (for the audit log)","minLength":3}
},"required":["reason"]}}`

// TestEmbedInChatExample: the chat example, on its own origin, embeds
// the widget from the bridge; a request is answered inside the iframe
// and the page hears of it (count, id, outcome) without the answer.
func TestEmbedInChatExample(t *testing.T) {
	ctx := NewBrowser(t)
	chat := serveDir(t, WebDir(), "/")
	b := startOriginBridge(t, chat)
	colorScheme(t, ctx, "light")

	page := chat + "/examples/chat.html#token=" + b.Token + "&widget=" + b.URL + "/"
	do(t, ctx, "open the chat example", chromedp.Navigate(page))
	eval[bool](t, ctx, recordRawMessages)
	waitJS(t, ctx, "the widget to connect", `window.chatEvents && chatEvents.some((e) => e.type === "connection" && e.state === "online")`)
	waitJS(t, ctx, "the first pending count", `chatEvents.some((e) => e.type === "pending" && e.count === 0)`)

	src := eval[string](t, ctx, `document.querySelector("#widget iframe").src`)
	if strings.Contains(src, b.Token) {
		t.Errorf("the token is in the iframe's URL %s", src)
	}
	wantHost := "#host=" + strings.ReplaceAll(strings.ReplaceAll(chat, ":", "%3A"), "/", "%2F")
	if !strings.HasPrefix(src, b.URL+"/") || !strings.HasSuffix(src, wantHost) {
		t.Errorf("iframe src %s, want the widget at %s/ naming this page's origin (%s)", src, b.URL, wantHost)
	}
	if sb := eval[string](t, ctx, `document.querySelector("#widget iframe").getAttribute("sandbox")`); sb != "allow-scripts allow-same-origin allow-forms allow-popups allow-popups-to-escape-sandbox" {
		t.Errorf("sandbox = %q", sb)
	}

	frame := frameContext(t, ctx, b.URL+"/")
	// The chat page's theme reached the widget's custom properties.
	if got := eval[string](t, frame, `getComputedStyle(document.documentElement).getPropertyValue("--fb-primary").trim()`); got != "#0a7d5a" {
		t.Errorf("--fb-primary in the widget = %q, want the chat page's #0a7d5a", got)
	}

	// embed.js hears only its own frame: the same message from the page
	// itself (another script, another frame) is not an event.
	eval[bool](t, ctx, `window.postMessage(JSON.stringify({formbridge: "embed.v1", type: "pending", count: 99}), "*"); true`)

	out := b.Elicit(t, confirmDelete, nil)
	id := waitForm(t, frame)
	waitJS(t, ctx, "the page to hear of the request", `chatEvents.some((e) => e.type === "pending" && e.count === 1)`)
	waitJS(t, ctx, "the frame to grow to the form", `parseInt(document.querySelector("#widget iframe").style.height) > 320`)
	fitsFrame(t, ctx, frame)

	// focus() puts the keyboard in the request's first field.
	eval[bool](t, ctx, `chatWidget.focus(); true`)
	waitJS(t, frame, "focus on the first field", `document.activeElement && document.activeElement.closest("[data-field=reason]") !== null`)

	setValue(t, frame, field("reason", "textarea, input"), "duplicates of the March import")
	do(t, frame, "send inside the iframe", chromedp.Click(action("accept")))
	wantResult(t, await(t, frame, out), `{"action":"accept","content":{"reason":"duplicates of the March import"}}`)
	waitJS(t, ctx, "the settled event", `chatEvents.some((e) => e.type === "settled")`)
	waitJS(t, ctx, "the count back to zero", `chatEvents.filter((e) => e.type === "pending").pop().count === 0`)

	events := eval[[]chatEvent](t, ctx, `chatEvents`)
	var settled []chatEvent
	for _, e := range events {
		if e.Type == "settled" {
			settled = append(settled, e)
		}
		if e.Type == "pending" && e.Count == 99 {
			t.Error("embed.js took a message from the page itself for one from the widget")
		}
	}
	if len(settled) != 1 || settled[0].ID != id || settled[0].Outcome != "answered" {
		t.Errorf("settled events %+v, want one for %s with outcome answered", settled, id)
	}
	for _, raw := range eval[[]string](t, ctx, `rawMessages.map((m) => typeof m === "string" ? m : JSON.stringify(m))`) {
		if strings.Contains(raw, "March import") || strings.Contains(raw, "reason") || strings.Contains(raw, "content") {
			t.Errorf("the widget told the host page what was answered: %s", raw)
		}
	}
	if got := eval[string](t, ctx, `document.querySelector("#messages").lastElementChild.textContent`); !strings.Contains(got, "You answered a request") {
		t.Errorf("the chat shows %q after the answer", got)
	}

	// setTheme switches the widget to dark while the browser prefers light.
	do(t, ctx, "switch the chat to dark mode", chromedp.Click(chromedp.CSS("#mode")))
	waitJS(t, frame, "the dark palette", `getComputedStyle(document.documentElement).getPropertyValue("--fb-bg").trim() === "#0f1216"`)

	screenshotChat(t, ctx, frame, b)

	// A host's primary without a label colour gets white or black labels,
	// whichever reads on it: white on this dark green, also in the dark
	// palette, whose own label colour is dark.
	eval[bool](t, ctx, `chatWidget.setTheme({mode: "dark", colors: {primary: "#0a7d5a"}}); true`)
	const labelJS = `(() => {
		const b = document.createElement("button");
		b.className = "fb-primary";
		document.body.append(b);
		const c = getComputedStyle(b).color;
		b.remove();
		return c;
	})()`
	waitJS(t, frame, "the host's primary", `getComputedStyle(document.documentElement).getPropertyValue("--fb-primary").trim() === "#0a7d5a"`)
	if got := eval[string](t, frame, labelJS); got != "rgb(255, 255, 255)" && got != "lch(100 0 0)" {
		t.Errorf("the label on the host's primary is %s; want white", got)
	}
	eval[bool](t, ctx, `chatWidget.setTheme({mode: "light", colors: {primary: "#9fe0c0"}}); true`)
	waitJS(t, frame, "a light primary", `getComputedStyle(document.documentElement).getPropertyValue("--fb-primary").trim() === "#9fe0c0"`)
	if got := eval[string](t, frame, labelJS); got != "rgb(0, 0, 0)" && got != "lch(0 0 0)" {
		t.Errorf("the label on a light primary is %s; want black", got)
	}

	// Words the browser does not take for a colour, and CSS's keywords
	// for every property, are dropped, not set.
	eval[bool](t, ctx, `chatWidget.setTheme({mode: "dark", colors: {primary: "banana", text: "inherit", surface: "#101820"}}); true`)
	waitJS(t, frame, "the valid colour", `getComputedStyle(document.documentElement).getPropertyValue("--fb-surface").trim() === "#101820"`)
	for _, prop := range []string{"--fb-primary", "--fb-text"} {
		if eval[string](t, frame, `document.documentElement.style.getPropertyValue("`+prop+`")`) != "" {
			t.Errorf("%s was set from a value that is not a colour", prop)
		}
	}
}

// fitsFrame checks the iframe is as tall as the widget's content: all of
// it visible, and no more than the widget's padding left over. Content
// taller than the host lets the frame grow (chat.css caps it) scrolls
// inside the frame, which must then be at that cap.
func fitsFrame(t *testing.T, ctx, frame context.Context) {
	t.Helper()
	const spareJS = `(() => {
		const root = document.querySelector(".fb-widget");
		return innerHeight - (Math.max(...[...root.children].map((c) => c.getBoundingClientRect().bottom)) + scrollY);
	})()`
	const cappedJS = `(() => {
		const f = document.querySelector("iframe"), cap = parseFloat(getComputedStyle(f).maxHeight);
		return !isNaN(cap) && Math.abs(f.getBoundingClientRect().height - cap) < 1;
	})()`
	deadline := time.Now().Add(stepTimeout)
	for {
		spare := eval[float64](t, frame, spareJS)
		if spare >= 0 && spare <= 48 || spare < 0 && eval[bool](t, ctx, cappedJS) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the frame does not fit its content: %.0f px to spare", spare)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// screenshotChat leaves a picture of the chat example with a request
// open in the widget, light and dark, in out/ for people to look at.
func screenshotChat(t *testing.T, ctx, frame context.Context, b *Bridge) {
	t.Helper()
	b.Elicit(t, `{"message":"Approve the refund of EUR 240 to Northwind Traders?","requestedSchema":{"type":"object","properties":{
		"approve":{"type":"boolean","title":"Approve the refund","default":true},
		"note":{"type":"string","title":"Note to the customer"}
	}}}`, &hub.ElicitOptions{Timeout: time.Minute})
	waitJS(t, ctx, "the request for the screenshot", `chatEvents.filter((e) => e.type === "pending").pop().count === 1`)
	waitForm(t, frame)
	for _, mode := range []string{"dark", "light"} {
		if mode == "light" {
			do(t, ctx, "back to light", chromedp.Click(chromedp.CSS("#mode")))
			waitJS(t, frame, "the light palette", `getComputedStyle(document.documentElement).getPropertyValue("--fb-bg").trim() === "#f4f6f9"`)
		}
		fitsFrame(t, ctx, frame)
		do(t, ctx, "let layout settle", chromedp.Sleep(300*time.Millisecond))
		sctx, cancel := context.WithTimeout(ctx, stepTimeout)
		img, err := chromedp.Run(sctx, chromedp.FullScreenshot(100))
		cancel()
		if err != nil {
			t.Fatalf("screenshot: %v", err)
		}
		p := filepath.Join(outDir(t), "embed-chat-"+mode+".png")
		if err := os.WriteFile(p, img, 0o644); err != nil {
			t.Fatal(err)
		}
		t.Logf("wrote %s", p)
	}
}

// TestEmbedRefusedOnOtherOrigin: a page whose origin is not in
// --allowed-origins cannot frame the widget (frame-ancestors), so it
// never hears from it and no connection is made for it.
func TestEmbedRefusedOnOtherOrigin(t *testing.T) {
	ctx := NewBrowser(t)
	allowed := serveDir(t, WebDir(), "/")
	other := serveDir(t, WebDir(), "/")
	b := startOriginBridge(t, allowed)

	open := func(origin string) {
		do(t, ctx, "open the chat example on "+origin,
			chromedp.Navigate(origin+"/examples/chat.html#token="+b.Token+"&widget="+b.URL+"/"))
		eval[bool](t, ctx, recordRawMessages)
	}
	// The same page on the allowed origin hears "ready" within the budget
	// the refused one is given, so the refusal is not just slowness.
	open(allowed)
	start := time.Now()
	waitJS(t, ctx, "the widget on the allowed origin", `window.chatEvents && chatEvents.some((e) => e.type === "connection")`)
	budget := max(8*time.Second, 3*time.Since(start))
	before := b.Upgrades()

	open(other)
	time.Sleep(budget)
	if n := eval[int](t, ctx, `rawMessages.length + chatEvents.length`); n != 0 {
		t.Errorf("a page on a non-allowed origin heard %d messages from the widget", n)
	}
	if b.Upgrades() != before {
		t.Errorf("the widget framed by a non-allowed origin connected to the bridge")
	}
}

// TestEmbedDocsRecipe runs the "Embed in a chat UI" recipe of
// docs/EMBED.md as written: its page, its token and API key, and its
// curl request, with only the bridge's address changed to this test's.
func TestEmbedDocsRecipe(t *testing.T) {
	doc, err := os.ReadFile(filepath.Join("..", "..", "docs", "EMBED.md"))
	if err != nil {
		t.Fatal(err)
	}
	page := between(t, string(doc), "cat > index.html <<'EOF'\n", "\n   EOF")
	page = dedent(page, "   ")
	curl := between(t, string(doc), "curl -s http://127.0.0.1:8080/api/v1/channels/default/elicitations", "}}}}'")
	body := dedent(between(t, curl+"}}}}'", "-d '", "'"), "")
	const docToken, docKey, docBridge = "demo-token-1234", "demo-key-1234", "http://127.0.0.1:8080"
	for _, want := range []string{docToken, docBridge} {
		if !strings.Contains(page, want) {
			t.Fatalf("the recipe's page no longer has %q; update this test with the recipe", want)
		}
	}
	if !strings.Contains(curl, "Bearer "+docKey) {
		t.Fatalf("the recipe's curl no longer sends the key %q", docKey)
	}

	ctx := NewBrowser(t)
	dir := t.TempDir()
	chat := serveDir(t, dir, "/")
	b := startBridgeWith(t, bridgeSetup{Allowed: []string{chat}, Token: docToken, APIKey: docKey})
	if err := os.WriteFile(filepath.Join(dir, "index.html"), []byte(strings.ReplaceAll(page, docBridge, b.URL)), 0o644); err != nil {
		t.Fatal(err)
	}
	do(t, ctx, "open the recipe's page", chromedp.Navigate(chat+"/"))
	waitJS(t, ctx, "the widget to connect", `document.querySelector("#approvals iframe") !== null`)
	frame := frameContext(t, ctx, b.URL+"/")
	do(t, frame, "connect", chromedp.WaitVisible(chromedp.CSS(`[data-connection="online"]`)))

	type answer struct {
		status int
		body   string
	}
	answered := make(chan answer, 1)
	go func() {
		req, _ := http.NewRequest(http.MethodPost, b.URL+"/api/v1/channels/default/elicitations", strings.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+docKey)
		req.Header.Set("Content-Type", "application/json")
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			answered <- answer{0, err.Error()}
			return
		}
		defer res.Body.Close()
		var sb strings.Builder
		_, _ = io.Copy(&sb, res.Body)
		answered <- answer{res.StatusCode, sb.String()}
	}()
	waitJS(t, ctx, "the recipe's status line", `document.getElementById("status").textContent === "1 waiting for you"`)
	waitForm(t, frame)
	do(t, frame, "send", chromedp.Click(action("accept")))
	select {
	case a := <-answered:
		if a.status != http.StatusOK || !strings.Contains(a.body, `"action":"accept"`) {
			t.Errorf("the recipe's curl got %d %s", a.status, a.body)
		}
	case <-time.After(resultTimeout):
		t.Fatal("the recipe's request got no answer")
	}
	waitJS(t, ctx, "the status line back to zero", `document.getElementById("status").textContent === "0 waiting for you"`)
}

// between returns the text of s after start and before the next end.
func between(t *testing.T, s, start, end string) string {
	t.Helper()
	_, rest, ok := strings.Cut(s, start)
	if !ok {
		t.Fatalf("docs/EMBED.md no longer has %q", start)
	}
	out, _, ok := strings.Cut(rest, end)
	if !ok {
		t.Fatalf("docs/EMBED.md has no %q after %q", end, start)
	}
	return out
}

// dedent removes the indentation a Markdown list item gives its code.
func dedent(s, indent string) string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = strings.TrimPrefix(l, indent)
	}
	return strings.Join(lines, "\n")
}

// TestEmbedWidgetChecksHostOrigin: a frame whose URL names another
// origin than the page it is in (#host=…) takes no init from that page,
// so a page cannot pass itself off as an allowed host. The same frame
// naming the page's real origin connects, as control.
func TestEmbedWidgetChecksHostOrigin(t *testing.T) {
	// A bare page: the test frames the widget by hand, as a hostile
	// script on an allowed page could.
	ctx, page, b := bareHostPage(t)
	// frameWith frames the widget for host and posts it init, as JSON
	// text (the protocol) or, with object, as a structured-clone object
	// and a BigInt (which syscall/js cannot read as text).
	frameWith := func(host string, object bool) string {
		return `(() => {
			const f = document.createElement("iframe");
			f.setAttribute("sandbox", "allow-scripts allow-same-origin allow-forms");
			f.src = ` + strconv.Quote(b.URL+"/#host=") + ` + encodeURIComponent(` + strconv.Quote(host) + `);
			document.body.appendChild(f);
			// Send init to whatever loads in it, again and again, as a
			// page that does not wait for ready would.
			const object = ` + strconv.FormatBool(object) + `;
			let init = {formbridge: "embed.v1", type: "init", token: ` + strconv.Quote(b.Token) + `};
			if (!object) init = JSON.stringify(init);
			f.dataset.timer = setInterval(() => {
				f.contentWindow.postMessage(init, "*");
				if (object) f.contentWindow.postMessage(10n, "*");
			}, 200);
			return true;
		})()`
	}
	eval[bool](t, ctx, frameWith("http://127.0.0.1:1", false))
	// The page's real origin, but init as an object, not JSON text: not
	// a message of the protocol, so it is ignored too.
	eval[bool](t, ctx, frameWith(page, true))
	for _, frame := range frameContexts(t, ctx, b.URL+"/", 2) {
		// go-app removes its loader once the program runs; from then on
		// the widget listens, and the page's inits arrive five times a
		// second.
		waitJS(t, frame, "the widget to run", `document.getElementById("app-wasm-loader") === null`)
	}
	time.Sleep(3 * time.Second)
	if n := b.Upgrades(); n != 0 {
		t.Fatalf("a widget told its host was http://127.0.0.1:1, or sent init as an object, connected (%d)", n)
	}
	// The frame for the page's real origin is still alive and takes an
	// init as the protocol has it.
	eval[bool](t, ctx, `(() => {
		const f = document.querySelectorAll("iframe")[1];
		clearInterval(Number(f.dataset.timer));
		setInterval(() => f.contentWindow.postMessage(JSON.stringify({formbridge: "embed.v1", type: "init", token: `+strconv.Quote(b.Token)+`}), "*"), 200);
		return true;
	})()`)
	deadline := time.Now().Add(stepTimeout)
	for b.Upgrades() == 0 {
		if time.Now().After(deadline) {
			t.Fatal("the frame for the page's real origin never connected once sent init as text")
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// bareHostPage opens an empty page on its own origin, with a bridge
// that allows it, for a test to frame the widget by hand. It returns the
// browser, the page's URL and the bridge.
func bareHostPage(t *testing.T) (ctx context.Context, page string, b *Bridge) {
	t.Helper()
	ctx = NewBrowser(t)
	dir := t.TempDir()
	page = serveDir(t, dir, "/")
	b = startOriginBridge(t, page)
	if err := os.WriteFile(filepath.Join(dir, "index.html"), []byte("<!DOCTYPE html><title>host</title><body></body>"), 0o644); err != nil {
		t.Fatal(err)
	}
	do(t, ctx, "open the page", chromedp.Navigate(page+"/"))
	return ctx, page, b
}

// hostPage serves a page on its own origin, with a bridge that allows
// it: the page loads the bridge's embed.js, then body, with "{token}"
// replaced by the bridge's token. It returns the browser, the page's URL
// and the bridge.
func hostPage(t *testing.T, body string) (ctx context.Context, page string, b *Bridge) {
	t.Helper()
	ctx = NewBrowser(t)
	dir := t.TempDir()
	page = serveDir(t, dir, "/")
	b = startOriginBridge(t, page)
	html := `<!DOCTYPE html><title>host</title>
<script src="` + b.URL + `/web/embed.js"></script>
` + strings.ReplaceAll(body, "{token}", b.Token)
	if err := os.WriteFile(filepath.Join(dir, "index.html"), []byte(html), 0o644); err != nil {
		t.Fatal(err)
	}
	return ctx, page, b
}

// TestEmbedCustomElement: <formbridge-widget> mounts the widget from its
// attributes and dispatches the events on itself.
func TestEmbedCustomElement(t *testing.T) {
	ctx, page, b := hostPage(t, `<formbridge-widget token="{token}" theme="dark"></formbridge-widget>
<script>
  window.heard = [];
  const el = document.querySelector("formbridge-widget");
  for (const type of ["pending", "settled", "connection"]) {
    el.addEventListener("formbridge:" + type, (e) => heard.push(Object.assign({type}, e.detail)));
  }
</script>`)
	colorScheme(t, ctx, "light")
	do(t, ctx, "open the page", chromedp.Navigate(page+"/"))
	waitJS(t, ctx, "the element to connect", `heard.some((e) => e.type === "connection" && e.state === "online")`)
	frame := frameContext(t, ctx, b.URL+"/")
	if got := eval[string](t, frame, `document.documentElement.getAttribute("data-fb-mode")`); got != "dark" {
		t.Errorf(`theme="dark" gave data-fb-mode %q`, got)
	}
	out := b.Elicit(t, confirmDelete, nil)
	waitJS(t, ctx, "pending on the element", `heard.some((e) => e.type === "pending" && e.count === 1)`)
	waitForm(t, frame)
	fitsFrame(t, ctx, frame)
	focusFrame(t, ctx, frame)
	press(t, frame, action("cancel"))
	wantResult(t, await(t, frame, out), `{"action":"cancel"}`)
	waitJS(t, ctx, "settled on the element", `heard.some((e) => e.type === "settled" && e.outcome === "answered")`)

	// A reload of the frame starts a new widget, which says ready again;
	// embed.js sends the token again and it reconnects.
	eval[bool](t, ctx, `heard.length = 0; true`)
	eval[bool](t, frame, `setTimeout(() => location.reload(), 0); true`)
	waitJS(t, ctx, "the reloaded widget to connect", `heard.some((e) => e.type === "connection" && e.state === "online")`)
	b.Elicit(t, confirmDelete, nil)
	waitJS(t, ctx, "pending from the reloaded widget", `heard.some((e) => e.type === "pending" && e.count === 1)`)
}

// TestEmbedCustomElementLater: a framework makes the element, puts it in
// the page, and sets its attributes after: the widget waits for the
// token (no frame telling a person their link is incomplete), then
// follows a new theme.
func TestEmbedCustomElementLater(t *testing.T) {
	ctx, page, b := hostPage(t, `<div id="slot"></div>
<script>
  window.heard = [];
  window.framesAdded = 0;
  new MutationObserver((ms) => ms.forEach((m) => m.addedNodes.forEach((n) => { if (n.tagName === "IFRAME") framesAdded++; })))
    .observe(document.body, {subtree: true, childList: true});
  const el = document.createElement("formbridge-widget");
  el.addEventListener("formbridge:connection", (e) => heard.push(e.detail.state));
  document.getElementById("slot").append(el);
</script>`)
	do(t, ctx, "open the page", chromedp.Navigate(page+"/"))
	if n := eval[int](t, ctx, `document.querySelectorAll("iframe").length`); n != 0 {
		t.Errorf("%d frames before the element had a token; want none", n)
	}
	eval[bool](t, ctx, `document.querySelector("formbridge-widget").setAttribute("token", `+strconv.Quote(b.Token)+`); true`)
	waitJS(t, ctx, "the element to connect", `heard.includes("online")`)
	frame := frameContext(t, ctx, b.URL+"/")
	eval[bool](t, ctx, `document.querySelector("formbridge-widget").setAttribute("theme", "dark"); true`)
	waitJS(t, frame, "the new theme", `document.documentElement.getAttribute("data-fb-mode") === "dark"`)
	if n := eval[int](t, ctx, `document.querySelectorAll("iframe").length`); n != 1 {
		t.Errorf("%d frames after the attributes changed; want one", n)
	}
	// Two changes in one go mount the widget again once, not twice.
	eval[bool](t, ctx, `(() => { const el = document.querySelector("formbridge-widget"); el.setAttribute("title", "A"); el.setAttribute("title", "Approvals"); return true; })()`)
	waitJS(t, ctx, "the widget mounted again", `document.querySelector("iframe")?.title === "Approvals"`)
	if n := eval[int](t, ctx, `framesAdded`); n != 2 {
		t.Errorf("%d frames made in all; want 2 (the first, and one for both title changes)", n)
	}
}

// TestEmbedRefusedToken: a token the bridge refuses is told to the host
// apart from a dropped network, and the person reads words about the
// app they are in, not about a link they were never sent.
func TestEmbedRefusedToken(t *testing.T) {
	ctx, page, b := hostPage(t, `<formbridge-widget token="not-the-token"></formbridge-widget>
<script>
  window.heard = [];
  document.querySelector("formbridge-widget").addEventListener("formbridge:connection", (e) => heard.push(e.detail));
</script>`)
	do(t, ctx, "open the page", chromedp.Navigate(page+"/"))
	waitJS(t, ctx, "the refusal", `heard.some((e) => e.state === "offline" && e.reason === "unauthorized")`)
	time.Sleep(300 * time.Millisecond)
	if got := eval[string](t, ctx, `JSON.stringify(heard)`); got != `[{"state":"connecting"},{"state":"offline","reason":"unauthorized"}]` {
		t.Errorf("the host heard %s; want connecting, then one offline with the reason", got)
	}
	frame := frameContext(t, ctx, b.URL+"/")
	text := eval[string](t, frame, `document.body.innerText`)
	if !strings.Contains(text, "This app could not open your requests") || strings.Contains(text, "link") {
		t.Errorf("the frame reads %q; want words about the app, none about a link", text)
	}
}

// press activates a button from the keyboard. Leaving an empty required
// field shows its error, which moves the buttons below it; a mouse click
// on one of them can then land where it no longer is. These tests are
// about where the answer goes, not about that.
//
// In an embedded frame, call focusFrame first.
func press(t *testing.T, ctx context.Context, sel chromedp.CSS) {
	t.Helper()
	do(t, ctx, "press "+string(sel), chromedp.Focus(sel), chromedp.KeyEvent(kb.Enter))
}

// focusFrame puts keyboard focus in the widget's frame as a person's
// click or Tab into it would. The test browser's tab starts without
// focus (document.hasFocus() is false), and a key sent to an element
// of a cross-origin frame in a tab without focus sometimes lost it:
// between the keydown and the keypress the button was blurred, so Enter
// clicked nothing (1 run in 3 to 15 with the machine loaded, none in 60
// with this first).
func focusFrame(t *testing.T, host, frame context.Context) {
	t.Helper()
	if _, err := chromedp.Call(host, page.BringToFront, cdp.Empty{}); err != nil {
		t.Fatalf("bringing the host page to the front: %v", err)
	}
	eval[bool](t, host, `document.querySelector("iframe").focus(); true`)
	waitJS(t, frame, "the frame to have focus", `document.hasFocus()`)
}

// openChatExample opens the chat example on its own origin, with the
// widget of a bridge that allows it, and waits for the widget to be
// online. It returns the page, the widget's frame and the bridge.
func openChatExample(t *testing.T) (ctx, frame context.Context, b *Bridge) {
	t.Helper()
	ctx = NewBrowser(t)
	chat := serveDir(t, WebDir(), "/")
	b = startOriginBridge(t, chat)
	do(t, ctx, "open the chat example", chromedp.Navigate(chat+"/examples/chat.html#token="+b.Token+"&widget="+b.URL+"/"))
	waitJS(t, ctx, "the widget to connect", `window.chatEvents && chatEvents.some((e) => e.type === "connection" && e.state === "online")`)
	return ctx, frameContext(t, ctx, b.URL+"/"), b
}

// TestEmbedKeepsHostFocus: a request that arrives while the person types
// in the chat page must not take the keyboard. Their next keys stay in
// the chat box; a Space and an Enter do not tick and send a form they
// have not read.
func TestEmbedKeepsHostFocus(t *testing.T) {
	ctx, frame, b := openChatExample(t)

	do(t, ctx, "type in the chat box", chromedp.Click(chromedp.CSS("#say")), chromedp.SendKeys(chromedp.CSS("#say"), "see"))
	out := b.Elicit(t, `{"message":"Delete these 40 invoices?","requestedSchema":{"type":"object","properties":{
		"confirm":{"type":"boolean","title":"Yes, delete these 40 invoices permanently"}},"required":["confirm"]}}`, nil)
	waitForm(t, frame)
	do(t, ctx, "let the form settle", chromedp.Sleep(300*time.Millisecond))
	do(t, ctx, "go on typing", chromedp.KeyEvent(" you"), chromedp.KeyEvent(kb.Enter))

	if got := eval[string](t, ctx, `document.activeElement.id`); got != "say" {
		t.Errorf("focus on the chat page is on %q; want the chat box", got)
	}
	if got := eval[bool](t, frame, `document.activeElement !== document.body && document.activeElement !== null`); got {
		t.Errorf("focus went into the widget: %s", eval[string](t, frame, `document.activeElement.outerHTML.slice(0, 200)`))
	}
	if eval[bool](t, frame, `document.querySelector("[data-field=confirm] input")?.checked === true`) {
		t.Error("the person's typing ticked the box")
	}
	// Focus may not move, so a screen reader hears of it another way.
	if got := eval[string](t, frame, `document.querySelector("[role=status].fb-arrival")?.textContent ?? "none"`); !strings.HasPrefix(got, "New request from ") || !strings.HasSuffix(got, ". 1 request waiting.") {
		t.Errorf("the frame's live region says %q; want the request's arrival", got)
	}
	select {
	case o := <-out:
		t.Fatalf("the request was answered by typing meant for the chat: %+v %v", o.Result, o.Err)
	case <-time.After(300 * time.Millisecond):
	}
}

// TestEmbedHearsGone: a request that ended while the widget was cut off
// (the bridge restarted, say) leaves the frame on reconnecting, and the
// host page hears of it as settled "unknown", as it hears of any other.
func TestEmbedHearsGone(t *testing.T) {
	ctx, frame, b := openChatExample(t)

	id := withdrawnUnheard(t, b, frame, `{"message":"Still needed?","requestedSchema":{"type":"object","properties":{"ok":{"type":"boolean"}}}}`)

	waitJS(t, ctx, "the settled event", `chatEvents.some((e) => e.type === "settled")`)
	var settled []chatEvent
	for _, e := range eval[[]chatEvent](t, ctx, `chatEvents`) {
		if e.Type == "settled" {
			settled = append(settled, e)
		}
	}
	if len(settled) != 1 || settled[0].ID != id || settled[0].Outcome != "unknown" {
		t.Errorf("settled events %+v; want one for %s with outcome unknown", settled, id)
	}
	waitJS(t, ctx, "the count back to zero", `chatEvents.filter((e) => e.type === "pending").pop().count === 0`)
}
