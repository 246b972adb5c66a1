package main

import (
	"context"
	"fmt"
	"os/exec"
	"strings"
	"time"
)

// goBenchPackages hold the testing.B benchmarks of the model, the hub, the
// gateway and the widget's page; their owners keep them next to the code
// they measure.
var goBenchPackages = []string{"./app/elicit", "./server/hub", "./server/gateway", "./server/site"}

// goBenchIterations bounds every Go benchmark by count, not by time, so
// the part ends in a known number of operations on a busy machine.
const goBenchIterations = 2000

// benchGo runs the packages' Go benchmarks once and copies their lines.
func benchGo(ctx context.Context, c *config, r *report) error {
	ctx, cancel := context.WithTimeout(ctx, 5*time.Minute)
	defer cancel()
	args := append([]string{"test", "-run", "^$", "-bench", ".", "-benchmem", "-count", "1",
		fmt.Sprintf("-benchtime=%dx", c.n(goBenchIterations))}, goBenchPackages...)
	cmd := exec.CommandContext(ctx, goTool(), args...)
	cmd.Dir = c.repo
	out, err := cmd.CombinedOutput()
	if err != nil {
		return fmt.Errorf("go %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	s := r.section("Go benchmarks (testing.B)")
	s.printf("`go %s`, run by this tool:\n\n```\n", strings.Join(args, " "))
	for line := range strings.SplitSeq(string(out), "\n") {
		if strings.HasPrefix(line, "Benchmark") || strings.HasPrefix(line, "pkg:") {
			s.printf("%s\n", line)
		}
	}
	s.printf("```\n")
	return nil
}
