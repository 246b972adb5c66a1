package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"regexp"
	"strings"
	"time"
)

// helpOutput is where a command's --help goes; runMain points it at its
// stdout.
var helpOutput io.Writer = os.Stdout

// flagSet is a flag.FlagSet whose flags can each also be set by an
// environment variable, so formbridge runs the same way from a shell, a
// container or a service manager. A command-line flag wins over its
// variable; the variable wins over the built-in default.
type flagSet struct {
	fs        *flag.FlagSet
	name      string            // subcommand
	argsUsage string            // e.g. "-- COMMAND [ARGS...]"; "" = no arguments allowed
	about     string            // a paragraph for --help
	env       map[string]string // flag name -> environment variable
	order     []string          // flag names in definition order, for --help
	stdout    io.Writer
}

func newFlagSet(name, argsUsage, about string) *flagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(io.Discard) // parse reports errors itself, in plain words
	fs.Usage = func() {}
	return &flagSet{fs: fs, name: name, argsUsage: argsUsage, about: about, env: map[string]string{}, stdout: helpOutput}
}

// The usage text may name the value in backquotes, as the flag package
// does: "where to `listen`" shows as "--addr listen".

func (f *flagSet) String(name, env, def, usage string) *string {
	p := f.fs.String(name, def, usage)
	f.add(name, env)
	return p
}

func (f *flagSet) Duration(name, env string, def time.Duration, usage string) *time.Duration {
	p := f.fs.Duration(name, def, usage)
	f.add(name, env)
	return p
}

func (f *flagSet) Bool(name, env string, def bool, usage string) *bool {
	p := f.fs.Bool(name, def, usage)
	f.add(name, env)
	return p
}

func (f *flagSet) add(name, env string) {
	f.order = append(f.order, name)
	if env != "" {
		f.env[name] = env
	}
}

// args are the arguments left after the flags.
func (f *flagSet) args() []string { return f.fs.Args() }

// parse applies the environment, then args. It returns flag.ErrHelp after
// printing the help when asked for it, and a *usageError for anything the
// caller got wrong.
func (f *flagSet) parse(args []string) error {
	for _, name := range f.order {
		env, ok := f.env[name]
		if !ok {
			continue
		}
		v, ok := os.LookupEnv(env)
		if !ok || v == "" {
			continue
		}
		if err := f.fs.Set(name, v); err != nil {
			// Never echo the value: it may be a secret (FORMBRIDGE_TOKEN).
			return &usageError{fmt.Sprintf("the environment variable %s is not a valid value for --%s (%s)", env, name, hint(f.fs.Lookup(name)))}
		}
	}
	err := f.fs.Parse(args)
	switch {
	case errors.Is(err, flag.ErrHelp):
		f.printHelp(f.stdout)
		return flag.ErrHelp
	case err != nil:
		if m := badValue.FindStringSubmatch(err.Error()); m != nil && f.fs.Lookup(m[2]) != nil {
			return &usageError{fmt.Sprintf("--%s %s is not a valid value: %s", m[2], m[1], hint(f.fs.Lookup(m[2])))}
		}
		return &usageError{strings.TrimPrefix(err.Error(), "flag provided but not defined: ") + helpSuffix(err)}
	}
	if f.argsUsage == "" && f.fs.NArg() > 0 {
		return &usageError{fmt.Sprintf("unexpected argument %q (this command takes only options)", f.fs.Arg(0))}
	}
	return nil
}

// badValue is the flag package's error for a value its flag cannot
// take: `invalid value "10" for flag -timeout: parse error`, which
// says neither the option as it is written nor what would do.
var badValue = regexp.MustCompile(`^invalid value ("(?:[^"\\]|\\.)*") for flag -(\S+): `)

// helpSuffix makes the flag package's terse "not defined" error readable.
func helpSuffix(err error) string {
	if strings.HasPrefix(err.Error(), "flag provided but not defined: ") {
		return ": no such option"
	}
	return ""
}

// hint says what a valid value looks like.
func hint(fl *flag.Flag) string {
	switch fl.Value.(type) {
	case interface{ IsBoolFlag() bool }:
		return "use true or false"
	}
	if _, err := time.ParseDuration(fl.DefValue); err == nil {
		return "use a duration such as 90s, 10m or 1h"
	}
	return "see --help"
}

func (f *flagSet) printHelp(w io.Writer) {
	usage := "formbridge " + f.name
	if len(f.order) > 0 {
		usage += " [options]"
	}
	if f.argsUsage != "" {
		usage += " " + f.argsUsage
	}
	fmt.Fprintf(w, "Usage: %s\n\n%s\n", usage, strings.TrimSpace(f.about))
	if len(f.order) == 0 {
		return
	}
	fmt.Fprint(w, "\nOptions:\n")
	for _, name := range f.order {
		fl := f.fs.Lookup(name)
		valueName, usage := flag.UnquoteUsage(fl)
		left := "--" + name
		if valueName != "" {
			left += " " + valueName
		}
		fmt.Fprintf(w, "  %s\n      %s", left, usage)
		if fl.DefValue != "" && fl.DefValue != "false" && fl.DefValue != "0s" {
			fmt.Fprintf(w, " (default %s)", fl.DefValue)
		}
		fmt.Fprintln(w)
		if env, ok := f.env[name]; ok {
			fmt.Fprintf(w, "      Environment: %s\n", env)
		}
	}
}
