package main

import (
	"encoding/json"
	"testing"
)

// summarizeTrace counts only the renderers' main threads for the page's
// own work, and only other threads for the optimizing compiles.
func TestSummarizeTrace(t *testing.T) {
	name := func(pid, tid int, n string) traceEvent {
		return traceEvent{Name: "thread_name", Ph: "M", Pid: pid, Tid: tid, Args: json.RawMessage(`{"name":"` + n + `"}`)}
	}
	task := func(pid, tid int, n string, us float64) traceEvent {
		return traceEvent{Name: n, Ph: "X", Pid: pid, Tid: tid, Dur: us}
	}
	events := []traceEvent{
		name(1, 10, "CrRendererMain"),
		name(1, 11, "ThreadPoolForegroundWorker"),
		name(2, 10, "CrBrowserMain"), // same thread id in another process
		task(1, 10, "wasm.CompileLazy", 1500),
		task(1, 10, "wasm.CompileLazy", 500),
		task(1, 11, "wasm.CompileLazy", 9000), // not the page's thread
		task(1, 11, "wasm.TopTierCompilation", 4000),
		task(1, 10, "wasm.TopTierCompilation", 7000), // counted only elsewhere
		task(1, 10, "Layout", 250),
		task(1, 10, "UpdateLayoutTree", 750),
		task(1, 10, "ThreadControllerImpl::RunTask", 30000),
		task(2, 10, "ThreadControllerImpl::RunTask", 99000),
		{Name: "wasm.CompileLazy", Ph: "B", Pid: 1, Tid: 10, Dur: 8000}, // not a complete event
	}
	got := summarizeTrace(events)
	want := v8Work{lazy: 2, lazyMS: 2, tierMS: 4, layoutMS: 1, busyMS: 30}
	if got != want {
		t.Errorf("summarizeTrace = %+v, want %+v", got, want)
	}
}
