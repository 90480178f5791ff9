package api

import (
	"embed"
	"io/fs"
	"net/http"

	"github.com/go-chi/chi/v5"
)

// docsAssets are the Swagger UI and Redoc bundles from their npm packages
// (scripts/docs-assets.sh), served by the service itself so the docs work
// with no internet access.
//
//go:embed docs
var docsAssets embed.FS

// Paths are relative so the pages also work behind a path prefix.
const swaggerPage = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Audit service API</title>
<link rel="stylesheet" href="docs/assets/swagger-ui.css">
</head>
<body>
<div id="swagger-ui"></div>
<script src="docs/assets/swagger-ui-bundle.js"></script>
<script src="docs/assets/swagger-init.js"></script>
</body>
</html>
`

const redocPage = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Audit service API reference</title>
<style>body { margin: 0; padding: 0; }</style>
</head>
<body>
<redoc spec-url="openapi.json"></redoc>
<script type="module" src="docs/assets/redoc.standalone.js"></script>
</body>
</html>
`

// docsRoutes serves /docs (Swagger UI, interactive) and /redoc (Redoc).
func docsRoutes(r chi.Router) {
	page := func(html string) http.HandlerFunc {
		return func(w http.ResponseWriter, _ *http.Request) {
			// The pages are never framed (clickjacking), nor leak their URL.
			h := w.Header()
			h.Set("Content-Type", "text/html; charset=utf-8")
			h.Set("Content-Security-Policy", "frame-ancestors 'none'")
			h.Set("X-Frame-Options", "DENY")
			h.Set("Referrer-Policy", "no-referrer")
			_, _ = w.Write([]byte(html))
		}
	}
	r.Get("/docs", page(swaggerPage))
	r.Get("/redoc", page(redocPage))
	sub, _ := fs.Sub(docsAssets, "docs") // a literal directory: cannot fail
	assets := http.StripPrefix("/docs/assets/", http.FileServerFS(sub))
	r.Get("/docs/assets/*", assets.ServeHTTP)
}
