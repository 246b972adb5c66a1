package main

import (
	"bytes"
	"errors"
	"flag"
	"strings"
	"testing"
	"time"
)

func newTestFlags() (*flagSet, *string, *time.Duration, *bool) {
	fs := newFlagSet("test", "", "A test command.")
	addr := fs.String("addr", "FORMBRIDGE_TEST_ADDR", "127.0.0.1:8080", "where to `listen`")
	timeout := fs.Duration("timeout", "FORMBRIDGE_TEST_TIMEOUT", 10*time.Minute, "how long")
	verbose := fs.Bool("verbose", "FORMBRIDGE_TEST_VERBOSE", false, "say more")
	return fs, addr, timeout, verbose
}

func TestFlagsFromEnvironment(t *testing.T) {
	tests := []struct {
		name        string
		env         map[string]string
		args        []string
		wantAddr    string
		wantTimeout time.Duration
		wantVerbose bool
	}{
		{"defaults", nil, nil, "127.0.0.1:8080", 10 * time.Minute, false},
		{"environment", map[string]string{"FORMBRIDGE_TEST_ADDR": ":9000", "FORMBRIDGE_TEST_TIMEOUT": "90s", "FORMBRIDGE_TEST_VERBOSE": "true"},
			nil, ":9000", 90 * time.Second, true},
		{"flag beats environment", map[string]string{"FORMBRIDGE_TEST_ADDR": ":9000"},
			[]string{"--addr", ":9100", "-timeout=1h"}, ":9100", time.Hour, false},
		{"empty variable is unset", map[string]string{"FORMBRIDGE_TEST_ADDR": ""}, nil, "127.0.0.1:8080", 10 * time.Minute, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for k, v := range tt.env {
				t.Setenv(k, v)
			}
			fs, addr, timeout, verbose := newTestFlags()
			if err := fs.parse(tt.args); err != nil {
				t.Fatal(err)
			}
			if *addr != tt.wantAddr || *timeout != tt.wantTimeout || *verbose != tt.wantVerbose {
				t.Errorf("got addr %q timeout %v verbose %v, want %q %v %v", *addr, *timeout, *verbose, tt.wantAddr, tt.wantTimeout, tt.wantVerbose)
			}
		})
	}
}

func TestFlagsMistakes(t *testing.T) {
	tests := []struct {
		name  string
		env   map[string]string
		args  []string
		want  string
		never string
	}{
		{"bad duration in environment", map[string]string{"FORMBRIDGE_TEST_TIMEOUT": "soon-ish"}, nil,
			"FORMBRIDGE_TEST_TIMEOUT is not a valid value for --timeout (use a duration such as 90s", "soon-ish"},
		{"bad bool in environment", map[string]string{"FORMBRIDGE_TEST_VERBOSE": "maybe"}, nil, "use true or false", "maybe"},
		{"unknown flag", nil, []string{"--colour"}, "-colour: no such option", ""},
		{"bad duration flag", nil, []string{"--timeout", "5"}, `--timeout "5" is not a valid value: use a duration such as 90s, 10m or 1h`, ""},
		{"stray argument", nil, []string{"extra"}, `unexpected argument "extra"`, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for k, v := range tt.env {
				t.Setenv(k, v)
			}
			fs, _, _, _ := newTestFlags()
			err := fs.parse(tt.args)
			var uerr *usageError
			if !errors.As(err, &uerr) {
				t.Fatalf("got %v, want a usage error", err)
			}
			if !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %q does not say %q", err, tt.want)
			}
			if tt.never != "" && strings.Contains(err.Error(), tt.never) {
				t.Errorf("error %q repeats the value %q", err, tt.never)
			}
		})
	}
}

func TestFlagsHelp(t *testing.T) {
	t.Setenv("FORMBRIDGE_TEST_ADDR", "secret-value")
	fs, _, _, _ := newTestFlags()
	var out bytes.Buffer
	fs.stdout = &out
	if err := fs.parse([]string{"--help"}); !errors.Is(err, flag.ErrHelp) {
		t.Fatalf("got %v, want flag.ErrHelp", err)
	}
	help := out.String()
	for _, want := range []string{
		"Usage: formbridge test [options]", "A test command.",
		"--addr listen", "where to listen (default 127.0.0.1:8080)", "Environment: FORMBRIDGE_TEST_ADDR",
		"--timeout duration", "Environment: FORMBRIDGE_TEST_TIMEOUT", "--verbose\n",
	} {
		if !strings.Contains(help, want) {
			t.Errorf("help lacks %q:\n%s", want, help)
		}
	}
	if strings.Contains(help, "secret-value") {
		t.Errorf("help shows a value from the environment:\n%s", help)
	}
}

// TestFlagsHelpShape: the usage line names options and arguments only
// when the command has them, and an option's default only when there
// is one worth showing.
func TestFlagsHelpShape(t *testing.T) {
	plain := newFlagSet("plain", "", "Does one thing.")
	run := newFlagSet("run", "-- COMMAND", "Runs a command.")
	run.String("name", "", "", "a `name`")
	run.Bool("quiet", "", false, "say less")
	run.Duration("wait", "", 0, "how long")
	for _, tt := range []struct {
		fs   *flagSet
		want string
	}{
		{plain, "Usage: formbridge plain\n\nDoes one thing.\n"},
		{run, "Usage: formbridge run [options] -- COMMAND\n\nRuns a command.\n\nOptions:\n" +
			"  --name name\n      a name\n  --quiet\n      say less\n  --wait duration\n      how long\n"},
	} {
		var out bytes.Buffer
		tt.fs.stdout = &out
		if err := tt.fs.parse([]string{"--help"}); !errors.Is(err, flag.ErrHelp) {
			t.Fatalf("got %v, want flag.ErrHelp", err)
		}
		if out.String() != tt.want {
			t.Errorf("help is\n%q\nwant\n%q", out.String(), tt.want)
		}
	}
}
