package web

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/stretchr/testify/require"
)

const testIndex = `<!doctype html><html><head><script type="module" src="/assets/index-abc123.js"></script></head><body><div id="app"></div></body></html>`

// built is a build of the app as Vite lays it out.
func built() fstest.MapFS {
	return fstest.MapFS{
		".gitkeep":                {Data: nil},
		"index.html":              {Data: []byte(testIndex)},
		"favicon.svg":             {Data: []byte(`<svg xmlns="http://www.w3.org/2000/svg"/>`)},
		"assets/index-abc123.js":  {Data: []byte(`console.log("app")`)},
		"assets/index-def456.css": {Data: []byte(`body{margin:0}`)},
	}
}

type testBundle struct {
	handler *Handler
}

func setup(t *testing.T, fsys fstest.MapFS, opts Options) *testBundle {
	t.Helper()
	h, err := New(fsys, opts)
	require.NoError(t, err)
	return &testBundle{handler: h}
}

func (b *testBundle) get(t *testing.T, method, path string, headers ...string) *http.Response {
	t.Helper()
	req := httptest.NewRequest(method, path, nil)
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	rec := httptest.NewRecorder()
	b.handler.ServeHTTP(rec, req)
	return rec.Result()
}

func body(t *testing.T, res *http.Response) string {
	t.Helper()
	b, err := io.ReadAll(res.Body)
	require.NoError(t, err)
	return string(b)
}

func TestIndexForClientRoutes(t *testing.T) {
	t.Parallel()
	b := setup(t, built(), Options{})
	for _, path := range []string{"/", "/app", "/app/", "/app/admin/jobs", "/app/notifications?unread=true", "/index.html"} {
		res := b.get(t, http.MethodGet, path)
		require.Equal(t, http.StatusOK, res.StatusCode, path)
		require.Equal(t, "text/html; charset=utf-8", res.Header.Get("Content-Type"), path)
		require.Equal(t, "no-store", res.Header.Get("Cache-Control"), path)
		require.NotEmpty(t, res.Header.Get("ETag"), path)
		require.Equal(t, testIndex, body(t, res), path)
	}
}

func TestAssetsTypesAndCaching(t *testing.T) {
	t.Parallel()
	b := setup(t, built(), Options{})
	for path, want := range map[string]struct{ ctype, cache string }{
		"/assets/index-abc123.js":  {"text/javascript; charset=utf-8", "public, max-age=31536000, immutable"},
		"/assets/index-def456.css": {"text/css; charset=utf-8", "public, max-age=31536000, immutable"},
		"/favicon.svg":             {"image/svg+xml", "no-store"},
	} {
		res := b.get(t, http.MethodGet, path)
		require.Equal(t, http.StatusOK, res.StatusCode, path)
		require.Equal(t, want.ctype, res.Header.Get("Content-Type"), path)
		require.Equal(t, want.cache, res.Header.Get("Cache-Control"), path)
		require.Equal(t, "nosniff", res.Header.Get("X-Content-Type-Options"), path)
	}
	require.Equal(t, `console.log("app")`, body(t, b.get(t, http.MethodGet, "/assets/index-abc123.js")))
}

func TestUnknownPathsAreNotTheApp(t *testing.T) {
	t.Parallel()
	b := setup(t, built(), Options{})
	// A missing asset must not come back as index.html with 200: the
	// browser would run HTML as a script. API-looking paths are not the app's.
	for _, path := range []string{"/assets/index-old999.js", "/notifications", "/application", "/.gitkeep"} {
		res := b.get(t, http.MethodGet, path)
		require.Equal(t, http.StatusNotFound, res.StatusCode, path)
	}
}

func TestSecurityHeaders(t *testing.T) {
	t.Parallel()
	b := setup(t, built(), Options{ConnectSources: []string{"https://idp.example.test"}})
	res := b.get(t, http.MethodGet, "/app/profile")
	csp := res.Header.Get("Content-Security-Policy")
	require.Contains(t, csp, "script-src 'self';")
	require.Contains(t, csp, "frame-ancestors 'none'")
	require.Contains(t, csp, "connect-src 'self' https://idp.example.test;")
	require.Contains(t, csp, "object-src 'none'")
	require.Contains(t, csp, "media-src 'self' blob:;")
	require.NotContains(t, csp, "unsafe-inline")
	require.NotContains(t, csp, "unsafe-eval")
	require.Equal(t, "nosniff", res.Header.Get("X-Content-Type-Options"))
	require.Equal(t, "no-referrer", res.Header.Get("Referrer-Policy"))
	require.Equal(t, "DENY", res.Header.Get("X-Frame-Options"))
}

func TestConditionalAndHead(t *testing.T) {
	t.Parallel()
	b := setup(t, built(), Options{})
	etag := b.get(t, http.MethodGet, "/").Header.Get("ETag")
	res := b.get(t, http.MethodGet, "/app/profile", "If-None-Match", etag)
	require.Equal(t, http.StatusNotModified, res.StatusCode)
	require.Empty(t, body(t, res))

	res = b.get(t, http.MethodHead, "/assets/index-abc123.js")
	require.Equal(t, http.StatusOK, res.StatusCode)
	require.Equal(t, "18", res.Header.Get("Content-Length"))
	require.Empty(t, body(t, res))

	// A changed build has a new ETag for index.html.
	changed := built()
	changed["index.html"] = &fstest.MapFile{Data: []byte(strings.Replace(testIndex, "abc123", "zzz999", 1))}
	b2 := setup(t, changed, Options{})
	res = b2.get(t, http.MethodGet, "/", "If-None-Match", etag)
	require.Equal(t, http.StatusOK, res.StatusCode)
}

func TestPatterns(t *testing.T) {
	t.Parallel()
	b := setup(t, built(), Options{})
	require.Equal(t, []string{
		"/", "/app", "/app/*",
		"/assets/index-abc123.js", "/assets/index-def456.css", "/favicon.svg", "/index.html",
	}, b.handler.Patterns())
}

func TestNotBuilt(t *testing.T) {
	t.Parallel()
	b := setup(t, fstest.MapFS{".gitkeep": {Data: nil}}, Options{})
	require.Equal(t, []string{"/", "/app", "/app/*"}, b.handler.Patterns())
	res := b.get(t, http.MethodGet, "/app/profile")
	require.Equal(t, http.StatusOK, res.StatusCode)
	require.Equal(t, "text/html; charset=utf-8", res.Header.Get("Content-Type"))
	require.Contains(t, body(t, res), "The dashboard is not built")
}

func TestEmbeddedDist(t *testing.T) {
	t.Parallel()
	// Whether or not `make web` ran, the embedded build is readable and
	// "/" answers with a page.
	h, err := New(Dist(), Options{})
	require.NoError(t, err)
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/", nil))
	require.Equal(t, http.StatusOK, rec.Code)
	require.Contains(t, rec.Body.String(), "<!doctype html>")
}
