package main

import (
	"bytes"
	"io"
	"net"
	"testing"
	"time"
)

// TestRelay: bytes pass both ways intact, none sooner than the delay
// each way, and close ends the connections still open.
func TestRelay(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() { // an echo server
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() { io.Copy(c, c); c.Close() }()
		}
	}()
	const delay = 30 * time.Millisecond
	r, err := startRelay(ln.Addr().String(), delay)
	if err != nil {
		t.Fatal(err)
	}
	c, err := net.Dial("tcp", r.addr())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	sent := bytes.Repeat([]byte("formbridge "), 20000) // several chunks
	start := time.Now()
	go c.Write(sent)
	got := make([]byte, len(sent))
	if _, err := io.ReadFull(c, got); err != nil {
		t.Fatalf("reading the echo: %v", err)
	}
	if took := time.Since(start); took < 2*delay {
		t.Errorf("the echo came back after %v, before the relay's round trip of %v", took, 2*delay)
	}
	if !bytes.Equal(got, sent) {
		t.Error("the echo differs from what was sent")
	}

	closed := make(chan struct{})
	go func() { r.close(); close(closed) }()
	select {
	case <-closed:
	case <-time.After(10 * time.Second):
		t.Fatal("close did not return with a connection open")
	}
	c.SetReadDeadline(time.Now().Add(10 * time.Second))
	if _, err := c.Read(make([]byte, 1)); err == nil {
		t.Error("the connection is still open after close")
	}
}
