// formbridge: gives the page a storage that works when the browser
// refuses its own. A browser that blocks a site's storage (third-party
// storage turned off, with the widget embedded from another site; or
// all site data blocked) throws on the first touch of localStorage or
// sessionStorage, and go-app reads localStorage as it starts: the widget
// would stop before showing anything. In their place goes a store that
// lasts as long as the page, so the only loss is a draft kept over a
// reload. In the page itself (server/site), it runs as the page is
// parsed, before go-app's loader.
(() => {
  "use strict";
  class PageStorage {
    #items = new Map();
    get length() { return this.#items.size; }
    key(i) { return [...this.#items.keys()][i] ?? null; }
    getItem(k) { return this.#items.get(String(k)) ?? null; }
    setItem(k, v) { this.#items.set(String(k), String(v)); }
    removeItem(k) { this.#items.delete(String(k)); }
    clear() { this.#items.clear(); }
  }
  for (const name of ["localStorage", "sessionStorage"]) {
    try {
      void window[name].length;
    } catch {
      Object.defineProperty(window, name, { value: new PageStorage(), configurable: true });
    }
  }
})();
