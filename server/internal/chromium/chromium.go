// Package chromium finds and configures the Chromium that the browser
// tests and the benchmarks drive.
package chromium

import (
	"os"
	"os/exec"

	"github.com/chromedp/chromedp"
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

// Options start exe headless, with nothing running in the background,
// on the profile folder given, in a 1200×900 window.
func Options(exe, profile string) []chromedp.ExecAllocatorOption {
	return []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(exe),
		chromedp.Flag("headless", "new"),
		chromedp.Flag("no-sandbox", true),
		chromedp.Flag("disable-gpu", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("disable-dev-shm-usage", true),
		chromedp.NoFirstRun,
		chromedp.NoDefaultBrowserCheck,
		chromedp.UserDataDir(profile),
		chromedp.WindowSize(1200, 900),
	}
}
