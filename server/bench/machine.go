package main

import (
	"bufio"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"

	"github.com/formbridge/formbridge/server/internal/chromium"
)

// machine describes where the figures were measured.
type machine struct {
	CPU, Kernel, Go, Chromium string
	Cores                     int
	MemoryMiB                 int
}

func describeMachine() machine {
	m := machine{Go: runtime.Version(), Cores: runtime.NumCPU(), CPU: "unknown", Kernel: "unknown", Chromium: "not found"}
	if f, err := os.Open("/proc/cpuinfo"); err == nil {
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			if k, v, ok := strings.Cut(sc.Text(), ":"); ok && strings.TrimSpace(k) == "model name" {
				m.CPU = strings.TrimSpace(v)
				break
			}
		}
		f.Close()
	}
	if b, err := os.ReadFile("/proc/sys/kernel/osrelease"); err == nil {
		m.Kernel = "Linux " + strings.TrimSpace(string(b))
	}
	var si syscall.Sysinfo_t
	if syscall.Sysinfo(&si) == nil {
		m.MemoryMiB = int(uint64(si.Totalram) * uint64(si.Unit) >> 20)
	}
	if exe, ok := chromium.Path(); ok {
		if out, err := exec.Command(exe, "--version").Output(); err == nil {
			m.Chromium = strings.TrimSpace(string(out))
		}
	}
	return m
}

// moduleRoot is the folder holding go.mod, found upwards from here, so
// the tool builds the same sources however it is started.
func moduleRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("run bench inside the formbridge module")
		}
		dir = parent
	}
}
