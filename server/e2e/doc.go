// Package e2e runs the widget in a real browser against a real bridge.
//
// StartBridge serves the hub, the gateway, the HTTP API and the widget
// site on 127.0.0.1; NewBrowser starts Debian's Chromium through
// chromedp. Tests skip with the reason when Chromium or web/app.wasm is
// missing, and fail instead when FORMBRIDGE_E2E=require (as make test
// sets it), so a CI machine cannot pass by skipping.
//
// Tests find the widget's parts only by the DOM hooks of the architecture
// document (section 6): data-elicitation-id, data-field, data-action,
// data-url, data-connection and data-outcome.
package e2e
