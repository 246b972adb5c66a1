package mcpbridge

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"runtime"
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
	proc := &process{done: make(chan struct{})}
	started := make(chan error, 1)
	go func() {
		// Where the system can, the server is ended with this process
		// even when it is killed outright and cannot stop it (see
		// endWithParent). Linux sends that signal when the thread that
		// started the server ends, not the process, so the thread is
		// kept for this goroutine until the server has exited.
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		endWithParent(t.cmd)
		err := t.cmd.Start()
		started <- err
		if err == nil {
			proc.err = t.cmd.Wait()
			close(proc.done)
		}
	}()
	err = <-started
	w.Close() // the process has its own copy
	if err != nil {
		stdout.Close()
		return nil, err
	}
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

// A host stopping this process gives it about 2 s before SIGKILL (the
// TypeScript SDK's StdioClientTransport.close: 2 s after stdin ends, 2 s
// after SIGTERM), and a process killed leaves its server running: each
// step must fit well inside that.
const terminateAfter = 700 * time.Millisecond

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
// a line, between messages, that is not one: from its first byte that is
// not '{', '[' or a newline to its end, it is skipped and logged. A line
// that starts like JSON ("[info] ready", {"level":"info"}) is held until
// it ends, or its value does, and skipped too unless it reads as a
// JSON-RPC message or batch, or could begin one that goes on below.
// It follows the JSON's nesting and strings, so a message spread over
// several lines (which the go-sdk reads) passes whole once its first
// line could begin one. Spaces and tabs between messages are dropped
// too: the go-sdk takes only a newline after a message.
type messageFilter struct {
	r   *bufio.Reader
	log *slog.Logger

	out       []byte // passed, not yet read
	err       error  // the reader's, once out is drained
	depth     int    // objects and arrays open
	inString  bool   // inside a JSON string
	escaped   bool   // after a backslash in a string
	holding   bool   // in the first line of a value, kept in held until it is judged
	held      []byte
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
	for len(f.out) == 0 {
		if f.err != nil {
			return 0, f.err
		}
		n, err := f.r.Read(p)
		f.filter(p[:n])
		if err != nil {
			f.end()
			f.err = err
		}
	}
	n := copy(p, f.out)
	f.out = f.out[n:]
	if len(f.out) == 0 {
		f.out = f.out[:0:0] // let a large message's copy go
	}
	return n, nil
}

// filter appends to out the bytes of b that pass.
func (f *messageFilter) filter(b []byte) {
	for _, c := range b {
		switch {
		case f.skipping:
			if c != '\n' {
				f.skip(c)
				continue
			}
			f.report()
			f.out = append(f.out, c)
		case f.inString:
			switch {
			case f.escaped:
				f.escaped = false
			case c == '\\':
				f.escaped = true
			case c == '"':
				f.inString = false
			}
			f.pass(c)
			if f.holding && c == '\n' { // not JSON: a string ends on its line
				f.judge(false)
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
			f.pass(c)
			if f.holding && (f.depth == 0 || c == '\n') {
				f.judge(false)
			}
		default: // between messages
			switch c {
			case '{', '[':
				f.depth++
				f.holding = true
				f.held = append(f.held[:0], c)
			case '\n', '\r':
				f.out = append(f.out, c)
			case ' ', '\t':
			default:
				f.skipping = true
				f.skipped = append(f.skipped[:0], c)
				f.truncated = false
			}
		}
	}
}

// pass passes c on, or holds it while the line is being judged. A long
// line is judged once maxHeldLine of it is in: whether it could begin
// a message, as at a line's end, so that one never ending is not held
// without bound (the go-sdk bounds what it then reads).
func (f *messageFilter) pass(c byte) {
	if !f.holding {
		f.out = append(f.out, c)
		return
	}
	f.held = append(f.held, c)
	if len(f.held) >= maxHeldLine && f.depth > 0 {
		f.judge(false)
	}
}

// maxHeldLine bounds the first line of a value held to be judged.
const maxHeldLine = 1 << 20

// judge decides on a held first line: at the end of its value, or of
// the output (last), whether that value is JSON; at the end of the line,
// whether the line could begin a value that goes on below. What fails is
// skipped to the line's end, as a line that is not a message.
func (f *messageFilter) judge(last bool) {
	f.holding = false
	line := f.held
	var ok bool
	if f.depth == 0 || last {
		ok = isJSONRPC(line)
	} else {
		var v json.RawMessage
		ok = errors.Is(json.NewDecoder(bytes.NewReader(line)).Decode(&v), io.ErrUnexpectedEOF)
	}
	if ok {
		f.out = append(f.out, line...)
		return
	}
	f.depth, f.inString, f.escaped = 0, false, false
	f.skipping, f.skipped, f.truncated = true, f.skipped[:0], false
	for _, c := range bytes.TrimRight(line, "\r\n") {
		f.skip(c)
	}
	if bytes.HasSuffix(line, []byte("\n")) {
		f.report()
		f.out = append(f.out, '\n')
	}
}

// isJSONRPC reports whether b is a JSON-RPC 2.0 message or a batch of
// them: a log line can be JSON too ({"level":"info","msg":"ready"}, [1]).
func isJSONRPC(b []byte) bool {
	type member struct {
		Version string `json:"jsonrpc"`
	}
	var one member
	if json.Unmarshal(b, &one) == nil && one.Version == "2.0" {
		return true
	}
	var batch []member
	if json.Unmarshal(b, &batch) != nil || len(batch) == 0 {
		return false
	}
	for _, m := range batch {
		if m.Version != "2.0" {
			return false
		}
	}
	return true
}

// end judges what is held when the server's output ends, and logs a
// last line skipped.
func (f *messageFilter) end() {
	if f.holding {
		f.judge(true)
	}
	if f.skipping {
		f.report()
	}
}

// skip keeps c of a skipped line, for the log.
func (f *messageFilter) skip(c byte) {
	if len(f.skipped) < maxSkippedShown {
		f.skipped = append(f.skipped, c)
	} else {
		f.truncated = true
	}
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
