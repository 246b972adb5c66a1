package hub

import "github.com/formbridge/formbridge/app/wire"

// URL mode: the request settles when the person agrees to open the link
// (accept); the server tells the bridge later that the interaction
// finished (notifications/elicitation/complete), which the widgets show.
// A channel remembers the ids of URL requests that may still complete.

// Complete forwards notifications/elicitation/complete to the channel's
// URL-capable widgets. An id the channel does not hold, or one already
// completed or declined, is ignored as MCP asks.
func (h *Hub) Complete(channel, elicitationID string) error {
	c, err := h.channel(channel)
	if err != nil {
		return err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.urls[elicitationID] == nil {
		return nil
	}
	delete(c.urls, elicitationID)
	frame := notificationFrame(wire.MethodComplete, wire.CompleteParams{ElicitationID: elicitationID})
	for s := range c.sessions {
		if s.url {
			s.push(frame)
		}
	}
	return nil
}

// urlState marks a URL-mode elicitation id as known and not yet complete.
type urlState struct{ seq uint64 }

// maxURLs bounds the URL-mode ids a channel remembers: servers that never
// send complete must not grow it without end.
const maxURLs = 1024

// trackURL notes eid. It is out of line so that its map walk does not
// sit in channel.add's frame (see Hub.submit).
//
//go:noinline
func (c *channel) trackURL(eid string) {
	c.urlSeq++
	c.urls[eid] = &urlState{seq: c.urlSeq}
	if len(c.urls) <= maxURLs {
		return
	}
	var oldest string
	var min uint64
	for id, st := range c.urls {
		if oldest == "" || st.seq < min {
			oldest, min = id, st.seq
		}
	}
	delete(c.urls, oldest)
}
