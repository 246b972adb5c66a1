package site

// serviceWorker replaces go-app's default app-worker.js. go-app always
// registers a service worker, and its default answers every request in
// its scope from a cache first, "/" included: served on a host's origin
// it could answer the host's own pages with stale copies. The widget is
// useless offline anyway (it waits for a live bridge), so this worker
// caches and intercepts nothing: it only takes over from older workers
// and deletes the caches go-app's default worker left (named "app-…";
// other caches on the origin may be the host's and are kept).
const serviceWorker = `// formbridge {{.Version}}: no fetch handler on purpose, so no request is
// answered from a cache.
self.addEventListener("install", () => self.skipWaiting());
self.addEventListener("activate", (event) => {
  event.waitUntil(
    caches
      .keys()
      .then((keys) =>
        Promise.all(
          keys.filter((key) => key.startsWith("app-")).map((key) => caches.delete(key))
        )
      )
      .then(() => self.clients.claim())
  );
});
// Where a page may not show its own notification (Chrome on Android, an
// iPhone's Home Screen web app), the widget shows it through this worker
// (app/ui, notifyByWorker): a tap brings the widget's tab forward.
self.addEventListener("notificationclick", (event) => {
  event.notification.close();
  event.waitUntil(
    self.clients.matchAll({ type: "window", includeUncontrolled: true }).then((tabs) => {
      const url = event.notification.data && event.notification.data.url;
      const tab = tabs.find((t) => t.url === url);
      return tab && tab.focus();
    })
  );
});
`
