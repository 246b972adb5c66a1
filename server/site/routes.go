package site

import (
	"sync"

	"github.com/formbridge/formbridge/app/ui"
)

var routesOnce sync.Once

// registerRoutes registers the widget's go-app routes once per process:
// go-app renders a route's page on the server too, and answers 404 for
// paths without one.
func registerRoutes() {
	routesOnce.Do(ui.Register)
}
