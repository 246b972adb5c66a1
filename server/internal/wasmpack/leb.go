package wasmpack

import (
	"errors"
	"fmt"
)

// reader reads the module's LEB128 numbers and byte strings, failing
// on a truncated or overlong one rather than reading past its input.
type reader struct {
	b  []byte
	at int
}

var errTruncated = errors.New("truncated")

func (r *reader) done() bool { return r.at >= len(r.b) }

func (r *reader) byte() (byte, error) {
	if r.done() {
		return 0, errTruncated
	}
	r.at++
	return r.b[r.at-1], nil
}

func (r *reader) bytes(n int) ([]byte, error) {
	if n < 0 || n > len(r.b)-r.at {
		return nil, errTruncated
	}
	r.at += n
	return r.b[r.at-n : r.at : r.at], nil
}

// leb reads the bytes of a LEB128 number of at most 5 bytes (32 bits):
// its 7-bit groups, low first, and how many bits they make.
func (r *reader) leb() (v uint64, bits int, err error) {
	for shift := 0; shift < 35; shift += 7 {
		c, err := r.byte()
		if err != nil {
			return 0, 0, err
		}
		v |= uint64(c&0x7f) << shift
		if c&0x80 == 0 {
			return v, shift + 7, nil
		}
	}
	return 0, 0, errors.New("number too long")
}

// u32 reads an unsigned LEB128 number of at most 32 bits.
func (r *reader) u32() (uint32, error) {
	v, _, err := r.leb()
	if err != nil {
		return 0, err
	}
	if v > 1<<32-1 {
		return 0, errors.New("number too large")
	}
	return uint32(v), nil
}

// i32 reads a signed LEB128 number of at most 32 bits.
func (r *reader) i32() (int32, error) {
	u, bits, err := r.leb()
	if err != nil {
		return 0, err
	}
	v := int64(u)
	if u&(1<<(bits-1)) != 0 {
		v |= -1 << bits // sign-extend
	}
	if v < -1<<31 || v > 1<<31-1 {
		return 0, errors.New("number too large")
	}
	return int32(v), nil
}

// offsetExpr reads a segment's offset expression: i32.const N (an
// address known here) or global.get N (one known only when the module is
// instantiated, so constant is false).
func (r *reader) offsetExpr() (offset uint32, constant bool, err error) {
	op, err := r.byte()
	if err != nil {
		return 0, false, err
	}
	switch op {
	case opI32Const:
		v, err := r.i32()
		if err != nil {
			return 0, false, err
		}
		offset, constant = uint32(v), true
	case opGlobalGet:
		if _, err := r.u32(); err != nil {
			return 0, false, err
		}
	default:
		return 0, false, fmt.Errorf("unsupported offset expression (opcode %#x)", op)
	}
	if end, err := r.byte(); err != nil || end != opEnd {
		return 0, false, errors.New("unsupported offset expression (not a single instruction)")
	}
	return offset, constant, nil
}

func appendU32(b []byte, v uint32) []byte {
	for v >= 0x80 {
		b = append(b, byte(v)|0x80)
		v >>= 7
	}
	return append(b, byte(v))
}

func appendI32(b []byte, v int32) []byte {
	x := int64(v)
	for {
		c := byte(x & 0x7f)
		x >>= 7
		if (x == 0 && c&0x40 == 0) || (x == -1 && c&0x40 != 0) {
			return append(b, c)
		}
		b = append(b, c|0x80)
	}
}
