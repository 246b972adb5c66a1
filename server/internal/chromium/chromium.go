// Package chromium finds the Chromium that the browser tests and the
// benchmarks drive.
package chromium

import (
	"os"
	"os/exec"
)

// Path finds Chromium: $FORMBRIDGE_CHROMIUM, then the names Debian and
// other distributions install it under.
func Path() (string, bool) {
	if p := os.Getenv("FORMBRIDGE_CHROMIUM"); p != "" {
		return p, true
	}
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable"} {
		if p, err := exec.LookPath(name); err == nil {
			return p, true
		}
	}
	return "", false
}
