// Package chromium finds and configures the Chromium that the browser
// tests and the benchmarks drive.
package chromium

import (
	"os"
	"os/exec"
	"path/filepath"

	"github.com/chromedp/chromedp"
)

// NewDir makes the folder for one browser that Options takes; the
// caller removes it once the browser has ended.
func NewDir() (string, error) {
	return os.MkdirTemp("", "fbchromium-")
}

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
// in a 1200×900 window, with dir as its own: its profile is dir/profile,
// and it keeps its temporary files in dir (TMPDIR), which the caller
// removes once the browser has ended. chromedp kills the browser, which
// then leaves the folder of its singleton socket behind: in the system's
// temporary folder, one a browser, they piled up by the thousand. That
// socket's path must fit in 108 bytes, so dir's path is kept short (not
// a test's TempDir, which carries the test's name).
func Options(exe, dir string) []chromedp.ExecAllocatorOption {
	return []chromedp.ExecAllocatorOption{
		chromedp.Env("TMPDIR=" + dir),
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
		chromedp.UserDataDir(filepath.Join(dir, "profile")),
		chromedp.WindowSize(1200, 900),
	}
}
