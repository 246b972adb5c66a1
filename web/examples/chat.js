// The chat example's glue: read the link, load embed.js from the
// widget's origin, mount the widget in the side panel, and react to its
// events. Everything an integrator needs is in start().
(function () {
  "use strict";

  // chat.html#token=…[&bridge=wss://…/ws][&widget=https://bridge.example.com/]
  var link = new URLSearchParams(location.hash.slice(1));
  if (location.hash) {
    history.replaceState(null, "", location.pathname + location.search);
  }
  var token = link.get("token") || "";
  // The bridge serves this page at /examples/chat.html and also, with
  // the rest of the web folder, at /web/examples/chat.html (as a static
  // site does): either way the widget is at the site's root.
  var up = /\/web\/examples\/[^/]*$/.test(location.pathname) ? "../../" : "../";
  var widget = link.get("widget") || new URL(up, location.href).href;
  var bridge = link.get("bridge") || "";

  var $ = function (id) {
    return document.getElementById(id);
  };
  // What the page heard, for tests and the curious (never answers).
  window.chatEvents = [];

  function say(text) {
    var li = document.createElement("li");
    li.className = "msg note";
    var p = document.createElement("p");
    p.textContent = text; // text, never markup
    li.appendChild(p);
    $("messages").appendChild(li);
  }

  var words = {
    answered: "You answered a request. The assistant has your answer.",
    "answered-elsewhere": "A request was answered somewhere else.",
    cancelled: "A request was called off.",
    expired: "A request expired before anyone answered it.",
  };

  function start() {
    if (!token) {
      $("hint").hidden = false;
      $("conn").textContent = "Not connected";
      return;
    }
    var dark = document.documentElement.classList.contains("dark");
    var w = window.formbridge.mount($("widget"), {
      widget: widget,
      bridge: bridge,
      token: token,
      title: "Approvals for Acme Assistant",
      theme: { mode: dark ? "dark" : "light", colors: { primary: dark ? "#3fb98a" : "#0a7d5a" }, radius: "12px" },
    });
    window.chatWidget = w;
    w.on("pending", function (e) {
      window.chatEvents.push({ type: "pending", count: e.count });
      $("badge").hidden = e.count === 0;
      $("badge").textContent = String(e.count);
      document.querySelector(".side").classList.toggle("attention", e.count > 0);
    });
    w.on("settled", function (e) {
      window.chatEvents.push({ type: "settled", id: e.id, outcome: e.outcome });
      say(words[e.outcome] || "A request left.");
    });
    w.on("connection", function (e) {
      window.chatEvents.push({ type: "connection", state: e.state });
      var c = $("conn");
      c.dataset.state = e.state;
      c.textContent = { online: "Connected", connecting: "Connecting…", offline: "Offline" }[e.state];
    });

    $("mode").addEventListener("click", function () {
      var on = document.documentElement.classList.toggle("dark");
      this.setAttribute("aria-pressed", String(on));
      this.textContent = on ? "Light mode" : "Dark mode";
      w.setTheme({ mode: on ? "dark" : "light", colors: { primary: on ? "#3fb98a" : "#0a7d5a" }, radius: "12px" });
    });
  }

  $("composer").addEventListener("submit", function (e) {
    e.preventDefault();
    var input = $("say");
    if (!input.value.trim()) {
      return;
    }
    var li = document.createElement("li");
    li.className = "msg user";
    var p = document.createElement("p");
    p.textContent = input.value;
    li.appendChild(p);
    $("messages").appendChild(li);
    input.value = "";
    // Focus stays here: moving it into the widget would send the
    // person's next keys to a form they have not read.
  });

  // An integration loads embed.js from its bridge, at an address written
  // in the page. This page learns the widget's address from its link,
  // and a link is anyone's to write: it may say where to frame the
  // widget, never where to load a script from. So embed.js comes from
  // the web folder this page is part of: ../web/embed.js next to the
  // bridge's /examples/, ../embed.js inside web/ (a static site, or the
  // folder served as it is).
  var sources = up === "../" ? ["../web/embed.js", "../embed.js"] : ["../embed.js"];
  (function load(i) {
    var s = document.createElement("script");
    s.src = new URL(sources[i], location.href).href;
    s.onload = start;
    s.onerror = function () {
      s.remove();
      if (i + 1 < sources.length) {
        load(i + 1);
        return;
      }
      $("conn").textContent = "Cannot load the widget";
    };
    document.head.appendChild(s);
  })(0);
})();
