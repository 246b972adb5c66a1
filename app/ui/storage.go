package ui

import (
	"encoding/json"

	"github.com/maxence-charriere/go-app/v9/pkg/app"
)

// The widget keeps the link and the drafts in the tab's session storage
// (see draftKey), which it reads and writes itself: go-app's
// ctx.SessionStorage() wraps the same three calls in locks and tagged
// errors (2.5 KB of raw wasm, 1.5 KB gzipped; go-app keeps the rest of
// its storage for its own state store). A browser that blocks storage
// gets a stand-in (web/storage.js).

// tabStorage is the tab's session storage; tests put a map in its place.
var tabStorage interface {
	getItem(key string) string // "" when there is nothing under key
	setItem(key, value string)
	removeItem(key string)
	keys() []string
} = &sessionStorage{}

// sessionStorage is the browser's window.sessionStorage.
type sessionStorage struct{}

func (*sessionStorage) getItem(key string) string {
	if v := sessionJS().Call("getItem", key); v.Truthy() {
		return v.String()
	}
	return ""
}

func (*sessionStorage) setItem(key, value string) {
	defer func() { recover() }() // a full storage throws; the widget works on without
	sessionJS().Call("setItem", key, value)
}

func (*sessionStorage) removeItem(key string) { sessionJS().Call("removeItem", key) }

func (*sessionStorage) keys() (keys []string) {
	for s := sessionJS(); ; {
		k := s.Call("key", len(keys))
		if !k.Truthy() {
			return keys
		}
		keys = append(keys, k.String())
	}
}

func sessionJS() app.Value { return app.Window().Get("sessionStorage") }

// loadStored decodes what is kept under key into v, and reports whether
// there was something that decoded.
func loadStored(key string, v any) bool {
	s := tabStorage.getItem(key)
	return s != "" && json.Unmarshal([]byte(s), v) == nil
}

// store keeps v under key, as JSON.
func store(key string, v any) {
	if b, err := json.Marshal(v); err == nil {
		tabStorage.setItem(key, string(b))
	}
}
