// Package web serves the dashboard: the single-page app in this folder,
// built by Vite into web/dist (`make web`) and embedded in the binary.
package web

import (
	"embed"
	"io/fs"
)

// dist is the built app. A clean checkout has only dist/.gitkeep, so the
// binary builds without Node; the dashboard then says how to build it.
//
//go:embed all:dist
var dist embed.FS

// Dist returns the built app (the contents of web/dist) embedded in the binary.
func Dist() fs.FS {
	sub, _ := fs.Sub(dist, "dist") // a literal directory: cannot fail
	return sub
}
