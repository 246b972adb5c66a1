package ui

import (
	"errors"

	"github.com/formbridge/formbridge/app/client"
	"github.com/formbridge/formbridge/app/embed"
	"github.com/formbridge/formbridge/app/wire"
	"github.com/maxence-charriere/go-app/v9/pkg/app"
)

// clientInfo is how the widget introduces itself in hello; Register
// adds the page's version.
var clientInfo = wire.Implementation{Name: "formbridge-widget", Title: "formbridge"}

// connect reads the link from the fragment (or, after a reload, from
// this tab's session storage), then runs the client until the widget is
// dismounted. Client events arrive on the client's goroutine and are
// handed to the UI goroutine one by one, in order.
func (w *widget) connect(ctx app.Context) {
	// In a host page's iframe (embed.js), the link arrives by postMessage.
	if w.host = embed.Attach(ctx, func(ctx app.Context, l embed.Link) {
		w.resolve(ctx, app.Window().URL().String(), link{Token: l.Token, Bridge: l.Bridge})
	}); w.host != nil {
		embedded = true
		if !w.host.HeardInit() {
			// The page's script may have connected with an init this
			// widget refused (it reads messages more loosely than Go):
			// a later init dials anew.
			client.Predial(client.Options{})
		}
		return
	}
	pageURL, fragment := readFragment()
	l := parseFragment(fragment)
	if l.Token != "" {
		storeLink(l) // for a reload, which has no fragment
	}
	// A new link opened in this tab changes only the fragment, which
	// loads nothing: the page reloads to connect with it.
	w.releaseHash = app.Window().AddEventListener("hashchange", onLinkChange)
	if l = orKept(l); l.Refused {
		client.Predial(client.Options{}) // lets go of the page's connection
		w.onFatal(true)
		return
	}
	w.resolve(ctx, pageURL, l)
}

// predial starts the WebSocket handshake before go-app builds the page,
// or takes the one the page's script opened while the wasm loaded, when
// the page's own link says where to connect (client.Predial). Inside
// another page's frame, where the link arrives by message, and on a
// static site, whose config.json may name another bridge, dial does,
// once it knows. The fragment (or, on a reload, the link kept from it)
// is only read here; connect reads it again and clears it.
func predial() {
	if !app.IsClient || embed.Static() {
		return
	}
	win := app.Window()
	if parent := win.Get("parent"); parent.Truthy() && !parent.Equal(win.JSValue()) {
		return // dial's, once the host has sent the link
	}
	client.Predial(predialOptions(win))
}

// predialOptions are predial's client.Options; none when it cannot know
// the bridge yet.
func predialOptions(win app.BrowserWindow) client.Options {
	loc := win.Get("location")
	l := orKept(parseFragment(loc.Get("hash").String()))
	if l.Token == "" {
		return client.Options{}
	}
	return client.Options{URL: client.BridgeURL(loc.Get("href").String(), l.Bridge), Token: l.Token, ClientInfo: clientInfo}
}

// orKept is the fragment's link l, or, when it has no token (a reload),
// the link this tab kept from an earlier fragment, whole: a fragment's
// bridge is never paired with another link's token (web/connect.js
// reads the kept link the same way).
func orKept(l link) link {
	if l.Token != "" {
		return l
	}
	var kept link
	loadStored(linkKey, &kept)
	return kept
}

// onLinkChange reloads the page when the address's fragment changes to
// a link (connect reads it then; so does web/connect.js). Taking the
// token out of the address (readFragment) fires no hashchange.
func onLinkChange(ctx app.Context, e app.Event) {
	if loc := app.Window().Get("location"); parseFragment(loc.Get("hash").String()).Token != "" {
		loc.Call("reload")
	}
}

// resolve finds a static site's bridge (its config.json, else the link;
// see embed.ChooseBridge), then dials.
func (w *widget) resolve(ctx app.Context, pageURL string, l link) {
	if l.Token == "" {
		// In a frame or on a static site predial has not run, and the
		// page's script may have read a token here there is none of (a
		// fragment Go's query parser refuses, a second init, a space
		// JavaScript does not trim): its connection must not wait out
		// its 60 s, nor open later.
		client.Predial(client.Options{})
		w.noLink = true
		w.state = connOffline
		return
	}
	if embed.Static() {
		// Even when the link names a bridge: a site whose config.json
		// names one must not be pointed elsewhere by a link.
		embed.LoadConfig(ctx, func(ctx app.Context, bridge, problem string) {
			same := func(a, b string) bool {
				return client.BridgeURL(pageURL, a) == client.BridgeURL(pageURL, b)
			}
			bridge, problem = embed.ChooseBridge(l.Bridge, bridge, problem, same)
			if problem != "" {
				client.Predial(client.Options{}) // lets go of the page's connection
				w.fatal, w.state = problem, connOffline
				return
			}
			l.Bridge = bridge
			w.dial(ctx, pageURL, l)
		})
		return
	}
	w.dial(ctx, pageURL, l)
}

