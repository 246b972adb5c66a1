// Package wiretest holds helpers for tests of formbridge.v1 frames, on
// either side of the connection.
package wiretest

import (
	"bytes"
	"encoding/json"
	"reflect"
)

// SameJSON reports whether a and b are the same JSON value, numbers
// compared as written: a peer may echo a value re-encoded (compacted,
// members reordered, <, > and & escaped). Bytes that are not JSON are
// the same as nothing.
func SameJSON(a, b []byte) bool {
	var va, vb any
	da, db := json.NewDecoder(bytes.NewReader(a)), json.NewDecoder(bytes.NewReader(b))
	da.UseNumber()
	db.UseNumber()
	return da.Decode(&va) == nil && db.Decode(&vb) == nil && reflect.DeepEqual(va, vb)
}
