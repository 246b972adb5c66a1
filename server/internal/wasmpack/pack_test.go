package wasmpack

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// module assembles a module of the given sections after the header.
func module(sections ...[]byte) []byte {
	m := bytes.Clone(magic)
	for _, s := range sections {
		m = append(m, s...)
	}
	return m
}

func section(id byte, body []byte) []byte {
	return append(appendU32([]byte{id}, uint32(len(body))), body...)
}

// active is an active segment of memory 0 at a constant offset.
func active(offset int32, data []byte) []byte {
	b := appendI32([]byte{0, opI32Const}, offset)
	b = append(b, opEnd)
	return append(appendU32(b, uint32(len(data))), data...)
}

func dataSection(segs ...[]byte) []byte {
	body := appendU32(nil, uint32(len(segs)))
	for _, s := range segs {
		body = append(body, s...)
	}
	return section(sectionData, body)
}

// activeIn is an active segment of another memory (kind 2).
func activeIn(memory uint32, offset int32, data []byte) []byte {
	b := appendU32([]byte{2}, memory)
	b = appendI32(append(b, opI32Const), offset)
	b = append(b, opEnd)
	return append(appendU32(b, uint32(len(data))), data...)
}

// memoryImage is memory 0 as a module's segments leave it at start,
// applied in order as the engine does: the bytes from the lowest address
// any segment writes (base) to the highest. It also returns the segments.
func memoryImage(t *testing.T, m []byte) (base uint64, mem []byte, all []segment) {
	t.Helper()
	r := reader{b: m, at: len(magic)}
	for !r.done() {
		id, _ := r.byte()
		size, _ := r.u32()
		body, err := r.bytes(int(size))
		if err != nil {
			t.Fatal(err)
		}
		if id == sectionData {
			if all, err = readSegments(body); err != nil {
				t.Fatal(err)
			}
		}
	}
	lo, hi := uint64(1<<32), uint64(0)
	for _, s := range all {
		if s.memory0 && len(s.data) > 0 {
			lo, hi = min(lo, uint64(s.offset)), max(hi, s.end())
		}
	}
	if hi == 0 {
		return 0, nil, all
	}
	mem = make([]byte, hi-lo)
	for _, s := range all {
		if s.memory0 {
			copy(mem[uint64(s.offset)-lo:], s.data)
		}
	}
	return lo, mem, all
}

// samePacked packs in and fails unless memory 0 starts the same; it
// returns the packed module's segments.
func samePacked(t *testing.T, in []byte, maxGap int) []segment {
	t.Helper()
	out, err := Pack(in, maxGap)
	if err != nil {
		t.Fatal(err)
	}
	baseIn, memIn, _ := memoryImage(t, in)
	baseOut, memOut, segs := memoryImage(t, out)
	if baseIn != baseOut {
		t.Errorf("memory starts at %d after packing, %d before", baseOut, baseIn)
	}
	if at := firstDifference(memIn, memOut); at >= 0 {
		t.Errorf("memory differs after packing, first at address %d", baseIn+uint64(at))
	}
	return segs
}

// firstDifference is the first index where two images differ, or -1.
func firstDifference(a, b []byte) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	if len(a) != len(b) {
		return min(len(a), len(b))
	}
	return -1
}

// describe writes segments for comparison: a joinable one's bytes, zeros
// as dots, any other as raw:<its encoding>.
func describe(segs []segment) string {
	var d []string
	for _, s := range segs {
		if s.joinable {
			d = append(d, strings.ReplaceAll(string(s.data), "\x00", "."))
		} else {
			d = append(d, "raw:"+string(s.raw))
		}
	}
	return strings.Join(d, "|")
}

