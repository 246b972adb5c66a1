package main

import (
	"bytes"
	"context"
	"runtime"
	"strings"
	"testing"
)

func TestRunMain(t *testing.T) {
	tests := []struct {
		name   string
		args   []string
		code   int
		stdout []string
		stderr []string
	}{
		{"no command", nil, exitUsage, nil, []string{"Usage:", "Commands:"}},
		{"help", []string{"--help"}, exitOK, []string{"formbridge shows questions", "serve ", "demo ", "version ", "Example:", "formbridge demo"}, nil},
		{"help for a command", []string{"help", "version"}, exitOK, []string{"Usage: formbridge version"}, nil},
		{"unknown command", []string{"srve"}, exitUsage, nil, []string{`unknown command "srve"`, "formbridge --help"}},
		{"bad flag", []string{"serve", "--adr", "x"}, exitUsage, nil, []string{"formbridge serve: -adr: no such option", "formbridge serve --help"}},
		{"bad log format", []string{"serve", "--log-format", "xml"}, exitUsage, nil, []string{"--log-format must be text or json"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			code := runMain(context.Background(), tt.args, &stdout, &stderr)
			if code != tt.code {
				t.Errorf("exit code %d, want %d (stderr %q)", code, tt.code, stderr.String())
			}
			for _, w := range tt.stdout {
				if !strings.Contains(stdout.String(), w) {
					t.Errorf("stdout lacks %q:\n%s", w, stdout.String())
				}
			}
			for _, w := range tt.stderr {
				if !strings.Contains(stderr.String(), w) {
					t.Errorf("stderr lacks %q:\n%s", w, stderr.String())
				}
			}
		})
	}
}

func TestVersion(t *testing.T) {
	old := version
	version = "v1.2.3"
	defer func() { version = old }()
	var out bytes.Buffer
	printVersion(&out)
	if want := "formbridge v1.2.3 (" + runtime.Version(); !strings.HasPrefix(out.String(), want) {
		t.Errorf("got %q, want it to start with %q", out.String(), want)
	}
}
