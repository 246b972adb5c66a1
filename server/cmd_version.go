package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"runtime"
)

func init() {
	register(command{
		name:    "version",
		summary: "print the formbridge version",
		run: func(ctx context.Context, args []string) error {
			fs := newFlagSet("version", "", "Prints the formbridge version and the Go version it was built with.")
			if err := fs.parse(args); err != nil {
				return err
			}
			printVersion(os.Stdout)
			return nil
		},
	})
}

func printVersion(w io.Writer) {
	fmt.Fprintf(w, "formbridge %s (%s, %s/%s)\n", version, runtime.Version(), runtime.GOOS, runtime.GOARCH)
}
