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

// image is memory as the module's constant segments leave it at start,
// applied in order as the engine does, and the segments it was read from.
func image(t *testing.T, m []byte) ([]byte, []segment) {
	t.Helper()
	r := reader{b: m, at: len(magic)}
	var mem []byte
	var all []segment
	for !r.done() {
		id, _ := r.byte()
		size, _ := r.u32()
		body, err := r.bytes(int(size))
		if err != nil {
			t.Fatal(err)
		}
		if id != sectionData {
			continue
		}
		segs, err := readSegments(body)
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range segs {
			if !s.joinable {
				continue
			}
			if end := int(s.end()); end > len(mem) {
				mem = append(mem, make([]byte, end-len(mem))...)
			}
			copy(mem[s.offset:], s.data)
		}
		all = append(all, segs...)
	}
	return bytes.TrimRight(mem, "\x00"), all
}

// firstDifference is the first address where two images differ, or -1.
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

func TestPackJoinsSegmentsAndKeepsMemory(t *testing.T) {
	typeSection := section(1, []byte{1, 0x60, 0, 0}) // one type: func()
	in := module(
		typeSection,
		dataSection(
			active(104, []byte("W")),                         // written first, into the zeros between abc and def
			active(100, []byte("abc")),                       // before W's end: a segment of its own
			active(110, []byte("def")),                       // not joined: its zeros would overwrite W
			active(120, []byte("gh")),                        // joined to def
			active(5000, []byte("far")),                      // past this test's gap limit: apart
			active(20, []byte("early")),                      // out of order: apart
			[]byte{1, 3, 'p', 'a', 's'},                      // passive: kept as is
			append([]byte{0, opGlobalGet, 0, opEnd, 1}, 'g'), // offset not known here
		),
		section(0, []byte("\x04name")), // a custom section after it, copied as is
	)
	out, err := Pack(in, 64)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.HasPrefix(out, module(typeSection)) || !bytes.HasSuffix(out, section(0, []byte("\x04name"))) {
		t.Error("the sections around the data section changed")
	}
	memIn, segsIn := image(t, in)
	memOut, segsOut := image(t, out)
	if at := firstDifference(memIn, memOut); at >= 0 {
		t.Errorf("memory differs after packing, first at address %d", at)
	}
	var got []string
	for _, s := range segsOut {
		switch {
		case s.joinable:
			got = append(got, strings.ReplaceAll(string(s.data), "\x00", "."))
		default:
			got = append(got, "raw:"+string(s.raw))
		}
	}
	want := []string{"W", "abc", "def.......gh", "far", "early", "raw:\x01\x03pas", "raw:\x00\x23\x00\x0b\x01g"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("segments after packing:\n got %q\nwant %q", got, want)
	}
	if len(segsIn) != 8 {
		t.Fatalf("read %d segments of the input, want 8", len(segsIn))
	}
}

func TestPackRefusesBadModules(t *testing.T) {
	good := dataSection(active(8, []byte("abc")))
	for name, in := range map[string][]byte{
		"not wasm":           []byte("\x7fELF\x02\x01\x01\x00"),
		"section past end":   module(good[:len(good)-1]),
		"segment past end":   module(section(sectionData, []byte{1, 0, opI32Const, 8, opEnd, 9, 'a'})),
		"bytes after":        module(section(sectionData, append(bytes.Clone(good[2:]), 0))),
		"unknown kind":       module(section(sectionData, []byte{1, 7})),
		"computed offset":    module(section(sectionData, []byte{1, 0, opI32Const, 8, opI32Const, 1, 0x6a, opEnd, 0})),
		"overlong size":      module([]byte{sectionData, 0x80, 0x80, 0x80, 0x80, 0x80, 0x01}),
		"offset out of i32":  module(section(sectionData, []byte{1, 0, opI32Const, 0x80, 0x80, 0x80, 0x80, 0x10, opEnd, 0})),
		"truncated header":   magic[:5],
		"segments by index":  module(section(sectionDataCount, []byte{1}), good),
		"truncated sections": module([]byte{sectionData}),
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
	packed, err := Pack(plain, 0)
	if err != nil {
		t.Fatal(err)
	}
	memPlain, segsPlain := image(t, plain)
	memPacked, segsPacked := image(t, packed)
	if at := firstDifference(memPlain, memPacked); at >= 0 {
		t.Fatalf("memory differs after packing, first at address %d", at)
	}
	if len(segsPacked)*10 > len(segsPlain) {
		t.Errorf("%d segments packed into %d: expected far fewer", len(segsPlain), len(segsPacked))
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
