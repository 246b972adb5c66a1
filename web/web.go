// Package web holds the widget's static files: app.css, icons, embed.js,
// warmup.js (lays out a sample form while the wasm loads), storage.js
// (stands in for storage the browser blocks), connect.js (connects to the
// bridge while the wasm loads), demo.js (the demo page's
// panel) and, once `make wasm` has run,
// app.wasm with its .br and .gz copies.
// They are embedded so the formbridge binary serves them from any working
// directory; server/site can read a folder instead (its WebDir option).
package web

import "embed"

// FS is this folder as of the build.
//
// The pattern is * rather than a list naming app.wasm: the wasm is
// git-ignored and built by make, and a pattern that matches nothing fails
// the build of a fresh clone. Build the wasm before the server binary, or
// the binary serves a page without its program.
//
//go:embed *
var FS embed.FS
