// formbridge: opens the widget's connection to the bridge, and says hello
// on it, while the page is still downloading and compiling its wasm. The
// requests waiting for this person are then already in the page when the
// widget starts, instead of taking the handshake's and the hello's round
// trips after it (on a real network, several times the wasm's own
// start-up). The widget takes the connection over only if it is to the
// URL, and its hello the very bytes, that the widget would have used
// itself (app/client, predial); otherwise it closes it and dials.
//
// On a page of its own, opened from a link with a #token= (or reloaded
// after one); in a host page's frame, once the host has sent the link by
// message (see framed). On the bridge's own page the bridge is the
// page's own, and a link naming another (#bridge=) is left to the
// widget. On a static site (server/site, GenerateStatic), whose
// page names its config.json in a meta element, the script fetches that
// file first and connects where the widget will (app/embed,
// ChooseBridge); the widget then reads the file from here rather than
// fetching it again. In the page itself, it runs as the page is parsed,
// before go-app's deferred loader. Deferred or async, it ran so late that
// the handshake's open event waited behind the wasm's start. The widget
// copes with it running late or not at all.
(() => {
  "use strict";
  const NAME = "formbridgeEarly";
  // The widget sets NAME to null when it has started without it.
  if (window[NAME] !== undefined || typeof WebSocket !== "function") return;

  // The same as the widget's helloFrame and dialBridge; the widget
  // compares them with its own before taking the connection. The page's
  // version is the widget's too (server/site writes it only when plain,
  // which both JSON encoders write alike).
  const subprotocol = "formbridge.v1";
  const version = document.querySelector('meta[name="formbridge-version"]')?.content ?? "";
  const helloFor = (token) => '{"jsonrpc":"2.0","id":"hello","method":"formbridge/hello","params":{"token":' + JSON.stringify(token) +
    ',"clientInfo":{"name":"formbridge-widget","title":"formbridge"' + (version === "" ? "" : ',"version":' + JSON.stringify(version)) +
    '},"capabilities":{"elicitation":{"form":{},"url":{}}}}}';
  // A wasm that never starts (an old browser, a failed download) must
  // not leave the bridge a widget that never answers.
  const unclaimedFor = 60_000;
  // The bridge's own /ws: the widget's client.BridgeURL with no bridge
  // named.
  const ownBridge = (location.protocol === "https:" ? "wss://" : "ws://") + location.host + "/ws";
  const config = document.querySelector('meta[name="formbridge-config"]')?.content ?? "";
  // badEscape is a '%' without two hex digits after it: Go's URL and query
  // parsers refuse it, where the browser's read on.
  const badEscape = /%(?![0-9A-Fa-f]{2})/;
  // goQuery reads a fragment as Go's url.ParseQuery does for the widget
  // (app/ui parseFragment, app/embed hostOrigin): null where Go refuses
  // it, for a ';' or a '%' without two hex digits, which URLSearchParams
  // reads on.
  const goQuery = (hash) => (hash.includes(";") || badEscape.test(hash) ? null : new URLSearchParams(hash.slice(1)));

  if (window.parent !== window) {
    framed();
    return;
  }
  // A fragment Go refuses is no link: the widget then reads the kept one.
  const link = goQuery(location.hash) ?? new URLSearchParams();
  let token = (link.get("token") ?? "").trim();
  let bridge = (link.get("bridge") ?? "").trim();
  if (token === "") {
    // A reload: the widget took the link out of the address and kept it
    // in the tab's session storage (app/ui, linkKey).
    try {
      const kept = JSON.parse(sessionStorage.getItem("formbridge.link") ?? "{}");
      token = String(kept?.token ?? "").trim();
      bridge = String(kept?.bridge ?? "").trim();
    } catch {
      return; // storage blocked, or not a link: the widget will see
    }
  }
  if (token === "") return;
  const hello = helloFor(token);

  if (config === "") {
    // The bridge's own page.
    if (bridge === "") connect(ownBridge, hello);
    return;
  }
  // A static site. The widget (app/embed, LoadConfig) takes this
  // promise of the file's {status, text} instead of fetching it again,
  // so it settles only once the connection is under way, with what
  // fetch gave even when connecting failed.
  window.formbridgeConfig = fetch(config, { cache: "no-cache", credentials: "omit", redirect: "error" })
    .then(async (r) => ({ status: r.status, text: await r.text() }))
    .catch(() => ({ status: 0, text: "" }))
    .then((answer) => {
      try {
        const url = staticBridge(answer, bridge);
        if (url !== "") connect(url, hello);
      } catch {
        // The widget will see.
      }
      return answer;
    });

  // staticBridge is where the widget will connect, given config.json's
  // answer and the link's bridge, as app/embed's parseConfig and
  // ChooseBridge decide it; "" where the two might read things apart,
  // which leaves the connection to the widget. A link never points the
  // site elsewhere than a bridge its config.json names: that bridge's
  // requests would be shown, even here under the loader, as this site's.
  function staticBridge({ status, text }, linkBridge) {
    if (status === 404) return linkBridge === "" ? "" : bridgeURL(linkBridge);
    if (status !== 200 || byteLength(text) > 16384) return "";
    let named;
    try {
      named = JSON.parse(text)?.bridge;
    } catch {
      return "";
    }
    // Go's decoder also takes "Bridge" or "BRIDGE", the last one
    // written winning, and fails on one that is not a string: so only a
    // file with one such key, spelled "bridge", reads alike to both.
    // (Every string followed by a colon is a key, at any depth.)
    const keys = [...text.matchAll(/"((?:[^"\\]|\\.)*)"\s*:/g)].map((m) => JSON.parse('"' + m[1] + '"'));
    if (keys.filter((k) => k.toLowerCase() === "bridge").length !== 1) return "";
    if (typeof named !== "string" || named.trim() === "") return "";
    const url = bridgeURL(named);
    return linkBridge === "" || bridgeURL(linkBridge) === url ? url : "";
  }

  // bridgeURL is client.BridgeURL of a bridge that a link or config.json
  // names: ws(s), with /ws when it has no path. Where the browser writes
  // a URL otherwise than Go (a host in capitals, a default port), the
  // widget finds this one is not its own and dials for itself. "" for a
  // form the two parsers might read apart: the browser's takes "wss:/a",
  // "https:\\a", a "%zz", controls and a byte-order mark, which Go's
  // refuses, so only plain ASCII addresses with a host of letters,
  // digits, dots and dashes are read here (any other: the widget
  // decides).
  const plainAddress = /^(?:wss?|https?):\/\/[A-Za-z0-9.-]+(?::[0-9]{1,5})?(?:[/?][A-Za-z0-9._~!$&'()*+,;=:@/?%-]*)?$/i;
  function bridgeURL(raw) {
    const trimmed = raw.replace(/^[\t\n\v\f\r ]+|[\t\n\v\f\r ]+$/g, "");
    if (!plainAddress.test(trimmed) || badEscape.test(trimmed)) return "";
    let u;
    try {
      u = new URL(trimmed);
    } catch {
      return "";
    }
    const scheme = { "http:": "ws:", "ws:": "ws:", "https:": "wss:", "wss:": "wss:" }[u.protocol];
    if (scheme === undefined || u.host === "") return "";
    return scheme + "//" + u.host + (u.pathname === "" || u.pathname === "/" ? "/ws" : u.pathname) + u.search;
  }

  // framed runs in a host page's frame (web/embed.js), which sends the
  // link in an init message once the frame says it listens (ready). The
  // frame listens from the start here: it says ready, keeps the host's
  // messages for the widget (app/embed, Attach, which reads them as if
  // just received, each checked again), and connects with init's token
  // as on the bridge's own page. Init naming a bridge, or a static site's
  // frame, is left to the widget.
  function framed() {
    const host = hostOrigin(location.hash);
    if (host === "") return;
    const held = []; // 64 at most: a host sending more before the widget runs repeats itself
    // Only the first init connects, as in app/embed's Host.handle: a
    // later one's token is not the widget's.
    let linked = false;
    const hear = (e) => {
      if (e.origin !== host || e.source !== window.parent || typeof e.data !== "string" || held.length >= 64) return;
      held.push(e);
      const init = readInit(e.data);
      if (init === null || linked) return;
      linked = true;
      frame.token = init.token;
      if (init.token !== "" && init.bridge === "" && config === "") connect(ownBridge, helloFor(init.token));
    };
    addEventListener("message", hear);
    const frame = {
      // The first init's token, for the page's other scripts (the demo's
      // panel, web/demo.js), which would miss an init that came before
      // they listened.
      token: "",
      // take hands the widget what the host sent so far and stops
      // listening: the widget listens from then on.
      take() {
        removeEventListener("message", hear);
        return held.splice(0);
      },
    };
    window.formbridgeFrame = frame;
    window.parent.postMessage(JSON.stringify({ formbridge: "embed.v1", type: "ready" }), host);
  }

  // hostOrigin is the frame's #host=, the host page's origin, as app/embed
  // reads it (hostOrigin, checkOrigin); "" unless it is an http(s) origin
  // and nothing more, written as the browser writes one.
  function hostOrigin(hash) {
    const q = goQuery(hash);
    if (q === null) return "";
    const raw = q.get("host") ?? "";
    let u;
    try {
      u = new URL(raw);
    } catch {
      return "";
    }
    if ((u.protocol !== "http:" && u.protocol !== "https:") || u.username !== "" || u.password !== "") return "";
    const origin = u.protocol + "//" + u.host;
    return raw.replace(/\/$/, "").toLowerCase() === origin ? origin : "";
  }

  // readInit is an init message's {token, bridge}, as app/embed's
  // parseInbound reads them (absent or null: ""); null for any other
  // message, or one whose token or bridge Go's decoder would refuse.
  function readInit(text) {
    if (byteLength(text) > 16384) return null;
    let m;
    try {
      m = JSON.parse(text);
    } catch {
      return null;
    }
    if (m?.formbridge !== "embed.v1" || m.type !== "init") return null;
    const field = (v) => (v === undefined || v === null ? "" : typeof v === "string" ? v.trim() : null);
    const token = field(m.token), bridge = field(m.bridge);
    return token === null || bridge === null ? null : { token, bridge };
  }

  // byteLength is the length of text in UTF-8, as Go's len counts it.
  function byteLength(text) {
    return new TextEncoder().encode(text).length;
  }

  // connect opens the early connection to url, saying hello on it, and
  // offers it to the widget as window[NAME], unless the widget has
  // started without it or a connection is on offer already.
  function connect(url, hello) {
    if (window[NAME] !== undefined) return;
    const RealWebSocket = WebSocket;
    let ws;
    try {
      ws = new RealWebSocket(url, [subprotocol]);
    } catch {
      return;
    }
    ws.binaryType = "arraybuffer";

    // What the socket did before the widget took it, replayed to it in
    // order; after that, events pass straight through.
    const held = [];
    let socket = null; // the stand-in handed to the widget
    // When the first frame (hello's answer) came: it may wait here for the
    // widget for seconds, and the widget reads the bridge's clock in it.
    let heardAt = 0;
    const pass = (e) => {
      if (heardAt === 0 && e.type === "message") heardAt = Date.now();
      if (socket && held.length === 0) socket.relay(e);
      else held.push(e);
    };
    for (const type of ["open", "message", "error", "close"]) ws.addEventListener(type, pass);
    ws.addEventListener("open", () => ws.send(hello), { once: true });

    // While the wasm downloads (seconds on a phone's network) go-app's
    // loader covers the page with "Getting ready… N%", and the requests
    // waiting for the person are already here: the first is said under it,
    // as text, so they know what they are waiting for. go-app removes the
    // loader, and this with it, when the widget starts.
    let waiting = 0;
    const preview = (params) => {
      const loader = document.getElementById("app-wasm-loader");
      if (!loader || document.getElementById("fb-loader-request")) return;
      const meta = params._meta?.["formbridge/request"]?.requester ?? {};
      const shorten = (s, n) => {
        const chars = Array.from(String(s ?? "").trim());
        return chars.length > n ? chars.slice(0, n - 1).join("").trimEnd() + "\u2026" : chars.join("");
      };
      // As the widget names a requester and sums up a message (app/ui).
      const who = shorten(meta.title || meta.name, 80) || "A connected app";
      const what = shorten(String(params.message ?? "").split("\n").find((l) => l.trim() !== ""), 160);
      const p = document.createElement("p");
      p.id = "fb-loader-request";
      p.className = "fb-loader-request";
      const isolated = (text) => Object.assign(document.createElement("bdi"), { textContent: text });
      p.append(
        waiting > 1 ? waiting + " requests are waiting for you. The first, from " : "",
        isolated(who),
        waiting > 1 ? ": " : " is asking you: ",
        what ? "\u201c" : "",
        isolated(what),
        what ? "\u201d" : "",
      );
      loader.append(p);
    };
    const onFrame = (e) => {
      if (socket || typeof e.data !== "string") return ws.removeEventListener("message", onFrame);
      let m;
      try {
        m = JSON.parse(e.data);
      } catch {
        return;
      }
      if (m.id === "hello") waiting = Number(m.result?.pending) || 0;
      if (m.method !== "elicitation/create") return;
      waiting = Math.max(waiting, 1); // one that came after the hello
      ws.removeEventListener("message", onFrame);
      if (m.params && typeof m.params === "object") {
        if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", () => preview(m.params), { once: true });
        else preview(m.params);
      }
    };
    ws.addEventListener("message", onFrame);

    // EarlySocket is the WebSocket the widget's coder/websocket gets: the
    // early connection, with what it has already received replayed.
    class EarlySocket extends EventTarget {
      get url() { return ws.url; }
      get protocol() { return ws.protocol; }
      get extensions() { return ws.extensions; }
      get readyState() { return ws.readyState; }
      get bufferedAmount() { return ws.bufferedAmount; }
      get binaryType() { return ws.binaryType; }
      set binaryType(v) { ws.binaryType = v; }
      send(data) { ws.send(data); }
      // coder/websocket closes a dial that timed out with 1008, which a
      // browser refuses with an exception, leaving the socket to open
      // later and say hello for a widget that is gone: close it anyway.
      close(code, reason) {
        try {
          ws.close(code, reason);
        } catch (e) {
          ws.close(1000);
          throw e;
        }
      }
      relay(e) {
        switch (e.type) {
          case "message":
            this.dispatchEvent(new MessageEvent("message", { data: e.data }));
            break;
          case "close":
            this.dispatchEvent(new CloseEvent("close", { code: e.code, reason: e.reason, wasClean: e.wasClean }));
            break;
          default:
            this.dispatchEvent(new Event(e.type));
        }
      }
    }

    const expire = setTimeout(() => drop(), unclaimedFor);
    const drop = () => {
      clearTimeout(expire);
      if (socket) return;
      window[NAME] = null;
      ws.close(1000);
    };
    window[NAME] = {
      url,
      hello,
      subprotocol,
      get heardAt() { return heardAt; }, // ms since 1970, 0 before the first frame
      // take makes the next `new WebSocket(url, [subprotocol])` return the
      // early connection, once, and returns null; coder/websocket creates
      // its socket that way and has no other door. Events it already had
      // reach the new listeners once the code that made the socket has run
      // (coder/websocket adds its listeners right after), never during it,
      // as a new socket's would. In a microtask, not a task: between tasks
      // the browser would first lay out and paint the page go-app has just
      // built, for the form to replace it at once (10-20 ms of a load, by
      // interleaved load benches). A connection that has ended is closed
      // and not handed over: take returns the text frames it got instead
      // (the bridge's refusal of the token, say), and the widget dials
      // unless they refuse it.
      take() {
        if (ws.readyState !== RealWebSocket.CONNECTING && ws.readyState !== RealWebSocket.OPEN) {
          const frames = held.filter((e) => e.type === "message" && typeof e.data === "string").map((e) => e.data);
          drop();
          return frames;
        }
        clearTimeout(expire);
        window[NAME] = null;
        window.WebSocket = function (u, protocols) {
          window.WebSocket = RealWebSocket;
          if (u !== url || String(protocols) !== subprotocol) {
            // Not the socket the widget was promised: failing the dial
            // has it dial for itself.
            drop();
            throw new TypeError("formbridge: the early connection is to " + url + " (" + subprotocol + ")");
          }
          socket = new EarlySocket();
          queueMicrotask(() => {
            while (held.length > 0) socket.relay(held.shift());
          });
          return socket;
        };
        return null;
      },
      drop,
    };
  }
})();