func TestPackJoinsSegmentsAndKeepsMemory(t *testing.T) {
	typeSection := section(1, []byte{1, 0x60, 0, 0}) // one type: func()
	in := module(
		typeSection,
		dataSection(
			active(104, []byte("W")),    // written first, into the zeros between abc and def
			active(100, []byte("abc")),  // before W's end: a segment of its own
			active(110, []byte("def")),  // not joined: its zeros would overwrite W
			active(120, []byte("gh")),   // joined to def
			active(5000, []byte("far")), // past this test's gap limit: apart
			active(20, []byte("early")), // out of order: apart
			[]byte{1, 3, 'p', 'a', 's'}, // passive: kept as is
			activeIn(1, 0, []byte("m")), // another memory: kept as is
		),
		section(0, []byte("\x04name")), // a custom section after it, copied as is
	)
	segs := samePacked(t, in, 64)
	out, _ := Pack(in, 64)
	if !bytes.HasPrefix(out, module(typeSection)) || !bytes.HasSuffix(out, section(0, []byte("\x04name"))) {
		t.Error("the sections around the data section changed")
	}
	want := "W|abc|def.......gh|far|early|raw:\x01\x03pas|raw:" + string(activeIn(1, 0, []byte("m")))
	if got := describe(segs); got != want {
		t.Errorf("segments after packing:\n got %q\nwant %q", got, want)
	}
}

