package main

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/formbridge/formbridge/server/hub"
	"github.com/formbridge/formbridge/server/site"
)

// networkDelay is what the page loads over a network wait for each
// chunk, each way: an 80 ms round trip, a phone's or an office's far
// from its bridge.
const networkDelay = 40 * time.Millisecond

// benchNetworkLoads times the loads benchLoads does with each page, and
// the widget's bridge, behind a loopback relay that holds every chunk
// networkDelay (bandwidth is not limited); and the widget once more as
// a static site (server/site, GenerateStatic, from widgetWeb) on a
// plain file server, with its bridge named in config.json, both behind
// relays too. It sets no target: issue 6's are on loopback. It shows
// what loopback hides, where round trips cost: the page's requests
// before the wasm, and the widget's connection and hello (on a static
// site, config.json first), which web/connect.js overlaps with the
// wasm's download.
func benchNetworkLoads(ctx context.Context, c *config, r *report, exe string, bw, bh *bridge, widgetWeb string) error {
	defer keepPending(ctx, bw)()
	rw, err := startRelay(strings.TrimPrefix(bw.URL, "http://"), networkDelay)
	if err != nil {
		return err
	}
	defer rw.close()
	rh, err := startRelay(strings.TrimPrefix(bh.URL, "http://"), networkDelay)
	if err != nil {
		return err
	}
	defer rh.close()
	static, token, stop, err := startStaticSite(ctx, widgetWeb)
	if err != nil {
		return err
	}
	defer stop()
	targets := []loadTarget{
		{"widget", "http://" + rw.addr() + "/#token=" + bw.Hub.DefaultToken(), widgetProbe},
		{"hello", "http://" + rh.addr() + "/", helloProbe},
		{"static", static + "/#token=" + token, widgetProbe},
	}
	lt, err := timeLoads(ctx, exe, targets, c.runs, 1)
	if err != nil {
		return fmt.Errorf("over a round trip of %v: %w", 2*networkDelay, err)
	}
	s := r.section(fmt.Sprintf("Page load over a round trip of %d ms", 2*networkDelay.Milliseconds()))
	s.printf("The loads above again, with both pages (and the widget's WebSocket) behind a relay on loopback that holds every chunk %d ms each way, bandwidth unlimited: %d cold loads of each page (one a run) and %d warm ones after each. ", networkDelay.Milliseconds(), c.runs, warmLoads)
	s.printf("The static site is the widget as `formbridge static` writes it, on a plain file server, its bridge on another origin named in config.json, each behind a relay. No target: these show where round trips weigh, which loopback hides. ")
	s.printf("The widget's page opens its WebSocket and says hello while the wasm downloads (web/connect.js; on the static site after reading config.json), so a pending request is in the page before the widget starts.\n\n")
	var rows [][]string
	for kind, byRun := range lt.byKind() {
		kindRows, _, h := loadRows(kind, byRun)
		var st samples
		for _, m := range byRun {
			st = append(st, m["static"]...)
		}
		rows = append(rows, kindRows...)
		rows = append(rows,
			[]string{kind + ": static site, first field focused", fmtMS(st.median()), fmtMS(st.p99()), fmt.Sprint(len(st))},
			[]string{kind + ": static site / floor", fmtRatio(st.median() / h.median()), fmtRatio(st.p99() / h.p99()), ""},
		)
	}
	s.table([]string{"", "median", "p99", "loads"}, rows)
	s.printf("Where a load's time goes over the relay (median ms from the navigation's start, as above):\n\n")
	s.table([]string{"load", "page", "step", "median"}, lt.stepRows())
	return nil
}

// startStaticSite writes the widget from web as a static site, serves it
// with a plain file server, and starts a bridge on another origin with a
// request pending that config.json names; the site and the bridge each
// behind a relay. It returns the site's URL and the bridge's token.
func startStaticSite(ctx context.Context, web string) (siteURL, token string, stop func(), err error) {
	dir, err := os.MkdirTemp("", "formbridge-bench-static-")
	if err != nil {
		return "", "", nil, err
	}
	var undo []func()
	stop = func() {
		for i := len(undo) - 1; i >= 0; i-- {
			undo[i]()
		}
		os.RemoveAll(dir)
	}
	fail := func(err error) (string, string, func(), error) {
		stop()
		return "", "", nil, err
	}
	if err := site.GenerateStatic(dir, &site.StaticOptions{WebDir: web, Version: "bench"}); err != nil {
		return fail(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return fail(err)
	}
	files := &http.Server{Handler: http.FileServer(http.Dir(dir)), ReadHeaderTimeout: 10 * time.Second}
	go files.Serve(ln)
	undo = append(undo, func() { files.Close() })
	rs, err := startRelay(ln.Addr().String(), networkDelay)
	if err != nil {
		return fail(err)
	}
	undo = append(undo, rs.close)
	siteURL = "http://" + rs.addr()
	b, err := startBridgeFor(hub.Options{Timeout: 10 * time.Minute}, "", []string{siteURL})
	if err != nil {
		return fail(err)
	}
	undo = append(undo, b.close)
	rb, err := startRelay(strings.TrimPrefix(b.URL, "http://"), networkDelay)
	if err != nil {
		return fail(err)
	}
	undo = append(undo, rb.close)
	config := fmt.Sprintf(`{"bridge": "ws://%s/ws"}`, rb.addr())
	if err := os.WriteFile(filepath.Join(dir, site.ConfigFile), []byte(config), 0o644); err != nil {
		return fail(err)
	}
	undo = append(undo, keepPending(ctx, b))
	return siteURL, b.Hub.DefaultToken(), stop, nil
}
