/*
 * formbridge embed.js: show the formbridge widget inside your page.
 *
 *   <script src="https://bridge.example.com/web/embed.js"></script>
 *   <div id="approvals"></div>
 *   <script>
 *     const widget = formbridge.mount(document.getElementById("approvals"), {
 *       token: "…",                 // the channel's token (never put it in a URL)
 *       theme: { mode: "auto", colors: { primary: "#0a7d5a" }, radius: "12px" },
 *     });
 *     widget.on("pending", (e) => console.log(e.count, "waiting"));
 *   </script>
 *
 * or <formbridge-widget token="…" theme="dark"></formbridge-widget>.
 *
 * The widget runs in a sandboxed iframe on the bridge's origin. The two
 * pages talk only by postMessage (JSON text, protocol "embed.v1"), and
 * each checks the other's origin and window. The token is sent to the
 * frame after it loads, never in its URL. The host page hears counts,
 * ids, outcomes and the connection state, never what a person typed.
 *
 * Plain JavaScript, no build step, no dependencies.
 */
(function () {
  "use strict";

  var PROTOCOL = "embed.v1";
  // Scripts, its own origin (storage, its WebSocket), forms, and links a
  // person opens in a new tab (URL-mode requests), which must not stay
  // sandboxed. Nothing more: no top navigation, no modals, no downloads.
  var SANDBOX = "allow-scripts allow-same-origin allow-forms allow-popups allow-popups-to-escape-sandbox";
  var STATES = { connecting: 1, online: 1, offline: 1 };
  // Any outcome means the request left: answered, answered-elsewhere,
  // cancelled, expired, unknown (the bridge no longer held it), or one a
  // later widget or bridge adds, which this copy of the script, pinned in
  // a host page, must still pass on.
  var OUTCOME = /^[a-z][a-z0-9-]{0,63}$/;
  var MAX_HEIGHT = 20000; // px; a frame taller than this is a bug, not content

  // The widget lives one folder above this script (…/web/embed.js), at
  // the root of the bridge or of a static site, whatever its prefix.
  var here = document.currentScript && document.currentScript.src;
  var defaultWidget = here ? new URL("../", here).href : "";

  function isObject(v) {
    return v !== null && typeof v === "object" && !Array.isArray(v);
  }

  // mount puts the widget in element and returns its controller.
  function mount(element, options) {
    if (!element || typeof element.appendChild !== "function") {
      throw new TypeError("formbridge.mount: the first argument must be an element");
    }
    var opts = isObject(options) ? options : {};
    if (window.location.origin === "null") {
      throw new Error("formbridge.mount: this page has no origin (opened from a file?); serve it over http(s)");
    }
    var widgetURL = new URL(opts.widget || defaultWidget, window.location.href);
    if (widgetURL.protocol !== "https:" && widgetURL.protocol !== "http:") {
      throw new Error("formbridge.mount: the widget must be an http(s) URL");
    }
    var widgetOrigin = widgetURL.origin;
    var theme = isObject(opts.theme) ? opts.theme : themeOf(opts.theme);
    var minHeight = typeof opts.minHeight === "number" ? opts.minHeight : 160;
    var listeners = {};

    var frame = document.createElement("iframe");
    frame.setAttribute("sandbox", SANDBOX);
    frame.setAttribute("title", typeof opts.title === "string" ? opts.title : "Requests waiting for your answer");
    frame.setAttribute("referrerpolicy", "no-referrer");
    frame.style.cssText = "display:block;width:100%;border:0;height:" + Math.max(minHeight, 320) + "px";
    // The fragment names this page's origin, the one the widget will
    // talk to; the widget's frame-ancestors policy decides whether this
    // page may frame it at all.
    widgetURL.hash = "host=" + encodeURIComponent(window.location.origin);
    frame.src = widgetURL.href;

    function post(message) {
      if (!frame.contentWindow) {
        return;
      }
      message.formbridge = PROTOCOL;
      frame.contentWindow.postMessage(JSON.stringify(message), widgetOrigin);
    }

    function emit(type, detail) {
      (listeners[type] || []).slice().forEach(function (fn) {
        try {
          fn(detail);
        } catch (err) {
          setTimeout(function () {
            throw err;
          });
        }
      });
      element.dispatchEvent(new CustomEvent("formbridge:" + type, { detail: detail }));
    }

    function onMessage(event) {
      // Only our frame, only from the widget's origin, only our protocol.
      if (event.source !== frame.contentWindow || event.origin !== widgetOrigin || typeof event.data !== "string") {
        return;
      }
      var m;
      try {
        m = JSON.parse(event.data);
      } catch (err) {
        return;
      }
      if (!isObject(m) || m.formbridge !== PROTOCOL) {
        return;
      }
      switch (m.type) {
        case "ready":
          // Also after the frame reloads: it needs the link again.
          var init = { type: "init", token: String(opts.token || "") };
          if (opts.bridge) {
            init.bridge = String(opts.bridge);
          }
          if (theme) {
            init.theme = theme;
          }
          post(init);
          emit("ready", {});
          break;
        case "height":
          if (typeof m.height === "number" && m.height > 0) {
            frame.style.height = Math.min(MAX_HEIGHT, Math.max(minHeight, Math.ceil(m.height))) + "px";
          }
          break;
        case "pending":
          if (typeof m.count === "number" && m.count >= 0) {
            emit("pending", { count: Math.floor(m.count) });
          }
          break;
        case "settled":
          if (typeof m.id === "string" && typeof m.outcome === "string" && OUTCOME.test(m.outcome)) {
            emit("settled", { id: m.id, outcome: m.outcome });
          }
          break;
        case "connection":
          if (STATES[m.state]) {
            // reason "unauthorized": the bridge refused the token and the
            // widget stopped trying; mount again with a new one.
            emit("connection", m.reason === "unauthorized" ? { state: m.state, reason: m.reason } : { state: m.state });
          }
          break;
      }
    }

    window.addEventListener("message", onMessage);
    element.appendChild(frame);

    return {
      iframe: frame,
      // on("pending" | "settled" | "connection" | "ready", fn); the same
      // events are dispatched on element as "formbridge:pending" etc.
      on: function (type, fn) {
        (listeners[type] = listeners[type] || []).push(fn);
        return this;
      },
      off: function (type, fn) {
        listeners[type] = (listeners[type] || []).filter(function (f) {
          return f !== fn;
        });
        return this;
      },
      // focus moves keyboard focus to the open request's first control.
      focus: function () {
        frame.focus();
        post({ type: "focus" });
      },
      // setTheme replaces the theme (what it leaves out goes back to the
      // widget's own): {mode, colors, font, radius}, or "light" / "dark"
      // / "auto". Anything else is refused with a warning, and the
      // theme is left as it was.
      setTheme: function (t) {
        var next = isObject(t) ? t : themeOf(t);
        if (next === null && t !== null && t !== undefined && t !== "") {
          console.warn("formbridge: setTheme takes {mode, colors, font, radius} or \"light\", \"dark\" or \"auto\"; the theme is unchanged");
          return;
        }
        theme = next;
        post({ type: "theme", theme: theme || {} });
      },
      destroy: function () {
        window.removeEventListener("message", onMessage);
        listeners = {};
        if (frame.parentNode) {
          frame.parentNode.removeChild(frame);
        }
      },
    };
  }

  // themeOf reads "dark" or a JSON object (the custom element's
  // attribute); anything else is no theme.
  function themeOf(value) {
    if (typeof value !== "string" || value === "") {
      return null;
    }
    if (value === "light" || value === "dark" || value === "auto") {
      return { mode: value };
    }
    try {
      var t = JSON.parse(value);
      return isObject(t) ? t : null;
    } catch (err) {
      return null;
    }
  }

  window.formbridge = { mount: mount, version: PROTOCOL };

  // <formbridge-widget token="…" bridge="wss://…/ws" theme="dark" widget="https://…/">
  // It follows its attributes: a token set after the element is in the
  // page (as a framework does) mounts the widget then, a new token,
  // bridge, widget or title mounts it again, and a new theme is applied.
  var ATTRIBUTES = ["token", "bridge", "widget", "theme", "title"];
  if (window.customElements && !window.customElements.get("formbridge-widget")) {
    window.customElements.define(
      "formbridge-widget",
      class extends HTMLElement {
        static get observedAttributes() {
          return ATTRIBUTES;
        }
        connectedCallback() {
          this._connected = true;
          if (!this.style.display) {
            this.style.display = "block";
          }
          this._mount();
        }
        // Changes before connectedCallback (an element upgraded once this
        // script loads reports each attribute it has) are read there.
        // Changes in one go (token and bridge together) mount once.
        attributeChangedCallback(name, before, after) {
          if (before === after || !this._connected) {
            return;
          }
          if (name === "theme" && this._fb) {
            this._fb.setTheme(after || "");
            return;
          }
          if (this._remount) {
            return;
          }
          this._remount = true;
          queueMicrotask(() => {
            this._remount = false;
            if (this.isConnected) {
              this._unmount();
              this._mount();
            }
          });
        }
        // _mount waits for a token: without one the frame could only say
        // the link is incomplete, to a person who was sent no link.
        _mount() {
          if (this._fb || !this.getAttribute("token")) {
            return;
          }
          this._fb = mount(this, {
            token: this.getAttribute("token"),
            bridge: this.getAttribute("bridge") || "",
            widget: this.getAttribute("widget") || undefined,
            theme: this.getAttribute("theme") || undefined,
            title: this.getAttribute("title") || undefined,
          });
        }
        _unmount() {
          if (this._fb) {
            this._fb.destroy();
            this._fb = null;
          }
        }
        disconnectedCallback() {
          this._connected = false;
          this._unmount();
        }
        focus() {
          if (this._fb) {
            this._fb.focus();
          }
        }
        setTheme(t) {
          if (this._fb) {
            this._fb.setTheme(t);
          }
        }
      }
    );
  }
})();
