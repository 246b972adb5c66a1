package gateway

import (
	"container/list"
	"sync"
)

// lobby holds the connections that have not said hello yet, at most max
// of them. When it is full, a new connection pushes out the one that
// has waited longest. A real widget says hello within a round trip of
// opening, so only a flood of newer silent connections can push it
// out; a client that opens silent connections to hold every place
// cannot lock the widgets out, as refusing the newest would let it.
type lobby struct {
	mu      sync.Mutex
	waiting list.List // *conn, oldest first
	max     int
}

// enter adds c. When the lobby was full it returns the connection that
// waited longest, now out of the lobby, for the caller to drop.
func (l *lobby) enter(c *conn) (pushedOut *conn) {
	l.mu.Lock()
	defer l.mu.Unlock()
	c.waiting = l.waiting.PushBack(c)
	if l.waiting.Len() <= l.max {
		return nil
	}
	pushedOut = l.waiting.Remove(l.waiting.Front()).(*conn)
	pushedOut.waiting = nil
	return pushedOut
}

// leave takes c out of the lobby, if it was not pushed out already: it
// said something, or is gone.
func (l *lobby) leave(c *conn) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if c.waiting != nil {
		l.waiting.Remove(c.waiting)
		c.waiting = nil
	}
}
