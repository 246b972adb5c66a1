package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
)

// newLogger logs to w in the format a flag asked for.
func newLogger(format string, w io.Writer) (*slog.Logger, error) {
	switch format {
	case "", "text":
		return slog.New(slog.NewTextHandler(w, nil)), nil
	case "json":
		return slog.New(slog.NewJSONHandler(w, nil)), nil
	}
	return nil, &usageError{fmt.Sprintf("--log-format must be text or json, not %q", format)}
}

// printWidgetURL shows the link to open, set apart from the log lines so
// a person notices it. It is printed, never logged: it carries the token.
func printWidgetURL(w io.Writer, intro, link string) {
	if intro == "" {
		intro = "formbridge is ready. Open this link in your browser:"
	}
	fmt.Fprintf(w, "\n  %s\n\n      %s\n\n"+
		"  Anyone with this link can answer the questions on it: share it only with the person who should.\n"+
		"  Press Ctrl-C to stop.\n\n", intro, link)
}

// atLeast drops records below min: the go-sdk logs every session event at
// Info, which buries the lines a person running the demo needs.
func atLeast(l *slog.Logger, min slog.Level) *slog.Logger {
	return slog.New(minLevel{l.Handler(), min})
}

type minLevel struct {
	slog.Handler
	min slog.Level
}

func (h minLevel) Enabled(ctx context.Context, l slog.Level) bool {
	return l >= h.min && h.Handler.Enabled(ctx, l)
}

func (h minLevel) WithAttrs(as []slog.Attr) slog.Handler {
	return minLevel{h.Handler.WithAttrs(as), h.min}
}

func (h minLevel) WithGroup(name string) slog.Handler {
	return minLevel{h.Handler.WithGroup(name), h.min}
}
