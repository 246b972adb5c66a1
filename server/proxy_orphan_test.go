package main

import (
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// A host stopping a stdio server does what the TypeScript SDK's
// StdioClientTransport.close does (Claude Desktop, VS Code, the MCP
// Inspector): end its stdin, wait 2 s, SIGTERM, wait 2 s, SIGKILL. The
// reference "everything" server does not exit when its stdin ends while
// it has a timer running: a question waiting for the person (its
// 10-minute request timeout), or toggle-simulated-logging and
// toggle-subscriber-updates (setInterval). "sleep" stands in for it
// here. formbridge proxy must not leave its server running once it is
// gone itself: each host restart would leave another one behind.
func TestProxyStopLeavesNoServerBehind(t *testing.T) {
	t.Run("stdin closed", func(t *testing.T) { testProxyStop(t, "stdin") })
	// A host or a service manager that sends SIGTERM first.
	t.Run("SIGTERM", func(t *testing.T) { testProxyStop(t, "SIGTERM") })
	// A host past its grace, or the OOM killer: the proxy cannot end
	// its server itself, so the system must (Linux only).
	t.Run("SIGKILL", func(t *testing.T) {
		if runtime.GOOS != "linux" {
			t.Skip("only Linux has a parent-death signal")
		}
		testProxyStop(t, "SIGKILL")
	})
}

func testProxyStop(t *testing.T, how string) {
	dir := t.TempDir()
	pidFile := filepath.Join(dir, "pid")
	script := filepath.Join(dir, "server.sh")
	if err := os.WriteFile(script, []byte("#!/bin/sh\necho $$ > "+pidFile+"\nexec sleep 60\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	cmd, stdin, lines := startMain(t, "proxy --addr 127.0.0.1:0 -- "+script)
	go func() {
		for lines.Scan() {
			t.Logf("formbridge: %s", lines.Text())
		}
	}()
	var pid int
	for i := 0; pid == 0 && i < 100; i++ {
		b, _ := os.ReadFile(pidFile)
		pid, _ = strconv.Atoi(strings.TrimSpace(string(b)))
		time.Sleep(50 * time.Millisecond)
	}
	if pid == 0 {
		t.Fatal("the server never started")
	}
	defer syscall.Kill(pid, syscall.SIGKILL)

	// The host stops the server as the TypeScript SDK does.
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	wait := 2 * time.Second
	switch how {
	case "stdin":
		stdin.Close()
	case "SIGKILL":
		cmd.Process.Kill()
		<-exited
		// The signal comes as the proxy dies; the server takes a moment.
		for i := 0; i < 40 && alive(pid); i++ {
			time.Sleep(50 * time.Millisecond)
		}
		if alive(pid) {
			t.Errorf("formbridge proxy was killed, and the MCP server it started (pid %d) still runs, orphaned", pid)
		}
		return
	default:
		wait = 0
	}
	select {
	case <-exited:
	case <-time.After(wait):
		cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-exited:
		case <-time.After(2 * time.Second):
			cmd.Process.Kill()
			<-exited
			t.Log("formbridge proxy had to be killed")
		}
	}
	time.Sleep(200 * time.Millisecond)
	if alive(pid) {
		t.Errorf("formbridge proxy is gone, but the MCP server it started (pid %d) still runs, orphaned", pid)
	}
}

// alive reports whether pid runs (a zombie does not count).
func alive(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	_, rest, _ := strings.Cut(string(b), ") ")
	return !strings.HasPrefix(rest, "Z")
}
