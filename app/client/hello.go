package client

import (
	"encoding/json"

	"github.com/formbridge/formbridge/app/wire"
)

// helloFrame is the hello request, the same bytes json.Marshal writes for
// it, put together by hand. encoding/json builds an encoder for each
// struct type by reflection the first time it meets it, and every page
// load starts afresh: that cost up to ~10 ms of the wasm's time between
// the page opening and the first form. Strings go through json.Marshal,
// which has no such cost for them, so the escaping is encoding/json's.
func helloFrame(token string, info wire.Implementation) []byte {
	s := `{"jsonrpc":"` + wire.Version + `","id":` + helloID + `,"method":"` + wire.MethodHello + `","params":{"token":` + quote(token) +
		`,"clientInfo":{"name":` + quote(info.Name)
	if info.Title != "" {
		s += `,"title":` + quote(info.Title)
	}
	if info.Version != "" {
		s += `,"version":` + quote(info.Version)
	}
	return []byte(s + `},"capabilities":{"elicitation":{"form":{},"url":{}}}}}`)
}

// quote writes s as a JSON string, as encoding/json does.
func quote(s string) string {
	b, _ := json.Marshal(s) // a string always encodes
	return string(b)
}
