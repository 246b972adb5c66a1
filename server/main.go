// Command formbridge puts MCP elicitation in front of a person: MCP servers
// ask their questions (elicitation/create), and a widget in a web browser
// shows each one as a form the person answers, declines or cancels.
//
// Each subcommand lives in its own file (cmd_*.go) and registers itself
// from init, so the files can be written and changed independently.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"slices"
	"strings"
	"syscall"
)

// version is set at build time: go build -ldflags "-X main.version=v1.2.3".
var version = "dev"

// command is one subcommand of formbridge.
type command struct {
	name    string
	summary string // one line, shown in formbridge --help
	run     func(ctx context.Context, args []string) error
}

var commands []command

// register adds a subcommand. Called from init in each cmd_*.go file.
func register(c command) {
	if c.name == "" || c.run == nil {
		panic("formbridge: register needs a name and a run function")
	}
	if lookup(c.name) != nil {
		panic("formbridge: command " + c.name + " registered twice")
	}
	commands = append(commands, c)
}

func lookup(name string) *command {
	for i := range commands {
		if commands[i].name == name {
			return &commands[i]
		}
	}
	return nil
}

// Exit codes: 0 success, 1 the command failed, 2 it was used wrongly.
const (
	exitOK    = 0
	exitError = 1
	exitUsage = 2
)

// usageError is a mistake in how the command was called (a bad flag, an
// unknown command); it exits with exitUsage instead of exitError.
type usageError struct{ msg string }

func (e *usageError) Error() string { return e.msg }

func main() {
	// SIGINT (Ctrl-C) and SIGTERM end ctx; long-running commands shut
	// down gracefully when it ends.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	go func() {
		// After the first signal, restore the default handling: a second
		// Ctrl-C stops at once if a graceful shutdown takes too long.
		<-ctx.Done()
		stop()
	}()
	code := runMain(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// runMain dispatches args to a subcommand and turns its error into an
// exit code. Help goes to stdout (it was asked for); errors to stderr.
func runMain(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	helpOutput = stdout
	if len(args) == 0 {
		printUsage(stderr)
		return exitUsage
	}
	name := args[0]
	switch name {
	case "-h", "-help", "--help", "help":
		if name == "help" && len(args) > 1 {
			// "formbridge help serve" is "formbridge serve --help".
			return runMain(ctx, []string{args[1], "--help"}, stdout, stderr)
		}
		printUsage(stdout)
		return exitOK
	case "-version", "--version":
		name = "version"
	}
	cmd := lookup(name)
	if cmd == nil {
		fmt.Fprintf(stderr, "formbridge: unknown command %q.\nRun 'formbridge --help' to see the commands.\n", name)
		return exitUsage
	}
	err := cmd.run(ctx, args[1:])
	var uerr *usageError
	switch {
	case err == nil, errors.Is(err, flag.ErrHelp):
		return exitOK
	case errors.As(err, &uerr):
		fmt.Fprintf(stderr, "formbridge %s: %v\nRun 'formbridge %s --help' for its options.\n", cmd.name, err, cmd.name)
		return exitUsage
	default:
		fmt.Fprintf(stderr, "formbridge %s: %v\n", cmd.name, err)
		return exitError
	}
}

func printUsage(w io.Writer) {
	fmt.Fprint(w, `formbridge shows questions from AI tools to a person, in a web browser.

When an MCP server needs someone's decision mid-task ("delete these 40
invoices?", "which of these customers?"), it sends an elicitation. The
formbridge bridge holds it and shows it as a form in the formbridge
widget; the person's answer goes back to the server.

Usage:
  formbridge <command> [options]

Commands:
`)
	sorted := slices.Clone(commands)
	slices.SortFunc(sorted, func(a, b command) int { return strings.Compare(a.name, b.name) })
	for _, c := range sorted {
		fmt.Fprintf(w, "  %-9s %s\n", c.name, c.summary)
	}
	fmt.Fprint(w, `
Example: try it with demo questions, then open the printed link:
  formbridge demo

Run 'formbridge <command> --help' for a command's options. Most can
also be set with an environment variable, named in that help.
`)
}
