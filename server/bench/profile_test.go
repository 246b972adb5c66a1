package main

import (
	"slices"
	"testing"
	"time"
)

// Frames the compiler inlined are part of the stack: a hub function
// inlined into its caller must still count as the hub's.
func TestParseTraces(t *testing.T) {
	out := []byte(`File: bench
Type: delay
Time: 2026-12-07 18:47:38 UTC
-----------+-------------------------------------------------------
     1.23s   sync.(*Mutex).Unlock (inline)
             github.com/formbridge/formbridge/server/hub.(*channel).unlock (inline)
             github.com/formbridge/formbridge/server/hub.(*Hub).Elicit
-----------+-------------------------------------------------------
      10ms   runtime.futex
             runtime.mcall
-----------+-------------------------------------------------------
`)
	traces, err := parseTraces(out)
	if err != nil {
		t.Fatal(err)
	}
	if len(traces) != 2 {
		t.Fatalf("%d traces, want 2: %+v", len(traces), traces)
	}
	want := []string{"sync.(*Mutex).Unlock", "github.com/formbridge/formbridge/server/hub.(*channel).unlock", "github.com/formbridge/formbridge/server/hub.(*Hub).Elicit"}
	if traces[0].d != 1230*time.Millisecond || !slices.Equal(traces[0].stack, want) {
		t.Errorf("first trace %v %q, want 1.23s %q", traces[0].d, traces[0].stack, want)
	}
	if traces[1].d != 10*time.Millisecond || !slices.Equal(traces[1].stack, []string{"runtime.futex", "runtime.mcall"}) {
		t.Errorf("second trace %v %q", traces[1].d, traces[1].stack)
	}
}

// go tool pprof writes a value of an hour or more in "hrs", as a lock
// that made two thousand callers wait would add up to: such a stack must
// be counted, not skipped as if it were the header.
func TestParseTracesHours(t *testing.T) {
	out := []byte(`File: bench
Type: delay
-----------+-------------------------------------------------------
   1.50hrs   sync.(*Mutex).Unlock
             github.com/formbridge/formbridge/server/hub.(*Hub).Elicit
-----------+-------------------------------------------------------
`)
	traces, err := parseTraces(out)
	if err != nil {
		t.Fatal(err)
	}
	if len(traces) != 1 || traces[0].d != 90*time.Minute {
		t.Fatalf("traces %+v, want one of 1h30m", traces)
	}
	if _, err := parseTraces([]byte("-----------+---\n  1.5days   main.f\n")); err == nil {
		t.Error("a value in an unknown unit was skipped without an error")
	}
}
