package main

import (
	"context"
	"fmt"
	"strings"
	"time"
)

// networkDelay is what the page loads over a network wait for each
// chunk, each way: an 80 ms round trip, a phone's or an office's far
// from its bridge.
const networkDelay = 40 * time.Millisecond

// benchNetworkLoads times the loads benchLoads does with each page, and
// the widget's bridge, behind a loopback relay that holds every chunk
// networkDelay (bandwidth is not limited). It sets no target: issue 6's
// are on loopback. It shows what loopback hides, where round trips cost:
// the page's requests before the wasm, and the widget's connection and
// hello, which web/connect.js overlaps with the wasm's download.
func benchNetworkLoads(ctx context.Context, c *config, r *report, exe string, bw, bh *bridge) error {
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
	targets := []loadTarget{
		{"widget", "http://" + rw.addr() + "/#token=" + bw.Hub.DefaultToken(), widgetProbe},
		{"hello", "http://" + rh.addr() + "/", helloProbe},
	}
	lt, err := timeLoads(ctx, exe, targets, c.runs, 1)
	if err != nil {
		return fmt.Errorf("over a round trip of %v: %w", 2*networkDelay, err)
	}
	s := r.section(fmt.Sprintf("Page load over a round trip of %d ms", 2*networkDelay.Milliseconds()))
	s.printf("The loads above again, with both pages (and the widget's WebSocket) behind a relay on loopback that holds every chunk %d ms each way, bandwidth unlimited: %d cold loads of each page (one a run) and %d warm ones after each. No target: these show where round trips weigh, which loopback hides. ", networkDelay.Milliseconds(), c.runs, warmLoads)
	s.printf("The widget's page opens its WebSocket and says hello while the wasm downloads (web/connect.js), so a pending request is in the page before the widget starts.\n\n")
	var rows [][]string
	for kind, byRun := range lt.byKind() {
		kindRows, _, _ := loadRows(kind, byRun)
		rows = append(rows, kindRows...)
	}
	s.table([]string{"", "median", "p99", "loads"}, rows)
	s.printf("Where a load's time goes over the relay (median ms from the navigation's start, as above):\n\n")
	s.table([]string{"load", "page", "step", "median"}, lt.stepRows())
	return nil
}
