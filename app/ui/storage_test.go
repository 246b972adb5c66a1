package ui

import (
	"maps"
	"slices"
	"testing"
)

// mapStorage stands in for the tab's session storage in tests.
type mapStorage map[string]string

func (m mapStorage) getItem(key string) string { return m[key] }
func (m mapStorage) setItem(key, value string) { m[key] = value }
func (m mapStorage) removeItem(key string)     { delete(m, key) }
func (m mapStorage) keys() []string            { return slices.Collect(maps.Keys(m)) }

// useTestStorage gives the test an empty storage of its own for the tab's
// session storage. Tests that use it must not run in parallel.
func useTestStorage(t *testing.T) mapStorage {
	t.Helper()
	m := mapStorage{}
	before := tabStorage
	tabStorage = m
	t.Cleanup(func() { tabStorage = before })
	return m
}
