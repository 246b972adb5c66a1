package main

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
)

// wasmFunctions are the functions a wasm module defines: the size of each
// body and, in a build without -s (which keeps the "name" section), each
// function's name by its index, which counts the imported functions
// first, as V8's traces do. go tool nm cannot read wasm.
type wasmFunctions struct {
	imported int            // imported functions: they come first in the index space
	bodies   []int          // size of each defined function's body
	names    map[int]string // by function index
}

// name returns the name of function idx, "" if the module gives none.
func (f *wasmFunctions) name(idx int) string { return f.names[idx] }

// size returns the body size of function idx, 0 for an imported one.
func (f *wasmFunctions) size(idx int) int {
	if i := idx - f.imported; i >= 0 && i < len(f.bodies) {
		return f.bodies[i]
	}
	return 0
}

// readWasmFunctions reads the functions of the wasm module at path; a
// stripped build gives no names.
func readWasmFunctions(path string) (*wasmFunctions, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	if len(b) < 8 || !bytes.Equal(b[:4], []byte("\x00asm")) {
		return nil, errors.New(path + " is not a wasm module")
	}
	f := &wasmFunctions{names: map[int]string{}}
	r := &wasmReader{b: b[8:]}
	for r.more() {
		id := r.byte()
		size := int(r.uleb())
		sec := &wasmReader{b: r.take(size)}
		switch id {
		case 2: // import section: count the imported functions
			for n := sec.uleb(); n > 0; n-- {
				sec.name()
				sec.name()
				switch kind := sec.byte(); kind {
				case 0:
					sec.uleb()
					f.imported++
				case 1: // table
					sec.byte()
					sec.limits()
				case 2: // memory
					sec.limits()
				case 3: // global
					sec.byte()
					sec.byte()
				}
			}
		case 10: // code section
			for n := sec.uleb(); n > 0; n-- {
				sz := int(sec.uleb())
				sec.take(sz)
				f.bodies = append(f.bodies, sz)
			}
		case 0: // custom section
			if sec.name() != "name" {
				continue
			}
			for sec.more() {
				sub := sec.byte()
				sub_ := &wasmReader{b: sec.take(int(sec.uleb()))}
				if sub != 1 { // function names
					continue
				}
				for n := sub_.uleb(); n > 0; n-- {
					idx := int(sub_.uleb())
					f.names[idx] = sub_.name()
				}
			}
		}
		if r.err != nil || sec.err != nil {
			return nil, fmt.Errorf("%s: malformed wasm section %d", path, id)
		}
	}
	return f, nil
}

// named reads the wasm module at path, which must have a name section.
func named(path string) (*wasmFunctions, error) {
	f, err := readWasmFunctions(path)
	if err == nil && len(f.names) == 0 {
		err = errors.New(path + " has no name section (built with -s?)")
	}
	return f, err
}

// sameCode reports whether two modules define the same functions in the
// same order, by their bodies' sizes: a stripped and an unstripped build
// of the same code do, and then one's names are the other's.
func sameCode(a, b *wasmFunctions) bool {
	return a.imported == b.imported && slices.Equal(a.bodies, b.bodies)
}

// codeByPackage sums the size of each function's body in the wasm module
// at path by the Go package it belongs to: the code section is where a
// package's weight shows; the data section holds strings and type data
// that cannot be told apart by package.
func codeByPackage(path string) (map[string]int, error) {
	f, err := named(path)
	if err != nil {
		return nil, err
	}
	sizes := map[string]int{}
	for i, sz := range f.bodies {
		sizes[symbolPackage(f.name(f.imported+i))] += sz
	}
	return sizes, nil
}

// symbolPackage returns the package part of a symbol as Go's wasm linker
// names it: "/" and "-" become "_" ("github.com_coder_websocket.Dial",
// "context.__timerCtx_.Done", "type_.eq.main.x"), so a package whose
// path starts with a host name ends at the first "." after that host.
func symbolPackage(sym string) string {
	sym = strings.TrimPrefix(sym, "type_.eq.")
	start := 0
	if host, _, ok := strings.Cut(sym, "_"); ok {
		if i := strings.LastIndexByte(host, '.'); i > 0 && hostTLD[host[i+1:]] {
			start = len(host) + 1
		}
	}
	dot := strings.IndexByte(sym[start:], '.')
	if dot < 0 {
		return sym
	}
	return sym[:start+dot]
}

// hostTLD are the top-level domains of the module hosts a wasm links.
var hostTLD = map[string]bool{"com": true, "org": true, "net": true, "io": true, "dev": true, "in": true}

// wasmReader reads the LEB128 integers and names of the wasm binary
// format; the first error sticks and later reads return zeros.
type wasmReader struct {
	b   []byte
	err error
}

func (r *wasmReader) more() bool { return r.err == nil && len(r.b) > 0 }

func (r *wasmReader) take(n int) []byte {
	if r.err != nil || n < 0 || n > len(r.b) {
		r.err = errors.New("short read")
		return nil
	}
	v := r.b[:n]
	r.b = r.b[n:]
	return v
}

func (r *wasmReader) byte() byte {
	v := r.take(1)
	if v == nil {
		return 0
	}
	return v[0]
}

func (r *wasmReader) uleb() uint64 {
	v, n := binary.Uvarint(r.b)
	if n <= 0 {
		r.err = errors.New("bad LEB128")
		return 0
	}
	r.b = r.b[n:]
	return v
}

func (r *wasmReader) name() string { return string(r.take(int(r.uleb()))) }

func (r *wasmReader) limits() {
	if r.byte()&1 != 0 {
		r.uleb()
	}
	r.uleb()
}
