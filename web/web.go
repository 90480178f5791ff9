package web

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io/fs"
	"mime"
	"net/http"
	"path"
	"slices"
	"strings"
	"time"
)

// AppPrefix is where the dashboard's client-side routes live (/app/tasks,
// /app/admin/jobs, …). They are kept apart from the API's paths so that a
// reload or a shared link of any screen reaches the app, never an API
// operation of the same name, and so that unknown API paths still get the
// API's JSON 404.
const AppPrefix = "/app"

// assetsDir holds Vite's content-hashed files, which never change under a
// given name and are cached for a year.
const assetsDir = "/assets/"

// notBuiltPage is served in place of the app by a binary built without
// `make web` (web/dist holds only its placeholder).
const notBuiltPage = `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><title>auditd</title></head>
<body>
<h1>The dashboard is not built</h1>
<p>Run <code>make web</code> (or <code>make run</code>), then rebuild auditd. The API works without it: see <a href="/docs">/docs</a>.</p>
</body>
</html>
`

// Options configure a Handler.
type Options struct {
	// ConnectSources are the origins, besides the page's own, that the app
	// may call: the identity provider's, for OIDC discovery and tokens.
	ConnectSources []string
}

// Handler serves the dashboard: its files, and index.html for "/" and every
// client route under AppPrefix. Mount it on the patterns of Patterns.
type Handler struct {
	files   map[string]file // by URL path, e.g. /assets/index-3f2a.js
	index   file
	headers http.Header
}

type file struct {
	body  []byte
	ctype string
	etag  string
	cache string
}

// New reads the built app from fsys (usually Dist()). Without an
// index.html it serves a page saying the dashboard is not built. It
// returns an error when fsys cannot be read.
func New(fsys fs.FS, opts Options) (*Handler, error) {
	h := &Handler{files: map[string]file{}, headers: securityHeaders(opts.ConnectSources)}
	err := fs.WalkDir(fsys, ".", func(name string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || strings.HasPrefix(d.Name(), ".") {
			return err
		}
		body, err := fs.ReadFile(fsys, name)
		if err != nil {
			return err
		}
		urlPath := "/" + name
		cache := "no-store" // index.html and unhashed files: never kept
		if strings.HasPrefix(urlPath, assetsDir) {
			cache = "public, max-age=31536000, immutable"
		}
		h.files[urlPath] = newFile(body, path.Ext(name), cache)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("web: reading the built dashboard: %w", err)
	}
	index, ok := h.files["/index.html"]
	if !ok {
		index = newFile([]byte(notBuiltPage), ".html", "no-store")
	}
	h.index = index
	return h, nil
}

func newFile(body []byte, ext, cache string) file {
	ctype := mime.TypeByExtension(ext)
	if ctype == "" {
		ctype = "application/octet-stream"
	}
	sum := sha256.Sum256(body)
	return file{body: body, ctype: ctype, etag: `"` + hex.EncodeToString(sum[:12]) + `"`, cache: cache}
}

// securityHeaders are sent with every response of the dashboard. The policy
// allows only the app's own scripts and styles (no inline script), calls to
// the API (same origin) and to the identity provider, and no framing.
func securityHeaders(connect []string) http.Header {
	connectSrc := append([]string{"'self'"}, connect...)
	csp := strings.Join([]string{
		"default-src 'self'",
		"script-src 'self'",
		"style-src 'self'",
		"img-src 'self' data:",
		// A call's recording is fetched with the token (a media element
		// cannot send one) and played from an object URL.
		"media-src 'self' blob:",
		"font-src 'self'",
		"connect-src " + strings.Join(connectSrc, " "),
		"object-src 'none'",
		"base-uri 'none'",
		"form-action 'self'",
		"frame-ancestors 'none'",
	}, "; ")
	return http.Header{
		"Content-Security-Policy":    {csp},
		"X-Content-Type-Options":     {"nosniff"},
		"X-Frame-Options":            {"DENY"},
		"Referrer-Policy":            {"no-referrer"},
		"Cross-Origin-Opener-Policy": {"same-origin"},
		"Permissions-Policy":         {"camera=(), geolocation=(), microphone=(), payment=(), usb=()"},
	}
}

// Patterns are the router patterns (chi syntax) to mount the Handler on:
// "/", the client routes, and every file of the build. Any other path is
// left to the router, so a missing asset or API route gets its 404.
func (h *Handler) Patterns() []string {
	out := []string{"/", AppPrefix, AppPrefix + "/*"}
	for p := range h.files {
		out = append(out, p)
	}
	slices.Sort(out)
	return out
}

// ServeHTTP serves a file of the build, or index.html for "/" and the
// client routes; anything else is 404.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	p := r.URL.Path
	f, ok := h.files[p]
	if !ok {
		if p != "/" && p != AppPrefix && !strings.HasPrefix(p, AppPrefix+"/") {
			http.NotFound(w, r)
			return
		}
		f = h.index
	}
	hdr := w.Header()
	for k := range h.headers {
		hdr.Set(k, h.headers.Get(k))
	}
	hdr.Set("Content-Type", f.ctype)
	hdr.Set("Cache-Control", f.cache)
	hdr.Set("ETag", f.etag)
	// ServeContent answers HEAD, If-None-Match (304) and ranges.
	http.ServeContent(w, r, "", time.Time{}, bytes.NewReader(f.body))
}
