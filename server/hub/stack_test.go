package hub_test

import (
	"bufio"
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestElicitStack: a caller blocked in Elicit keeps the goroutine stack
// its call grew to, for as long as it waits, so the hub keeps that call
// within Go's smallest stack (2 KiB) and 100,000 waiting callers cost
// half of what they would at 4 KiB. The probe runs outside this test's
// binary, which may be built with -race (whose frames differ), with every
// goroutine starting at 2 KiB, and with the collector off while callers
// arrive: an allocation that must help a running collection goes deeper
// than any hub code, and how often that happens depends on the machine's
// load. A few callers grow anyway (an allocation that refills its span
// goes deep too), so the bound is the average: a path that grew each
// caller would show 4 KiB.
func TestElicitStack(t *testing.T) {
	bin := filepath.Join(t.TempDir(), "stackprobe")
	if out, err := exec.Command("go", "build", "-o", bin, "./internal/stackprobe").CombinedOutput(); err != nil {
		t.Fatalf("building the probe: %v\n%s", err, out)
	}
	cmd := exec.Command(bin, "-n", "5000")
	cmd.Env = append(os.Environ(), "GODEBUG=adaptivestackstart=0", "GOGC=off")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("the probe: %v\n%s", err, out)
	}
	seen := 0
	for sc := bufio.NewScanner(bytes.NewReader(out)); sc.Scan(); {
		name, value, ok := strings.Cut(sc.Text(), " ")
		perCaller, err := strconv.ParseFloat(value, 64)
		if !ok || err != nil {
			t.Fatalf("the probe said %q", sc.Text())
		}
		seen++
		t.Logf("%s: %.0f bytes of stack per waiting caller", name, perCaller)
		if perCaller > 3<<10 {
			t.Errorf("%s: a caller blocked in Elicit keeps %.0f bytes of stack; at most 3 KiB expected (Go's smallest stack is 2 KiB)", name, perCaller)
		}
	}
	if seen != 2 {
		t.Fatalf("the probe said %q; want a line with and without a widget", out)
	}
}
