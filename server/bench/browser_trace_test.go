package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
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
	lazy := func(pid, tid, fn int, us float64) traceEvent {
		e := task(pid, tid, "wasm.CompileLazy", us)
		e.Args = json.RawMessage(fmt.Sprintf(`{"func_index":%d}`, fn))
		return e
	}
	events := []traceEvent{
		name(1, 10, "CrRendererMain"),
		name(1, 11, "ThreadPoolForegroundWorker"),
		name(2, 10, "CrBrowserMain"), // same thread id in another process
		lazy(1, 10, 7, 1500),
		lazy(1, 10, 3, 500),
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
	want := v8Work{lazy: 2, lazyMS: 2, tierMS: 4, layoutMS: 1, busyMS: 30, firstCalls: []firstCall{{7, 1.5}, {3, 0.5}}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("summarizeTrace = %+v, want %+v", got, want)
	}
}

// onlyCompiledBy tells the two builds' functions apart by name, not by
// index (the builds number them differently), and sums by package.
func TestOnlyCompiledBy(t *testing.T) {
	widget := &wasmFunctions{imported: 1, bodies: []int{100, 200, 300, 400, 50, 60}, names: map[int]string{
		1: "runtime.main", 2: "encoding_json.__decodeState_.object", 3: "encoding_json.typeFields",
		4: "github.com_formbridge_formbridge_app_ui.__widget_.Render",
	}}
	// Functions without a name are told apart by index, and never match
	// the other build's unnamed ones.
	hello := &wasmFunctions{imported: 1, bodies: []int{100, 10, 5}, names: map[int]string{1: "main.main", 2: "runtime.main"}}
	load := v8Work{firstCalls: []firstCall{{1, 1}, {2, 2}, {4, 4}, {3, 3}, {5, 0.5}, {2, 9}, {6, 0.25}, {5, 8}}}
	other := v8Work{firstCalls: []firstCall{{2, 7}, {1, 1}, {3, 1}}}
	got := onlyCompiledBy(load, other, widget, hello)
	want := []packageCompiles{
		{pkg: "encoding_json", funcs: 2, bytes: 500, ms: 5},
		{pkg: "github.com_formbridge_formbridge_app_ui", funcs: 1, bytes: 400, ms: 4},
		{pkg: "(unnamed)", funcs: 2, bytes: 110, ms: 0.75},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("onlyCompiledBy = %+v, want %+v", got, want)
	}
}

// readWasmFunctions numbers functions as V8 does (imports first) and
// names them from the name section; sameCode matches a stripped build.
func TestReadWasmFunctions(t *testing.T) {
	section := func(id byte, body ...byte) []byte { return append([]byte{id, byte(len(body))}, body...) }
	imports := section(2, 1, 1, 'e', 1, 'f', 0, 0) // one function import, "e"."f", type 0
	code := section(10, 2, 2, 0, 0x0b, 3, 0, 0x01, 0x0b)
	names := section(0, append([]byte{4, 'n', 'a', 'm', 'e'}, 1, 9, 2, 1, 1, 'a', 2, 3, 'b', '.', 'c')...)
	module := append([]byte("\x00asm\x01\x00\x00\x00"), append(append(imports, code...), names...)...)
	stripped := append([]byte("\x00asm\x01\x00\x00\x00"), append(imports, code...)...)
	dir := t.TempDir()
	write := func(name string, b []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	f, err := named(write("names.wasm", module))
	if err != nil {
		t.Fatal(err)
	}
	if f.imported != 1 || !slices.Equal(f.bodies, []int{2, 3}) || f.name(1) != "a" || f.name(2) != "b.c" || f.size(2) != 3 || f.size(0) != 0 {
		t.Errorf("read %+v", f)
	}
	s, err := readWasmFunctions(write("app.wasm", stripped))
	if err != nil || !sameCode(f, s) {
		t.Errorf("stripped build: %+v, %v; want the same code", s, err)
	}
	if _, err := named(filepath.Join(dir, "app.wasm")); err == nil {
		t.Error("named accepted a module without names")
	}
	other := &wasmFunctions{imported: 1, bodies: []int{3, 2}}
	if sameCode(f, other) {
		t.Error("sameCode matched functions in another order")
	}
}
