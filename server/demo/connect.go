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

const connectMessage = "Connect your Acme Calendar account so I can book meeting room 2 for you. " +
	"The link opens a page where you allow it; come back here when you are done. " +
	"(In this demo the page is on this computer, which is why formbridge asks you to look twice.)"

// connectCalendar is URL mode: the person is sent to a page outside the
// widget, and the server hears back out of band (here, the callback page).
// The secret in the link proves the visit came from it.
func (s *Server) connectCalendar(ctx context.Context, req *mcp.CallToolRequest) (string, error) {
	if s.baseURL == "" {
		return "", errors.New("the demo does not know the bridge's address, so it cannot make the link")
	}
	if classic(req.Session) {
		return s.connectClassic(ctx, req)
	}
	// 2026-07-28: the first call returns the question with the secret as
	// the request state; the client's retry brings the answer and the
	// state back. The state comes from the client, so it is only looked up.
	secret := req.Params.RequestState
	if req.Params.InputResponses == nil {
		secret = rand.Text()
		s.connects.add(secret, connectWait)
	}
	res, err := getAnswer(ctx, req, &mcp.ElicitParams{Mode: "url", Message: connectMessage, URL: s.link(secret)}, secret)
	if err != nil {
		return "", err
	}
	defer s.connects.remove(secret)
	done, ok := s.connects.lookup(secret)
	if !ok {
		return "", errors.New("this connection request has expired; press the button again")
	}
	return s.afterAnswer(ctx, res, done, nil)
}

// connectClassic asks with elicitation/create and, once the page has been
// visited, tells the client with notifications/elicitation/complete.
func (s *Server) connectClassic(ctx context.Context, req *mcp.CallToolRequest) (string, error) {
	secret := rand.Text()
	elicitationID := "calendar-" + rand.Text()[:8]
	s.connects.add(secret, connectWait)
	defer s.connects.remove(secret)
	done, _ := s.connects.lookup(secret)
	res, err := getAnswer(ctx, req, &mcp.ElicitParams{Mode: "url", Message: connectMessage, URL: s.link(secret), ElicitationID: elicitationID}, "")
	if err != nil {
		return "", err
	}
	return s.afterAnswer(ctx, res, done, func() {
		if err := req.Session.NotifyElicitationComplete(ctx, &mcp.ElicitationCompleteParams{ElicitationID: elicitationID}); err != nil {
			s.log.Warn("could not tell the client the connection finished", "err", err)
		}
	})
}

func (s *Server) link(secret string) string { return s.baseURL + CallbackPath + "?id=" + secret }

// afterAnswer waits, after an accept, for the visit to the link; accept
// only means the person agreed to open it. complete, if set, runs once
// the visit has happened.
func (s *Server) afterAnswer(ctx context.Context, res *mcp.ElicitResult, done <-chan struct{}, complete func()) (string, error) {
	switch res.Action {
	case "accept":
	case "decline":
		return "You chose not to connect your calendar, so no room was booked.", nil
	default:
		return "The question was closed without the link being opened, so no room was booked.", nil
	}
	timer := time.NewTimer(connectWait)
	defer timer.Stop()
	select {
	case <-done:
	case <-ctx.Done():
		return "", errors.New("the request was withdrawn before the calendar was connected")
	case <-timer.C:
		return fmt.Sprintf("The link was not opened within %v, so the calendar was not connected.", connectWait), nil
	}
	if complete != nil {
		complete()
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

// add registers secret until remove, or until ttl has passed: at
// 2026-07-28 a client may never come back with the answer.
func (c *connections) add(secret string, ttl time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	ch := make(chan struct{})
	c.waiting[secret] = ch
	time.AfterFunc(ttl, func() {
		c.mu.Lock()
		defer c.mu.Unlock()
		if c.waiting[secret] == ch {
			delete(c.waiting, secret)
		}
	})
}

func (c *connections) lookup(secret string) (<-chan struct{}, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	ch, ok := c.waiting[secret]
	return ch, ok
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
