package mcpbridge

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// testServerBin is the internal/testserver program, built once for the
// tests that run an upstream as a real subprocess.
var testServerBin string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "mcpbridge-test")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	testServerBin = filepath.Join(dir, "testserver")
	build := exec.Command("go", "build", "-o", testServerBin, "./internal/testserver")
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "building the test server failed:", err)
		os.RemoveAll(dir)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}
