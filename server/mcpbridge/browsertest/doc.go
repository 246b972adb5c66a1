// Package browsertest drives formbridge proxy end to end in a real
// browser: a go-sdk host talks to the proxy (over stdio and over
// Streamable HTTP), the upstream server's question appears in the widget
// in headless Chromium, a person's typing and click answer it, and the
// answer reaches the upstream. It skips without Chromium or the built
// widget, and fails instead when FORMBRIDGE_E2E=require.
package browsertest
