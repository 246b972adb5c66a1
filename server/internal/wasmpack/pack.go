// Package wasmpack rewrites a WebAssembly module's data section so that
// it compresses well.
//
// Go's wasm linker writes memory's initial contents as one data segment
// per stretch of bytes between runs of 8 or more zeros, which gives the
// smallest raw file: the widget's app.wasm had about 83,000 segments. But
// the file is only ever sent compressed, and there each segment's header
// (its memory offset, a number found nowhere else) costs more than the
// zeros it saves: brotli and gzip write a run of zeros in a few bits.
// Pack joins segments separated by short runs of zeros, writing the zeros
// out, so memory starts with exactly the same bytes from a handful of
// segments (6 for the widget). Zeros are written only where no other
// segment writes, since segments apply in order and a later one
// overwrites an earlier. Nothing else in the module changes but the
// sections' size fields, written in their shortest form.
package wasmpack

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"os"
	"slices"
)

// MaxGap is the longest run of zeros Pack writes out to join two
// segments. Longer ones (the few between the linker's sections) stay
// gaps, so the raw file grows by the short runs only.
const MaxGap = 4096

const (
	sectionData      = 11
	sectionDataCount = 12

	opI32Const  = 0x41
	opGlobalGet = 0x23
	opEnd       = 0x0b
)

var magic = []byte{0x00, 'a', 's', 'm', 0x01, 0x00, 0x00, 0x00}

// segment is one data segment. Only an active segment of memory 0 at a
// constant offset written as kind 0 (all Go writes) is joined; any other
// is kept as its original bytes.
type segment struct {
	raw      []byte // the whole encoded segment, while it is kept as is
	memory0  bool   // active, into memory 0, at an offset known here
	joinable bool
	offset   uint32
	data     []byte
}

func (s *segment) end() uint64 { return uint64(s.offset) + uint64(len(s.data)) }

// Pack returns module with its data segments joined across runs of at
// most maxGap zeros (MaxGap when maxGap <= 0). Every other section's
// contents are copied as they are.
func Pack(module []byte, maxGap int) ([]byte, error) {
	if maxGap <= 0 {
		maxGap = MaxGap
	}
	if !bytes.HasPrefix(module, magic) {
		return nil, errors.New("not a WebAssembly module (version 1)")
	}
	type section struct {
		id   byte
		body []byte
	}
	var sections []section
	for r := (reader{b: module, at: len(magic)}); !r.done(); {
		id, err := r.byte()
		if err != nil {
			return nil, err
		}
		size, err := r.u32()
		if err != nil {
			return nil, fmt.Errorf("section %d: %w", id, err)
		}
		body, err := r.bytes(int(size))
		if err != nil {
			return nil, fmt.Errorf("section %d: %w", id, err)
		}
		if id == sectionDataCount {
			// Only a module whose code names segments by index
			// (memory.init, data.drop) needs this section, and joining
			// segments would renumber them. Go's linker writes none.
			return nil, errors.New("the module names its data segments by index (it has a data count section): joining them would renumber them")
		}
		sections = append(sections, section{id, body})
	}
	seen := false
	for i, s := range sections {
		if s.id != sectionData {
			continue
		}
		if seen {
			return nil, errors.New("two data sections")
		}
		seen = true
		segs, err := readSegments(s.body)
		if err != nil {
			return nil, fmt.Errorf("data section: %w", err)
		}
		sections[i].body = writeSegments(join(segs, maxGap))
	}
	out := slices.Clone(module[:len(magic)])
	for _, s := range sections {
		out = append(out, s.id)
		out = appendU32(out, uint32(len(s.body)))
		out = append(out, s.body...)
	}
	return out, nil
}

// PackFile writes the module in the file in, packed, to the file out.
func PackFile(in, out string) error {
	module, err := os.ReadFile(in)
	if err != nil {
		return err
	}
	packed, err := Pack(module, 0)
	if err != nil {
		return fmt.Errorf("%s: %w", in, err)
	}
	return os.WriteFile(out, packed, 0o644)
}

