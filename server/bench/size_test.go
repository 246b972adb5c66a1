package main

import (
	"context"
	"os"
	"path/filepath"
	"testing"
)

// benchSize sets no target on a build it cannot weigh: a missing
// compressed file is not a widget of 0 bytes.
func TestSizeMissingBuild(t *testing.T) {
	dir := t.TempDir()
	for _, f := range []string{"hello/app.wasm", "hello/app.wasm.gz", "hello/app.wasm.br", "widget/app.wasm", "widget/app.wasm.gz"} {
		p := filepath.Join(dir, f)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, make([]byte, 1000), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	built = builds{}
	t.Cleanup(func() { built = builds{} })
	c := &config{runs: 1, scale: 1, reuse: dir}
	r := newReport(c)
	err := benchSize(context.Background(), c, r)
	if err == nil {
		t.Error("benchSize weighed a widget without its app.wasm.br")
	}
	for _, tg := range r.targets {
		t.Errorf("target %q set from a missing file: %s, met %v", tg.what, tg.got, tg.met)
	}
}
