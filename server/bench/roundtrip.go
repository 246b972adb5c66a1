package main

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/formbridge/formbridge/app/wire"
	"github.com/formbridge/formbridge/server/hub"
)

// benchForm is what every benchmark asks: a confirmation with a default
// (so a click on Send is a valid answer) and an optional note.
const benchForm = `{"message":"Deploy build 4812 to production?","requestedSchema":{"type":"object","properties":{"approve":{"type":"boolean","title":"Approve","default":true},"note":{"type":"string","title":"Note","maxLength":200}},"required":["approve"]}}`

var benchRequester = wire.Implementation{Name: "bench-server", Title: "Release Desk", Version: "1.0"}

// Round-trip targets of issue 6.
const (
	roundTripP50 = 0.5 // ms
	roundTripP99 = 2.0 // ms
)

// benchRoundTrip measures one elicitation at a time through the whole
// bridge (hub.Elicit -> gateway -> WebSocket -> simulated widget ->
// answer -> validation -> the caller woken) beside the floor: the same
// frame and answer bytes over a bare coder/websocket connection.
func benchRoundTrip(ctx context.Context, c *config, r *report) error {
	b, err := startBridge(hub.Options{MaxPending: 1 << 16, RatePerMinute: 1 << 30, Timeout: time.Minute}, "")
	if err != nil {
		return err
	}
	defer b.close()
	w, err := dialWidget(ctx, b.WS, b.Hub.DefaultToken())
	if err != nil {
		return err
	}
	defer w.close()
	var (
		mu    sync.Mutex
		frame []byte // a create frame as the hub wrote it, for the floor
	)
	wctx, stop := context.WithCancel(ctx)
	defer stop()
	go w.answer(wctx, func(f []byte) {
		mu.Lock()
		if frame == nil {
			frame = slices.Clone(f)
		}
		mu.Unlock()
	})

	e, err := startEcho()
	if err != nil {
		return err
	}
	defer e.close()
	ew, es, err := e.dial(ctx)
	if err != nil {
		return err
	}
	defer ew.close()
	go ew.answer(wctx, nil)

	n, warm := c.n(2000), c.n(200)
	params := json.RawMessage(benchForm)
	var bridgeMS, floorMS samples
	for run := range c.runs {
		for i := range warm + n {
			start := time.Now()
			res, err := b.Hub.Elicit(ctx, hub.DefaultChannel, benchRequester, params, nil)
			d := time.Since(start)
			if err != nil || res.Action != wire.ActionAccept {
				return fmt.Errorf("run %d: Elicit: %v %+v", run, err, res)
			}
			if i >= warm {
				bridgeMS = append(bridgeMS, ms(d))
			}
		}
		mu.Lock()
		f := frame
		mu.Unlock()
		if f == nil {
			return errNoCreate
		}
		for i := range warm + n {
			d, err := roundTrip(ctx, es, f)
			if err != nil {
				return fmt.Errorf("run %d: floor: %v", run, err)
			}
			if i >= warm {
				floorMS = append(floorMS, ms(d))
			}
		}
	}
	s := r.section("Round trip through the hub")
	s.printf("One elicitation at a time, %d runs × %d (after %d to warm up): `hub.Elicit` → gateway → WebSocket → a simulated widget (Go, coder/websocket, formbridge.v1) answers accept → the answer is decoded, validated and settled → the caller returns. ", c.runs, n, warm)
	s.printf("The floor writes the same create frame (%d bytes) and reads the same answer (%d bytes) over a bare coder/websocket connection, with the same widget code answering.\n\n", len(frame), len(answerFrame(createIDOf(frame))))
	s.table([]string{"", "median", "p99", "samples"}, [][]string{
		{"bridge round trip", fmtMS(bridgeMS.median()), fmtMS(bridgeMS.p99()), fmt.Sprint(len(bridgeMS))},
		{"floor: raw WebSocket echo", fmtMS(floorMS.median()), fmtMS(floorMS.p99()), fmt.Sprint(len(floorMS))},
		{"ratio", fmtRatio(bridgeMS.median() / floorMS.median()), fmtRatio(bridgeMS.p99() / floorMS.p99()), ""},
	})
	r.target("hub round trip p50", fmt.Sprintf("< %g ms", roundTripP50),
		fmt.Sprintf("%s (floor %s, %s×)", fmtMS(bridgeMS.median()), fmtMS(floorMS.median()), fmtRatio(bridgeMS.median()/floorMS.median())), bridgeMS.median() < roundTripP50)
	r.target("hub round trip p99", fmt.Sprintf("< %g ms", roundTripP99),
		fmt.Sprintf("%s (floor %s, %s×)", fmtMS(bridgeMS.p99()), fmtMS(floorMS.p99()), fmtRatio(bridgeMS.p99()/floorMS.p99())), bridgeMS.p99() < roundTripP99)
	return nil
}

func createIDOf(frame []byte) string {
	id, _ := createID(frame)
	return id
}

func fmtMS(v float64) string    { return fmt.Sprintf("%.3f ms", v) }
func fmtRatio(v float64) string { return fmt.Sprintf("%.2f", v) }
