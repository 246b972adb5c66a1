package main

import (
	"bytes"
	"log/slog"
	"strings"
	"testing"
)

func TestAtLeast(t *testing.T) {
	var buf bytes.Buffer
	log := atLeast(slog.New(slog.NewTextHandler(&buf, nil)), slog.LevelWarn).With("part", "demo")
	log.Info("session connected")
	log.WithGroup("g").Debug("noise")
	log.Warn("tool failed")
	out := buf.String()
	if strings.Contains(out, "session connected") || strings.Contains(out, "noise") {
		t.Errorf("records below Warn got through:\n%s", out)
	}
	if !strings.Contains(out, `msg="tool failed" part=demo`) {
		t.Errorf("the warning is missing or lost its attributes:\n%s", out)
	}
}

func TestPrintWidgetURL(t *testing.T) {
	var buf bytes.Buffer
	printWidgetURL(&buf, "", "http://127.0.0.1:8080/#token=abc")
	lines := strings.Split(buf.String(), "\n")
	var link []string
	for _, l := range lines {
		if strings.Contains(l, "#token=") {
			link = append(link, l)
		}
	}
	// One line, holding nothing but the link, so it is easy to spot and copy.
	if len(link) != 1 || strings.TrimSpace(link[0]) != "http://127.0.0.1:8080/#token=abc" {
		t.Errorf("link lines %q in:\n%s", link, buf.String())
	}
	if !strings.Contains(buf.String(), "Open this link in your browser") {
		t.Errorf("no plain instruction:\n%s", buf.String())
	}
}
