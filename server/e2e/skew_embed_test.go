package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/formbridge/formbridge/app/wire"
	"github.com/formbridge/formbridge/server/site"
)

// fakeWidget stands in for a widget newer than the host page's copy of
// embed.js (or a widget passing on an outcome from a newer bridge: the
// widget forwards the bridge's outcome as it came). It speaks embed.v1
// and, once sent init, reports two requests leaving: one with an
// outcome a later release added, one answered.
const fakeWidget = `<!DOCTYPE html><title>widget</title><script>
const host = decodeURIComponent(location.hash.replace(/^#host=/, ""));
const post = (m) => parent.postMessage(JSON.stringify(Object.assign({formbridge: "embed.v1"}, m)), host);
window.addEventListener("message", (e) => {
  if (JSON.parse(e.data).type !== "init") return;
  post({type: "settled", id: "r1", outcome: "withdrawn-by-admin"});
  post({type: "settled", id: "r2", outcome: "answered"});
});
post({type: "ready"});
</script>`

// TestSkewEmbedSettledNewOutcome: PROTOCOL.md has widgets read an
// outcome they do not know as "no longer waiting", so that outcomes added
// later still clear the form. embed.js keeps a closed list of outcomes
// and drops a settled message with any other: the host page never hears
// that the request left (a chat app keeps its "waiting for approval"
// bubble forever), for as long as its pinned copy of embed.js lives.
func TestSkewEmbedSettledNewOutcome(t *testing.T) {
	widgetDir, hostDir := t.TempDir(), t.TempDir()
	js, err := os.ReadFile(filepath.Join(WebDir(), "embed.js"))
	if err != nil {
		t.Fatal(err)
	}
	os.MkdirAll(filepath.Join(widgetDir, "web"), 0o755)
	os.WriteFile(filepath.Join(widgetDir, "web", "embed.js"), js, 0o644)
	os.WriteFile(filepath.Join(widgetDir, "index.html"), []byte(fakeWidget), 0o644)
	widget := serveDir(t, widgetDir, "/")
	os.WriteFile(filepath.Join(hostDir, "index.html"), []byte(`<!DOCTYPE html><title>host</title>
<script src="`+widget+`/web/embed.js"></script><div id="a"></div>
<script>
  window.heard = [];
  formbridge.mount(document.getElementById("a"), {token: "t"}).on("settled", (e) => heard.push(e.id + " " + e.outcome));
</script>`), 0o644)
	host := serveDir(t, hostDir, "/")

	ctx := NewBrowser(t)
	do(t, ctx, "open the host page", chromedp.Navigate(host+"/"))
	waitJS(t, ctx, "the answered request's settled event", `heard.includes("r2 answered")`)
	if got := eval[[]string](t, ctx, `heard`); len(got) != 2 || got[0] != "r1 withdrawn-by-admin" {
		t.Errorf("the host page heard %q; want r1's settled event too, with its outcome", got)
	}
}

// TestSkewWidgetNewOutcomeReachesHost: the bridge behind the widget is
// newer than it, and settles a request with an outcome this release has
// never seen. The widget rightly withdraws the form ("no longer
// waiting"), and must tell the host page in embed.v1's words: the copies
// of embed.js that host pages keep (every one before this release) drop
// a settled message whose outcome they do not list, so the host would
// never hear that the request left. An outcome embed.v1 does not list
// goes to the host as "unknown".
func TestSkewWidgetNewOutcomeReachesHost(t *testing.T) {
	const token = "skew-token"
	hostDir := t.TempDir()
	host := serveDir(t, hostDir, "/")
	addr := handBridge(t, &site.Options{WebDir: WebDir(), Version: "e2e", AllowedOrigins: []string{host}}, func(send func(*wire.Message), read func() (*wire.Message, error)) {
		req, _ := wire.NewRequest("r1", wire.MethodElicit, json.RawMessage(`{"message":"Approve the refund?","requestedSchema":{"type":"object","properties":{}},"_meta":{"formbridge/request":{"requester":{"name":"shop"},"form":{"fields":[]}}}}`))
		send(req)
		time.Sleep(time.Second)
		n, _ := wire.NewNotification(wire.MethodSettled, wire.SettledParams{RequestID: "r1", Outcome: "withdrawn-by-admin"})
		send(n)
		for {
			if _, err := read(); err != nil {
				return
			}
		}
	})
	bridge := "http://" + addr
	js, err := os.ReadFile(filepath.Join(WebDir(), "embed.js"))
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(hostDir, "embed.js"), js, 0o644)
	os.WriteFile(filepath.Join(hostDir, "index.html"), []byte(`<!DOCTYPE html><title>host</title>
<script src="/embed.js"></script><div id="a"></div>
<script>
  window.heard = [];
  const w = formbridge.mount(document.getElementById("a"), {token: "`+token+`", widget: "`+bridge+`/"});
  w.on("settled", (e) => heard.push(e.id + " " + e.outcome));
  w.on("pending", (e) => heard.push("pending " + e.count));
</script>`), 0o644)

	ctx := NewBrowser(t)
	do(t, ctx, "open the host page", chromedp.Navigate(host+"/"))
	waitJS(t, ctx, "the request to arrive", `heard.includes("pending 1")`)
	waitJS(t, ctx, "the request to leave", `heard.lastIndexOf("pending 0") > heard.indexOf("pending 1")`)
	if got := eval[[]string](t, ctx, `heard`); !slices.Contains(got, "r1 unknown") {
		t.Errorf("the host page heard %q; want a settled event for r1 (outcome unknown to embed.v1)", got)
	}
}
