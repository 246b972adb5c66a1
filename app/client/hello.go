package client

import (
	"github.com/formbridge/formbridge/app/wire"
)

// helloFrame is the hello request, the same bytes json.Marshal writes for
// it, put together by hand. encoding/json builds an encoder for each
// struct type by reflection the first time it meets it, and every page
// load starts afresh: that cost up to ~10 ms of the wasm's time between
// the page opening and the first form. Strings are written by
// wire.Quote, as encoding/json writes them.
func helloFrame(token string, info wire.Implementation) []byte {
	s := `{"jsonrpc":"` + wire.Version + `","id":` + helloID + `,"method":"` + wire.MethodHello + `","params":{"token":` + wire.Quote(token) +
		`,"clientInfo":{"name":` + wire.Quote(info.Name)
	if info.Title != "" {
		s += `,"title":` + wire.Quote(info.Title)
	}
	if info.Version != "" {
		s += `,"version":` + wire.Quote(info.Version)
	}
	return []byte(s + `},"capabilities":{"elicitation":{"form":{},"url":{}}}}}`)
}
