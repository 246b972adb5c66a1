package gateway_test

import (
	"bufio"
	"crypto/rand"
	"encoding/base64"
	"encoding/binary"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"runtime"
	"strings"
	"testing"

	"github.com/formbridge/formbridge/app/wire"
)

// rawWidget is the cheapest possible client: a TCP connection that
// upgrades by hand and says hello, so the memory measured is the bridge's.
type rawWidget struct {
	conn net.Conn
	r    *bufio.Reader
}

// dialRaw connects and says hello. eager sends the hello in the same
// write as the upgrade request, before the bridge has answered it.
func dialRaw(b *bridge, eager bool) (*rawWidget, error) {
	u, err := url.Parse(b.url)
	if err != nil {
		return nil, err
	}
	conn, err := net.Dial("tcp", u.Host)
	if err != nil {
		return nil, err
	}
	key := make([]byte, 16)
	rand.Read(key)
	upgrade := fmt.Sprintf("GET %s HTTP/1.1\r\nHost: %s\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"+
		"Sec-WebSocket-Key: %s\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Protocol: %s\r\n\r\n",
		u.Path, u.Host, base64.StdEncoding.EncodeToString(key), wire.Subprotocol)
	hello := maskedText(`{"jsonrpc":"2.0","id":1,"method":"formbridge/hello","params":{"token":"` + token + `"}}`)
	if eager {
		_, err = conn.Write(append([]byte(upgrade), hello...))
	} else {
		_, err = io.WriteString(conn, upgrade)
	}
	if err != nil {
		conn.Close()
		return nil, err
	}
	w := &rawWidget{conn: conn, r: bufio.NewReaderSize(conn, 512)}
	resp, err := http.ReadResponse(w.r, nil)
	if err != nil {
		conn.Close()
		return nil, err
	}
	if resp.StatusCode != http.StatusSwitchingProtocols {
		conn.Close()
		return nil, fmt.Errorf("upgrade: %s", resp.Status)
	}
	if !eager {
		if _, err := conn.Write(hello); err != nil {
			conn.Close()
			return nil, err
		}
	}
	frame, err := w.readText()
	if err != nil || !strings.Contains(frame, `"result"`) {
		conn.Close()
		return nil, fmt.Errorf("hello: %q, %v", frame, err)
	}
	return w, nil
}

// maskedText encodes one masked text frame (RFC 6455 section 5.2), as
// a client must send it.
func maskedText(s string) []byte {
	var hdr []byte
	hdr = append(hdr, 0x81)
	switch n := len(s); {
	case n < 126:
		hdr = append(hdr, 0x80|byte(n))
	case n < 1<<16:
		hdr = append(hdr, 0x80|126, byte(n>>8), byte(n))
	default:
		hdr = append(hdr, 0x80|127)
		hdr = binary.BigEndian.AppendUint64(hdr, uint64(n))
	}
	mask := [4]byte{1, 2, 3, 4}
	hdr = append(hdr, mask[:]...)
	p := []byte(s)
	for i := range p {
		p[i] ^= mask[i%4]
	}
	return append(hdr, p...)
}

// readText reads one unmasked, unfragmented frame from the bridge.
func (w *rawWidget) readText() (string, error) {
	var h [2]byte
	if _, err := io.ReadFull(w.r, h[:]); err != nil {
		return "", err
	}
	n := uint64(h[1] & 0x7f)
	switch n {
	case 126:
		var b [2]byte
		io.ReadFull(w.r, b[:])
		n = uint64(binary.BigEndian.Uint16(b[:]))
	case 127:
		var b [8]byte
		io.ReadFull(w.r, b[:])
		n = binary.BigEndian.Uint64(b[:])
	}
	p := make([]byte, n)
	_, err := io.ReadFull(w.r, p)
	return string(p), err
}

// BenchmarkIdleConnection reports what one connected, idle widget costs
// the bridge (heap and goroutine stacks, after hello).
func BenchmarkIdleConnection(b *testing.B) {
	br := start(b, &bridgeOptions{hub: hubOptions(b.N + 1)})
	conns := make([]*rawWidget, 0, b.N)
	defer func() {
		for _, c := range conns {
			c.conn.Close()
		}
	}()
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	for range b.N {
		c, err := dialRaw(br, false)
		if err != nil {
			b.Fatal(err)
		}
		conns = append(conns, c)
	}
	b.StopTimer()
	runtime.GC()
	runtime.GC()
	runtime.ReadMemStats(&after)
	heap := float64(after.HeapInuse) - float64(before.HeapInuse)
	stack := float64(after.StackInuse) - float64(before.StackInuse)
	b.ReportMetric(heap/float64(b.N), "heap-bytes/conn")
	b.ReportMetric(stack/float64(b.N), "stack-bytes/conn")
	b.ReportMetric((heap+stack)/float64(b.N), "bytes/conn")
}

// A client may send its hello before the upgrade response arrives; the
// bytes land in net/http's buffer and must not be lost on the way to the
// connection's own smaller one.
func TestHelloInTheUpgradeWrite(t *testing.T) {
	b := start(t, nil)
	for _, eager := range []bool{false, true} {
		w, err := dialRaw(b, eager)
		if err != nil {
			t.Fatalf("eager=%v: %v", eager, err)
		}
		w.conn.Close()
	}
}
