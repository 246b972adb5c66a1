/*
 * formbridge demo.js: the demo panel under the widget on pages served by
 * `formbridge demo` (and only there: the demo adds this script to its
 * page, see server/site Options.Scripts). A button per demo question, so
 * a person trying formbridge can send themselves each kind of request,
 * answer it in the widget above, and read what the assistant was told.
 *
 * It is plain JavaScript beside the widget, not part of it, so the
 * widget's program carries no code that only the demo uses. It talks to
 * the demo's API (docs/DEMO.md) with the token from the page's link, the
 * same token the widget uses. Every string from the server is shown as
 * text (textContent), never as HTML.
 */
(function () {
  "use strict";

  var TOOLS_PATH = "/demo/tools";
  var RUN_PATH = "/demo/run";
  var LINK_KEY = "formbridge.link"; // where the widget keeps its link for reloads
  var MAX_RESULTS = 5;

  // The widget removes the fragment from the address bar once it has
  // read it, so after a reload the link is only in this tab's storage.
  function readToken() {
    var fragment = new URLSearchParams(location.hash.replace(/^#/, ""));
    var token = (fragment.get("token") || "").trim();
    if (token) {
      return token;
    }
    try {
      var saved = JSON.parse(sessionStorage.getItem(LINK_KEY) || "{}");
      return typeof saved.token === "string" ? saved.token.trim() : "";
    } catch (e) {
      return "";
    }
  }

  function el(tag, className, text) {
    var e = document.createElement(tag);
    if (className) {
      e.className = className;
    }
    if (text) {
      e.textContent = text;
    }
    return e;
  }

  // request calls the demo API; done gets the decoded body, or null when
  // there was no usable answer.
  function request(method, path, token, body, done) {
    var headers = { Authorization: "Bearer " + token };
    var init = { method: method, headers: headers, credentials: "same-origin", cache: "no-store" };
    if (body) {
      headers["Content-Type"] = "application/json";
      init.body = JSON.stringify(body);
    }
    fetch(path, init)
      .then(function (r) {
        return r.ok ? r.json() : null;
      })
      .catch(function () {
        return null;
      })
      .then(done);
  }

  // Embedded (embed.js, as in the chat example), the page has no token
  // of its own: its host names its origin in the fragment (#host=) and
  // sends the token in its "init" message, which this page hears too.
  var PROTOCOL = "embed.v1";
  function hostOrigin() {
    var host = new URLSearchParams(location.hash.replace(/^#/, "")).get("host") || "";
    return window.parent !== window ? host : "";
  }

  function fromHost(host, done) {
    window.addEventListener("message", function listen(event) {
      if (event.source !== window.parent || event.origin !== host || typeof event.data !== "string") {
        return;
      }
      var m;
      try {
        m = JSON.parse(event.data);
      } catch (e) {
        return;
      }
      if (m && m.formbridge === PROTOCOL && m.type === "init" && typeof m.token === "string" && m.token.trim()) {
        window.removeEventListener("message", listen);
        done(m.token.trim());
      }
    });
  }

  function start() {
    var token = readToken();
    var host = hostOrigin();
    // The page's own script (connect.js) may have heard init already.
    var early = window.formbridgeFrame;
    if (token) {
      show(token);
    } else if (host && early && early.token) {
      show(early.token);
    } else if (host) {
      fromHost(host, show);
    }
    // Otherwise the widget explains the incomplete link.
  }

  function show(token) {
    var running = {}; // tool name -> calls waiting for an answer

    var page = el("div", "fb-demo-page");
    var panel = el("section", "fb-demo");
    panel.setAttribute("aria-labelledby", "fb-demo-heading");
    var heading = el("h2", "", "Demo: send yourself a question");
    heading.id = "fb-demo-heading";
    var tools = el("ul", "fb-demo-tools");
    var resultsHeading = el("h3", "", "What the assistant was told");
    resultsHeading.hidden = true;
    // In the page from the start, so screen readers announce each result.
    var results = el("ul", "fb-demo-results");
    results.setAttribute("aria-live", "polite");
    panel.append(
      heading,
      el("p", "fb-hint", "Each button makes the demo assistant ask you something. Answer it above; what the assistant was told appears below."),
      tools,
      resultsHeading,
      results
    );
    page.append(panel);
    document.body.append(page);

    function showResult(title, text) {
      var li = el("li", "fb-demo-result");
      li.append(el("strong", "", title + ": "), el("span", "", text));
      results.prepend(li);
      while (results.children.length > MAX_RESULTS) {
        results.lastElementChild.remove();
      }
      resultsHeading.hidden = false;
    }

    function addTool(tool) {
      var label = el("span", "fb-demo-title", tool.title);
      var button = el("button", "fb-demo-button");
      button.type = "button";
      button.dataset.demoTool = tool.name;
      button.append(label, el("span", "fb-demo-desc", tool.description));
      button.addEventListener("click", function () {
        running[tool.name] = (running[tool.name] || 0) + 1;
        showRunning();
        // Waits until the question is answered, withdrawn or expired.
        request("POST", RUN_PATH, token, { tool: tool.name }, function (r) {
          running[tool.name]--;
          showRunning();
          if (!r || typeof r.text !== "string") {
            showResult(tool.title, "The demo question did not finish.");
            return;
          }
          showResult(typeof r.title === "string" ? r.title : tool.title, r.text);
        });
      });
      function showRunning() {
        var n = running[tool.name];
        label.textContent = n > 0 ? tool.title + " (" + n + " waiting)" : tool.title;
      }
      var li = el("li");
      li.append(button);
      tools.append(li);
    }

    request("GET", TOOLS_PATH, token, null, function (r) {
      if (!r || !Array.isArray(r.tools)) {
        panel.insertBefore(el("p", "fb-problem", "The demo questions could not be loaded."), tools);
        return;
      }
      r.tools.forEach(function (t) {
        if (t && typeof t.name === "string" && typeof t.title === "string") {
          addTool({ name: t.name, title: t.title, description: typeof t.description === "string" ? t.description : "" });
        }
      });
    });
  }

  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", start);
  } else {
    start();
  }
})();
