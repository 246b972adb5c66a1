package wasmpack

import (
	"math"
	"testing"
)

func TestLEBRoundTrip(t *testing.T) {
	for _, v := range []int32{0, 1, 63, 64, -1, -64, -65, -100, 127, 128, 8191, -8193, math.MaxInt32, math.MinInt32} {
		r := reader{b: appendI32(nil, v)}
		if got, err := r.i32(); err != nil || got != v || !r.done() {
			t.Errorf("i32 %d: read back %d, %v", v, got, err)
		}
	}
	for _, v := range []uint32{0, 127, 128, 1 << 21, math.MaxUint32} {
		r := reader{b: appendU32(nil, v)}
		if got, err := r.u32(); err != nil || got != v || !r.done() {
			t.Errorf("u32 %d: read back %d, %v", v, got, err)
		}
	}
}

func TestLEBRefusesOutOfRange(t *testing.T) {
	for name, b := range map[string][]byte{
		"u32 past 32 bits": {0xff, 0xff, 0xff, 0xff, 0x1f},
		"u32 past 5 bytes": {0x80, 0x80, 0x80, 0x80, 0x80, 0x00},
		"u32 truncated":    {0x80},
		"i32 past 32 bits": {0x80, 0x80, 0x80, 0x80, 0x10},
		"i32 below -2^31":  {0x80, 0x80, 0x80, 0x80, 0x6f},
		"i32 past 5 bytes": {0xff, 0xff, 0xff, 0xff, 0xff, 0x7f},
	} {
		r := reader{b: b}
		var err error
		if name[:3] == "u32" {
			_, err = r.u32()
		} else {
			_, err = r.i32()
		}
		if err == nil {
			t.Errorf("%s: read without an error", name)
		}
	}
}
