package main

import (
	"bufio"
	"io"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"
)

// The test binary runs main itself when asked to, so a test can start
// the real command and send it real signals.
func init() {
	if os.Getenv("FORMBRIDGE_TEST_RUN_MAIN") == "1" {
		os.Args = append([]string{"formbridge"}, strings.Fields(os.Getenv("FORMBRIDGE_TEST_ARGS"))...)
		main()
	}
}

// SIGTERM (what service managers send) stops formbridge serve
// gracefully, with exit code 0. SIGINT takes the same path in main; one
// child process is enough, as each costs seconds under the race detector.
func TestSignalsStopGracefully(t *testing.T) {
	for _, sig := range []syscall.Signal{syscall.SIGTERM} {
		t.Run(sig.String(), func(t *testing.T) {
			cmd, _, lines := startMain(t, "serve --addr 127.0.0.1:0")
			cmd.Process.Signal(sig)
			rest := make(chan string, 1)
			go func() {
				var log strings.Builder
				for lines.Scan() {
					log.WriteString(lines.Text() + "\n")
				}
				rest <- log.String()
			}()
			var log string
			select {
			case log = <-rest: // stderr closed: the process is ending
			case <-time.After(10 * time.Second):
				t.Fatal("formbridge serve did not stop")
			}
			if err := cmd.Wait(); err != nil {
				t.Errorf("exit: %v\n%s", err, log)
			}
			if !strings.Contains(log, "msg=stopped") {
				t.Errorf("no 'stopped' log line:\n%s", log)
			}
		})
	}
}

// startMain starts the formbridge command with args (split at spaces),
// killed at the test's end, and returns it once it has printed its
// widget link, with its stdin and the rest of its stderr.
func startMain(t *testing.T, args string) (*exec.Cmd, io.WriteCloser, *bufio.Scanner) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "FORMBRIDGE_TEST_RUN_MAIN=1", "FORMBRIDGE_TEST_ARGS="+args)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill() })
	lines := bufio.NewScanner(stderr)
	ready := false
	for !ready && lines.Scan() {
		ready = strings.Contains(lines.Text(), "/#token=")
	}
	if !ready {
		t.Fatalf("formbridge %s never printed its link", args)
	}
	return cmd, stdin, lines
}
