package main

import (
	"context"
	"fmt"
	"io"
	"os"

	"github.com/formbridge/formbridge/server/site"
)

func init() {
	register(command{
		name:    "static",
		summary: "write the widget as a static website, to host on any web server or CDN",
		run: func(ctx context.Context, args []string) error {
			fs := newFlagSet("static", "", `
Writes the widget as plain files (HTML, JavaScript, the WebAssembly
program and its compressed copies) into a folder. Upload the folder to
any static host (GitHub Pages, a CDN, nginx); no formbridge code runs
there. The widget then connects to a bridge running elsewhere:

  - the link names it: https://site.example/#bridge=wss://bridge.example/ws&token=SECRET
  - or a config.json next to index.html does: {"bridge": "wss://bridge.example/ws"}
    (the link then only carries #token=SECRET; never put a token in config.json)

Start that bridge with --allowed-origins set to the site's origin
(https://site.example), or it refuses the widget's connection.

Example, for a GitHub Pages project site at https://you.github.io/approvals/:
  formbridge static --out site --prefix /approvals/`)
			out := fs.String("out", "FORMBRIDGE_STATIC_OUT", "", "the `folder` to write the site into (created if missing)")
			prefix := fs.String("prefix", "FORMBRIDGE_STATIC_PREFIX", "/",
				"the URL `path` the site is served under, e.g. /approvals/ for a GitHub Pages project site")
			webDir := fs.String("web-dir", "FORMBRIDGE_WEB_DIR", "", "take the widget's files from this `folder` instead of the built-in ones")
			if err := fs.parse(args); err != nil {
				return err
			}
			if *out == "" {
				return &usageError{"--out is required: the folder to write the site into"}
			}
			return writeStatic(*out, *prefix, *webDir, os.Stderr)
		},
	})
}

// writeStatic generates the site and says where it went and what next.
func writeStatic(out, prefix, webDir string, stderr io.Writer) error {
	err := site.GenerateStatic(out, &site.StaticOptions{WebDir: webDir, Version: version, Prefix: prefix})
	if err != nil {
		return err
	}
	fmt.Fprintf(stderr, `The widget's static site is in %s.
Serve that folder at %s on any static host, then open
  https://<your site>%s#bridge=wss://<your bridge>/ws&token=<token>
after starting the bridge with --allowed-origins https://<your site>.
`, out, displayPrefix(prefix), displayPrefix(prefix))
	return nil
}

// displayPrefix shows the prefix as a URL path with both slashes.
func displayPrefix(p string) string {
	if p == "" || p == "/" {
		return "/"
	}
	if p[0] != '/' {
		p = "/" + p
	}
	if p[len(p)-1] != '/' {
		p += "/"
	}
	return p
}
