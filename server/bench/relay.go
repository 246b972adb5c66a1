package main

import (
	"net"
	"sync"
	"time"
)

// relay forwards loopback TCP connections to a server, holding every
// chunk it reads for delay before passing it on, in each direction: a
// stand-in for a network's round trip (twice delay) for the page-load
// figures over one. It limits no bandwidth: chunks in flight overlap.
type relay struct {
	ln     net.Listener
	delay  time.Duration
	mu     sync.Mutex
	conns  map[net.Conn]bool
	closed bool
	wg     sync.WaitGroup
}

// startRelay listens on a free loopback port for target's connections.
func startRelay(target string, delay time.Duration) (*relay, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	r := &relay{ln: ln, delay: delay, conns: map[net.Conn]bool{}}
	r.wg.Add(1)
	go func() {
		defer r.wg.Done()
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			r.wg.Add(1)
			go func() {
				defer r.wg.Done()
				r.serve(c, target)
			}()
		}
	}()
	return r, nil
}

// addr is the relay's host:port.
func (r *relay) addr() string { return r.ln.Addr().String() }

// close stops listening, cuts every connection and waits for their
// goroutines.
func (r *relay) close() {
	r.ln.Close()
	r.mu.Lock()
	r.closed = true
	for c := range r.conns {
		c.Close()
	}
	r.mu.Unlock()
	r.wg.Wait()
}

// track adds c to the connections close cuts, or cuts it at once when
// close has run.
func (r *relay) track(c net.Conn) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		c.Close()
		return
	}
	r.conns[c] = true
}

func (r *relay) forget(c net.Conn) {
	r.mu.Lock()
	delete(r.conns, c)
	r.mu.Unlock()
	c.Close()
}

// serve relays one client connection both ways until either side ends.
func (r *relay) serve(client net.Conn, target string) {
	r.track(client)
	defer r.forget(client)
	server, err := net.Dial("tcp", target)
	if err != nil {
		return
	}
	r.track(server)
	defer r.forget(server)
	done := make(chan struct{}, 2)
	go func() { r.pipe(server, client); done <- struct{}{} }()
	go func() { r.pipe(client, server); done <- struct{}{} }()
	<-done // one side ended: the deferred closes end the other
}

// pipe copies src to dst, each chunk delay after it was read.
func (r *relay) pipe(dst, src net.Conn) {
	type chunk struct {
		due  time.Time
		data []byte
	}
	chunks := make(chan chunk, 256)
	go func() {
		defer close(chunks)
		for {
			buf := make([]byte, 32<<10)
			n, err := src.Read(buf)
			if n > 0 {
				chunks <- chunk{time.Now().Add(r.delay), buf[:n]}
			}
			if err != nil {
				return
			}
		}
	}()
	for c := range chunks {
		time.Sleep(time.Until(c.due))
		if _, err := dst.Write(c.data); err != nil {
			// The reader ends once src is closed (serve's defers).
			for range chunks {
			}
			return
		}
	}
}
