package demo

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// CallbackPath is the demo's stand-in for an account provider's sign-in
// page: visiting it (with the id from the link) finishes the connection.
const CallbackPath = "/demo/callback"

// connectWait is how long the account tool waits, after the person agreed
// to open the link, for the visit that finishes the connection.
const connectWait = 10 * time.Minute

// connectCalendar is URL mode: the person is sent to a page outside the
// widget, and the server hears back out of band (here, the callback page)
// and then tells the client with notifications/elicitation/complete.
func (s *Server) connectCalendar(ctx context.Context, ss *mcp.ServerSession) (string, error) {
	if s.baseURL == "" {
		return "", errors.New("the demo does not know the bridge's address, so it cannot make the link")
	}
	secret := rand.Text() // only the link carries it: it proves the visit came from the link
	elicitationID := "calendar-" + rand.Text()[:8]
	done := s.connects.add(secret)
	defer s.connects.remove(secret)

	res, err := ss.Elicit(ctx, &mcp.ElicitParams{
		Mode: "url",
		Message: "Connect your Acme Calendar account so I can book meeting room 2 for you. " +
			"The link opens a page where you allow it; come back here when you are done. "+
			"(In this demo the page is on this computer, which is why formbridge asks you to look twice.)",
		URL:           s.baseURL + CallbackPath + "?id=" + secret,
		ElicitationID: elicitationID,
	})
	if err != nil {
		return "", explain(err)
	}
	switch res.Action {
	case "accept":
	case "decline":
		return "You chose not to connect your calendar, so no room was booked.", nil
	default:
		return "The question was closed without the link being opened, so no room was booked.", nil
	}

	// accept only means the person agreed to open the link; the
	// connection is made when the page is visited.
	timer := time.NewTimer(connectWait)
	defer timer.Stop()
	select {
	case <-done:
	case <-ctx.Done():
		return "", errors.New("the request was withdrawn before the calendar was connected")
	case <-timer.C:
		return fmt.Sprintf("The link was not opened within %v, so the calendar was not connected.", connectWait), nil
	}
	if err := ss.NotifyElicitationComplete(ctx, &mcp.ElicitationCompleteParams{ElicitationID: elicitationID}); err != nil {
		s.log.Warn("could not tell the client the connection finished", "err", err)
	}
	return "Your Acme Calendar is connected, and meeting room 2 is booked for Thursday at 10:00. (This is a demo: nothing was booked.)", nil
}

// connections are the account connections waiting for their callback.
type connections struct {
	mu      sync.Mutex
	waiting map[string]chan struct{} // secret -> closed when visited
}

func newConnections() *connections {
	return &connections{waiting: map[string]chan struct{}{}}
}

func (c *connections) add(secret string) <-chan struct{} {
	c.mu.Lock()
	defer c.mu.Unlock()
	ch := make(chan struct{})
	c.waiting[secret] = ch
	return ch
}

func (c *connections) remove(secret string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.waiting, secret)
}

// visit marks the connection done. It reports false for a link that is
// unknown or whose question has ended; visiting twice is fine.
func (c *connections) visit(secret string) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	ch, ok := c.waiting[secret]
	if !ok {
		return false
	}
	select {
	case <-ch:
	default:
		close(ch)
	}
	return true
}
