// Package web is the whiteboard web app that `codemode serve` shows at /:
// static files embedded in the binary, no build step.
package web

import (
	"embed"
	"io/fs"
	"net/http"
)

//go:embed static
var static embed.FS

// Handler serves the app's files (GET and HEAD only).
func Handler() http.Handler {
	sub, err := fs.Sub(static, "static")
	if err != nil {
		panic(err) // the embedded tree always has static/
	}
	return http.FileServerFS(sub)
}
