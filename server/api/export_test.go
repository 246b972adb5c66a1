package api

// NewWithEngine is New for an Engine other than *hub.Hub: a test's
// wrapper that acts between the hub's steps.
var NewWithEngine = newHandler