// dial runs the client until the widget is dismounted.
func (w *widget) dial(ctx app.Context, pageURL string, l link) {
	bridgeURL := client.BridgeURL(pageURL, l.Bridge)
	// In a frame or on a static site, the connection the page's script
	// opened while the wasm loaded is taken here, if it is to this bridge
	// with this hello (web/connect.js); elsewhere predial has run.
	client.Predial(client.Options{URL: bridgeURL, Token: l.Token, ClientInfo: clientInfo})
	if l.Bridge != "" {
		w.watch = embed.NewWatch(bridgeURL)
	}
	// The requests the bridge held at hello are kept here as they arrive
	// and reach the widget together, with whatever event ends them
	// (Synced, or the connection lost): rendered once, not once per
	// request with the whole growing list. A render each kept a page
	// opened on 100 requests blank for 2 s; dispatched one by one, they
	// were still rendered at each of go-app's frames while they came,
	// 27 times for 100 on a busy machine.
	syncing, backlog := false, []client.Event(nil)
	c := client.New(client.Options{
		URL:        bridgeURL,
		Token:      l.Token,
		ClientInfo: clientInfo,
		OnEvent: func(e client.Event) {
			if syncing && e.Request != nil {
				backlog = append(backlog, e)
				return
			}
			events := append(backlog, e)
			backlog = nil
			ctx.Dispatch(func(ctx app.Context) {
				for _, e := range events {
					w.onClientEvent(ctx, e)
				}
			})
			switch {
			case e.Hello != nil:
				syncing = e.Hello.Pending > 0
			case e.Request != nil, e.Synced != nil:
				// Someone is waiting on this one; the rest (settled,
				// gone, connection) can share go-app's next frame.
				syncing = false
				w.renderNow(ctx)
			}
		},
	})
	w.conn = c
	w.reconnect = c.Retry
	go c.Run(ctx)
}

// onClientEvent routes one client event.
func (w *widget) onClientEvent(ctx app.Context, e client.Event) {
	// The clocks up to now first (armTick's timer may not have come yet),
	// as the tick each second did: a request that arrives reads them.
	w.tick(ctx, w.clock())
	switch {
	case e.State != "":
		w.onConnectionChange(string(e.State))
	case e.Hello != nil:
		w.onHello(ctx, e.Hello)
		w.setClock(e.Hello.Time, e.HelloAt)
	case e.Request != nil:
		w.onRequest(ctx, e.Request.ID, e.Request.Params, e.Request.Meta)
	case e.Synced != nil:
		w.onSynced(ctx, e.Synced.IDs)
	case e.Gone != "":
		w.onGone(ctx, e.Gone)
	case e.AnswerRefused != "":
		w.onAnswerRefused(e.AnswerRefused)
	case e.Settled != nil:
		w.onSettled(ctx, e.Settled)
	case e.Complete != nil:
		w.onComplete(e.Complete)
	case e.Fatal != nil:
		unauthorized := errors.Is(e.Fatal, client.ErrUnauthorized)
		switch {
		case unauthorized && embedded:
			// The frame keeps no link (its host sends one each time);
			// the tab's may be its bridge's own page's.
			w.host.Refused()
		case unauthorized:
			// A reload must not retry a token the bridge refused.
			tabStorage.setItem(linkKey, refusedLink)
		}
		w.onFatal(unauthorized)
		// The client has stopped for good: no "still trying" may
		// replace the reason with the state that follows.
		w.watch = nil
	}
	// app/embed: word a bridge on another origin that never answered, and
	// tell an embedding page what changed (never what was answered;
	// settle tells it of each request that left).
	if e.State != "" && w.watch != nil {
		w.fatal = w.watch.Problem(w.state)
	}
	w.host.Report(w.state, w.queue.len())
	w.startWarmup(ctx)
	// When a clock next changes: a request came or went, or hello set
	// the clock.
	w.armTick(ctx)
}
