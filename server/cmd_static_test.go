package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestStaticCommand runs `formbridge static` as a person would and checks
// the site lands in --out under --prefix, and what it prints next.
func TestStaticCommand(t *testing.T) {
	web := t.TempDir()
	for name, body := range map[string]string{"app.wasm": "\x00asm", "app.css": "", "embed.js": "", "icons/icon.svg": "<svg/>"} {
		p := filepath.Join(web, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	out := filepath.Join(t.TempDir(), "site")
	var stdout, stderr bytes.Buffer
	code := runMain(context.Background(), []string{"static", "--out", out, "--prefix", "approvals", "--web-dir", web}, &stdout, &stderr)
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	page, err := os.ReadFile(filepath.Join(out, "index.html"))
	if err != nil || !bytes.Contains(page, []byte(`src="/approvals/app.js"`)) {
		t.Errorf("index.html does not load /approvals/app.js (%v)", err)
	}
	if _, err := os.Stat(filepath.Join(out, "web", "app.wasm")); err != nil {
		t.Errorf("web/app.wasm not copied: %v", err)
	}
	// The command prints to the process's stderr; what it says:
	again := filepath.Join(t.TempDir(), "site")
	var said bytes.Buffer
	if err := writeStatic(again, "approvals", web, &said); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"static site is in " + again, "Serve that folder at /approvals/", "https://<your site>/approvals/#bridge="} {
		if !strings.Contains(said.String(), want) {
			t.Errorf("static says %q, not %q", said.String(), want)
		}
	}
	if err := writeStatic(filepath.Join(again, "index.html"), "", web, &said); err == nil {
		t.Error("a site written into a file: no error")
	}
}

func TestStaticCommandNeedsOut(t *testing.T) {
	var stdout, stderr bytes.Buffer
	if code := runMain(context.Background(), []string{"static"}, &stdout, &stderr); code != exitUsage {
		t.Errorf("exit %d without --out, want %d", code, exitUsage)
	}
	if !strings.Contains(stderr.String(), "--out is required") {
		t.Errorf("stderr %q does not say --out is required", stderr.String())
	}
}

func TestDisplayPrefix(t *testing.T) {
	for in, want := range map[string]string{"": "/", "/": "/", "approvals": "/approvals/", "/a/b": "/a/b/", "/a/": "/a/"} {
		if got := displayPrefix(in); got != want {
			t.Errorf("displayPrefix(%q) = %q, want %q", in, got, want)
		}
	}
}