// TestPackKeepsWhatOthersWrite: zeros are never written over bytes an
// earlier segment wrote, whatever its kind or length.
func TestPackKeepsWhatOthersWrite(t *testing.T) {
	for name, tc := range map[string]struct {
		first []byte
		want  string
	}{
		"the gap's first byte":          {active(103, []byte("E")), "E|abc|def"},
		"the gap's last byte":           {active(109, []byte("E")), "E|abc|def"},
		"a longer segment over the gap": {active(95, []byte("0123456789")), "0123456789|abc|def"},
		"a kind 2 segment of memory 0":  {activeIn(0, 105, []byte("X")), "raw:" + string(activeIn(0, 105, []byte("X"))) + "|abc|def"},
		"a kind 2 segment of memory 1":  {activeIn(1, 105, []byte("X")), "raw:" + string(activeIn(1, 105, []byte("X"))) + "|abc.......def"},
		"a segment before the gap":      {active(90, []byte("E")), "E.........abc.......def"},
		"a segment just after the gap":  {active(113, []byte("E")), "E|abc.......def"},
	} {
		t.Run(name, func(t *testing.T) {
			in := module(dataSection(tc.first, active(100, []byte("abc")), active(110, []byte("def"))))
			if got := describe(samePacked(t, in, 64)); got != tc.want {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
}

// TestPackHighAddresses: an i32.const offset is signed; addresses from
// 2^31 up are written as negative numbers.
func TestPackHighAddresses(t *testing.T) {
	in := module(dataSection(active(-16, []byte("ab")), active(-8, []byte("cd")), active(-2, []byte("ef"))))
	segs := samePacked(t, in, 0)
	if got := describe(segs); got != "ab......cd....ef" {
		t.Errorf("got %q", got)
	}
	if len(segs) == 1 && segs[0].offset != 1<<32-16 {
		t.Errorf("joined segment at %d, want %d", segs[0].offset, uint32(1<<32-16))
	}
}

// TestPackIsLinear: joining many segments copies each byte a bounded
// number of times (it once copied the joined bytes at every join: 34 s
// for the widget).
func TestPackIsLinear(t *testing.T) {
	var segs [][]byte
	for i := range 4000 {
		segs = append(segs, active(int32(i*100), []byte{1}))
	}
	in := module(dataSection(segs...))
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	out, err := Pack(in, 0)
	runtime.ReadMemStats(&after)
	if err != nil {
		t.Fatal(err)
	}
	if allocated := after.TotalAlloc - before.TotalAlloc; allocated > 20*uint64(len(out)) {
		t.Errorf("packing a %d-byte module allocated %d bytes", len(out), allocated)
	}
}

func TestPackRefusesBadModules(t *testing.T) {
	good := dataSection(active(8, []byte("abc")))
	for name, in := range map[string][]byte{
		"not wasm":                 []byte("\x7fELF\x02\x01\x01\x00"),
		"section past end":         module(good[:len(good)-1]),
		"segment past end":         module(section(sectionData, []byte{1, 0, opI32Const, 8, opEnd, 9, 'a'})),
		"bytes after":              module(section(sectionData, append(bytes.Clone(good[2:]), 0))),
		"unknown kind":             module(section(sectionData, []byte{1, 7})),
		"computed offset":          module(section(sectionData, []byte{1, 0, opI32Const, 8, opI32Const, 1, 0x6a, opEnd, 0})),
		"overlong size":            module([]byte{sectionData, 0x80, 0x80, 0x80, 0x80, 0x80, 0x01}),
		"offset out of i32":        module(section(sectionData, []byte{1, 0, opI32Const, 0x80, 0x80, 0x80, 0x80, 0x10, opEnd, 0})),
		"truncated header":         magic[:5],
		"size past 32 bits":        module([]byte{sectionData, 0xff, 0xff, 0xff, 0xff, 0x1f}),
		"two data sections":        module(good, good),
		"address unknown":          module(section(sectionData, []byte{1, 0, opGlobalGet, 0, opEnd, 0})),
		"address unknown (kind 2)": module(section(sectionData, []byte{1, 2, 0, opGlobalGet, 0, opEnd, 0})),
		"segments by index":        module(section(sectionDataCount, []byte{1}), good),
		"truncated sections":       module([]byte{sectionData}),
	} {
		t.Run(name, func(t *testing.T) {
			if out, err := Pack(in, 0); err == nil {
				t.Errorf("packed without an error: %x", out)
			}
		})
	}
}

func TestPackEmptyModule(t *testing.T) {
	out, err := Pack(module(), 0)
	if err != nil || !bytes.Equal(out, magic) {
		t.Errorf("got %x, %v; want the header alone", out, err)
	}
}

// TestPackedGoProgramRuns packs a Go program built for js/wasm and runs
// it under Node with Go's own wasm_exec.js: the program checks a table
// of data (in the segments) and prints it.
func TestPackedGoProgramRuns(t *testing.T) {
	node, err := exec.LookPath("node")
	if err != nil {
		if os.Getenv("FORMBRIDGE_E2E") == "require" {
			t.Fatal("no node on PATH to run the packed program")
		}
		t.Skip("no node on PATH")
	}
	dir := t.TempDir()
	src := `package main

import "fmt"

var table = [...]string{"zero", "", "", "", "", "", "", "", "", "", "ten"}
var counts = map[string]int{"a": 1, "b": 0, "c": 3}

func main() { fmt.Println(table[0], table[10], len(table), counts["a"]+counts["c"]) }
`
	if err := os.WriteFile(filepath.Join(dir, "main.go"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "go.mod"), []byte("module packtest\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	build := exec.Command("go", "build", "-trimpath", "-ldflags=-s -w", "-o", "plain.wasm", ".")
	build.Dir = dir
	build.Env = append(os.Environ(), "GOOS=js", "GOARCH=wasm", "GOFLAGS=")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	plain, err := os.ReadFile(filepath.Join(dir, "plain.wasm"))
	if err != nil {
		t.Fatal(err)
	}
	segsPacked := samePacked(t, plain, 0)
	_, _, segsPlain := memoryImage(t, plain)
	if len(segsPacked)*10 > len(segsPlain) {
		t.Errorf("%d segments packed into %d: expected far fewer", len(segsPlain), len(segsPacked))
	}
	packed, err := Pack(plain, 0)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "packed.wasm"), packed, 0o644); err != nil {
		t.Fatal(err)
	}
	execJS := filepath.Join(runtime.GOROOT(), "lib", "wasm", "wasm_exec_node.js")
	run := exec.Command(node, execJS, "packed.wasm")
	run.Dir = dir
	out, err := run.CombinedOutput()
	if err != nil {
		t.Fatalf("running the packed program: %v\n%s", err, out)
	}
	if got, want := strings.TrimSpace(string(out)), "zero ten 11 4"; got != want {
		t.Errorf("the packed program printed %q, want %q", got, want)
	}
}
