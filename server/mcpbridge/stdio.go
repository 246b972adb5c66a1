package mcpbridge

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"syscall"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// A server on stdio must write only MCP messages to its stdout, but many
// print a banner or a log line there too ("Server started on stdio").
// The go-sdk's CommandTransport then fails the connection at the first
// such line, and the proxy with it. commandTransport is the same
// transport with that line skipped and logged, as MCP hosts do.

// commandTransport runs an MCP server as a subprocess and speaks to it
// over its stdin and stdout.
type commandTransport struct {
	cmd *exec.Cmd
	log *slog.Logger
}

func (t *commandTransport) Connect(ctx context.Context) (mcp.Connection, error) {
	// Its stdout is a pipe of our own, not StdoutPipe's: cmd.Wait closes
	// that one as the process exits, under a reader that has not read
	// it all, and the process is waited for from the start, so that its
	// exit status can say why the connection ended.
	stdout, w, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	t.cmd.Stdout = w
	stdin, err := t.cmd.StdinPipe()
	if err != nil {
		stdout.Close()
		w.Close()
		return nil, err
	}
	err = t.cmd.Start()
	w.Close() // the process has its own copy
	if err != nil {
		stdout.Close()
		return nil, err
	}
	proc := &process{done: make(chan struct{})}
	go func() { proc.err = t.cmd.Wait(); close(proc.done) }()
	// The connection ends by closing stdin (see subprocess.Close), as
	// the go-sdk's own transport does; stdout is left to the process.
	out := &messageFilter{r: bufio.NewReader(&exitReader{r: stdout, proc: proc}), log: t.log}
	return (&mcp.IOTransport{Reader: io.NopCloser(out), Writer: &subprocess{cmd: t.cmd, stdin: stdin, stdout: stdout, proc: proc}}).Connect(ctx)
}

// process is the server's process once started: err is cmd.Wait's, set
// before done closes.
type process struct {
	done chan struct{}
	err  error
}

// exitWait is how long the end of the server's stdout waits for its
// exit status: a server that closed stdout and goes on running is
// reported as the end of its output.
const exitWait = 2 * time.Second

// ErrServerExited is how a stdio server's connection ends when its
// process exited with a failure; the exit status is wrapped with it.
var ErrServerExited = errors.New("the MCP server exited")

// exitReader is the server's stdout, whose end says how the server
// ended when it did not end well ("exit status 3"), not only "EOF".
type exitReader struct {
	r    *os.File
	proc *process
}

func (e *exitReader) Read(p []byte) (int, error) {
	n, err := e.r.Read(p)
	if err != io.EOF {
		return n, err
	}
	select {
	case <-e.proc.done:
		if e.proc.err != nil {
			return n, fmt.Errorf("%w: %w", ErrServerExited, e.proc.err)
		}
	case <-time.After(exitWait):
	}
	return n, err
}

// subprocess is the server's stdin; closing it ends the server as the
// MCP spec asks: stdin closed, then SIGTERM, then SIGKILL, each after
// terminateAfter without an exit.
type subprocess struct {
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	stdout *os.File // closed once the process has gone
	proc   *process
}

const terminateAfter = 5 * time.Second

func (s *subprocess) Write(p []byte) (int, error) { return s.stdin.Write(p) }

func (s *subprocess) Close() error {
	defer s.stdout.Close()
	// Closed already when the process exited first (cmd.Wait closes it).
	if err := s.stdin.Close(); err != nil && !errors.Is(err, os.ErrClosed) {
		return fmt.Errorf("closing stdin: %w", err)
	}
	wait := func() (error, bool) {
		select {
		case <-s.proc.done:
			return s.proc.err, true
		case <-time.After(terminateAfter):
			return nil, false
		}
	}
	if err, ok := wait(); ok {
		return err
	}
	if s.cmd.Process.Signal(syscall.SIGTERM) == nil {
		if err, ok := wait(); ok {
			return err
		}
	}
	if err := s.cmd.Process.Kill(); err != nil {
		return err
	}
	if err, ok := wait(); ok {
		return err
	}
	return fmt.Errorf("the MCP server's process did not exit")
}

// messageFilter passes on what the server writes to its stdout, except
// a line, between messages, that cannot start one: from its first byte
// that is not '{', '[' or a newline to its end, it is skipped and
// logged. It follows the JSON's nesting and strings, so a message
// spread over several lines (which the go-sdk reads) passes whole.
// Spaces and tabs between messages are dropped too: the go-sdk takes
// only a newline after a message.
type messageFilter struct {
	r   *bufio.Reader
	log *slog.Logger

	depth     int  // objects and arrays open
	inString  bool // inside a JSON string
	escaped   bool // after a backslash in a string
	skipping  bool // in a line that is not a message
	skipped   []byte
	truncated bool
	reported  int // lines logged
}

// Lines longer than maxSkippedShown are logged clipped; after
// maxSkippedLogged lines, further ones are skipped without a word.
const (
	maxSkippedShown  = 200
	maxSkippedLogged = 20
)

func (f *messageFilter) Read(p []byte) (int, error) {
	for {
		n, err := f.r.Read(p)
		n = f.filter(p[:n])
		if err != nil && f.skipping {
			f.report()
		}
		if n > 0 || err != nil {
			return n, err
		}
	}
}

// filter keeps, in place, the bytes of b that pass, and returns how many.
func (f *messageFilter) filter(b []byte) int {
	n := 0
	for _, c := range b {
		switch {
		case f.skipping:
			if c != '\n' {
				if len(f.skipped) < maxSkippedShown {
					f.skipped = append(f.skipped, c)
				} else {
					f.truncated = true
				}
				continue
			}
			f.report()
		case f.inString:
			switch {
			case f.escaped:
				f.escaped = false
			case c == '\\':
				f.escaped = true
			case c == '"':
				f.inString = false
			}
		case f.depth > 0:
			switch c {
			case '"':
				f.inString = true
			case '{', '[':
				f.depth++
			case '}', ']':
				f.depth--
			}
		default: // between messages
			switch c {
			case '{', '[':
				f.depth++
			case '\n', '\r':
			case ' ', '\t':
				continue
			default:
				f.skipping = true
				f.skipped = append(f.skipped[:0], c)
				f.truncated = false
				continue
			}
		}
		b[n] = c
		n++
	}
	return n
}

// report logs the line just skipped.
func (f *messageFilter) report() {
	f.skipping = false
	f.reported++
	if f.log == nil || f.reported > maxSkippedLogged {
		return
	}
	line := string(f.skipped)
	if f.truncated {
		line += "…"
	}
	msg := "skipped a line the MCP server wrote to its standard output that is not an MCP message (logs belong on standard error)"
	if f.reported == maxSkippedLogged {
		msg += "; further such lines are skipped without a word"
	}
	f.log.Warn(msg, "line", line)
}