func readSegments(body []byte) ([]segment, error) {
	r := reader{b: body}
	n, err := r.u32()
	if err != nil {
		return nil, err
	}
	segs := make([]segment, 0, min(int(n), len(body)))
	for i := range n {
		start := r.at
		flag, err := r.u32()
		if err != nil {
			return nil, fmt.Errorf("segment %d: %w", i, err)
		}
		s := segment{}
		switch flag {
		case 0: // active, memory 0, offset expression
			s.memory0 = true
		case 1: // passive
		case 2: // active, memory index, offset expression
			memory, err := r.u32()
			if err != nil {
				return nil, fmt.Errorf("segment %d: %w", i, err)
			}
			s.memory0 = memory == 0
		default:
			return nil, fmt.Errorf("segment %d: unknown kind %d", i, flag)
		}
		if flag != 1 {
			var constant bool
			if s.offset, constant, err = r.offsetExpr(); err != nil {
				return nil, fmt.Errorf("segment %d: %w", i, err)
			}
			if s.memory0 && !constant {
				// Which zeros no segment writes cannot be told.
				return nil, fmt.Errorf("segment %d: its address is known only when the module starts (global.get)", i)
			}
		}
		s.joinable = flag == 0 // memory 0, at an offset known (else refused above)
		size, err := r.u32()
		if err != nil {
			return nil, fmt.Errorf("segment %d: %w", i, err)
		}
		if s.data, err = r.bytes(int(size)); err != nil {
			return nil, fmt.Errorf("segment %d: %w", i, err)
		}
		s.raw = body[start:r.at]
		segs = append(segs, s)
	}
	if !r.done() {
		return nil, fmt.Errorf("%d bytes after the last segment", len(body)-r.at)
	}
	return segs, nil
}

// join merges each joinable segment into the one before it when only a
// short run of memory lies between them. Segments are applied in order
// and a later one overwrites an earlier, so a run is written out as
// zeros only when no other segment writes any of it.
func join(segs []segment, maxGap int) []segment {
	var spans [][2]uint64 // what each segment of memory 0 writes: [start, end)
	for _, s := range segs {
		if s.memory0 && len(s.data) > 0 {
			spans = append(spans, [2]uint64{uint64(s.offset), s.end()})
		}
	}
	slices.SortFunc(spans, func(a, b [2]uint64) int { return cmp.Compare(a[0], b[0]) })
	reach := make([]uint64, len(spans)) // the furthest end of spans[:i+1]
	for i, s := range spans {
		reach[i] = s[1]
		if i > 0 {
			reach[i] = max(reach[i], reach[i-1])
		}
	}
	// written reports whether a segment writes any of [from, to).
	written := func(from, to uint64) bool {
		starting, _ := slices.BinarySearchFunc(spans, to, func(s [2]uint64, at uint64) int {
			return cmp.Compare(s[0], at)
		})
		return starting > 0 && reach[starting-1] > from
	}

	out := make([]segment, 0, len(segs))
	for _, s := range segs {
		if n := len(out); n > 0 && s.joinable && out[n-1].joinable {
			prev := &out[n-1]
			from, to := prev.end(), uint64(s.offset)
			if to >= from && to-from <= uint64(maxGap) && !written(from, to) {
				// reader.bytes caps a segment's data at its length, so the
				// first append copies it out of the module; later ones
				// grow the copy in place.
				prev.raw = nil
				prev.data = append(prev.data, make([]byte, to-from)...)
				prev.data = append(prev.data, s.data...)
				continue
			}
		}
		out = append(out, s)
	}
	return out
}

func writeSegments(segs []segment) []byte {
	var b []byte
	b = appendU32(b, uint32(len(segs)))
	for _, s := range segs {
		if s.raw != nil {
			b = append(b, s.raw...)
			continue
		}
		b = append(b, 0, opI32Const)
		b = appendI32(b, int32(s.offset))
		b = append(b, opEnd)
		b = appendU32(b, uint32(len(s.data)))
		b = append(b, s.data...)
	}
	return b
}
