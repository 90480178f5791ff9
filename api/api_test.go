package api

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/coreos/go-oidc/v3/oidc"
	"github.com/coreos/go-oidc/v3/oidc/oidctest"
	"github.com/danielgtaylor/huma/v2"
	jose "github.com/go-jose/go-jose/v4"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"
	"github.com/stretchr/testify/require"
	"riverqueue.com/riverui"

	"github.com/auditd/auditd/db/dbtest"
	"github.com/auditd/auditd/role"
	"github.com/auditd/auditd/storage"
	"github.com/auditd/auditd/web"
)

const testAudience = "api://auditd-test"

// testIssuer is an OIDC identity provider on loopback: discovery and JWKS,
// served by go-oidc's own oidctest server.
type testIssuer struct {
	URL string
	key *rsa.PrivateKey
	kid string

	mu  sync.Mutex
	srv *oidctest.Server
	// keyFetches counts the requests for the JWKS.
	keyFetches atomic.Int64
}

func newTestIssuer(t testing.TB) *testIssuer {
	t.Helper()
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	require.NoError(t, err)
	iss := &testIssuer{key: key, kid: "k1",
		srv: &oidctest.Server{PublicKeys: []oidctest.PublicKey{{PublicKey: key.Public(), KeyID: "k1", Algorithm: oidc.RS256}}}}
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/keys" {
			iss.keyFetches.Add(1)
		}
		iss.mu.Lock()
		defer iss.mu.Unlock()
		iss.srv.ServeHTTP(w, r)
	}))
	t.Cleanup(hs.Close)
	iss.srv.SetIssuer(hs.URL)
	iss.URL = hs.URL
	return iss
}

// rotate publishes a new key beside the old one and signs with it from now on.
func (i *testIssuer) rotate(t *testing.T) {
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	require.NoError(t, err)
	i.mu.Lock()
	defer i.mu.Unlock()
	i.kid = fmt.Sprintf("k%d", len(i.srv.PublicKeys)+1)
	i.key = key
	i.srv.PublicKeys = append(i.srv.PublicKeys, oidctest.PublicKey{PublicKey: key.Public(), KeyID: i.kid, Algorithm: oidc.RS256})
}

// claims returns valid claims for sub, to adjust before signing.
func (i *testIssuer) claims(sub string) map[string]any {
	now := time.Now()
	return map[string]any{
		"iss": i.URL, "aud": testAudience, "sub": sub,
		"preferred_username": sub, "email": sub + "@example.test", "name": "User " + sub,
		"roles": []string{"quality"},
		"iat":   now.Unix(), "exp": now.Add(time.Hour).Unix(),
	}
}

func (i *testIssuer) sign(t testing.TB, claims map[string]any) string {
	t.Helper()
	b, err := json.Marshal(claims)
	require.NoError(t, err)
	i.mu.Lock()
	defer i.mu.Unlock()
	return oidctest.SignIDToken(i.key, i.kid, oidc.RS256, string(b))
}

func (i *testIssuer) token(t testing.TB, sub string, roles ...string) string {
	c := i.claims(sub)
	c["roles"] = roles
	return i.sign(t, c)
}

type testBundle struct {
	server *Server
	http   *httptest.Server
	hub    *Hub
	issuer *testIssuer
	pool   *pgxpool.Pool
	store  *storage.Store
	// blobDir is the directory of the file:// blob store.
	blobDir string
}

type setupOpts struct {
	rolesClaim string
	// directory is the configured directory provider ("" for none).
	directory string
	upload    UploadLimits
	// devIssuer serves the development issuer and verifies its tokens
	// (AUTH_DEV=true) instead of the loopback test issuer's.
	devIssuer bool
	client    ClientConfig
	web       *web.Handler
	// blobURL, when set, is the blob store instead of a temporary directory.
	blobURL    string
	validation ValidationOptions
	// jobWait is how long requests wait for their jobs; 300ms unless set.
	jobWait time.Duration
	// rateLimit bounds each user's requests and each address's without a
	// valid token; a limit not set is high enough for no test but the rate
	// limit's own to meet it.
	rateLimit RateLimits
	// bodyTimeouts bound streamed bodies; the defaults unless set.
	bodyTimeouts BodyTimeouts
	// webhookAllowPrivate lets webhooks name loopback addresses.
	webhookAllowPrivate bool
	// uploadURLAllowPrivate lets uploads by URL fetch from loopback.
	uploadURLAllowPrivate bool
}

func setup(t testing.TB, opts ...setupOpts) *testBundle {
	t.Helper()
	var o setupOpts
	if len(opts) > 0 {
		o = opts[0]
	}
	if o.rolesClaim == "" {
		o.rolesClaim = "roles"
	}
	for _, l := range []*int{&o.rateLimit.Reads, &o.rateLimit.Writes, &o.rateLimit.Uploads, &o.rateLimit.Anonymous} {
		if *l == 0 {
			*l = 1 << 20
		}
	}
	pool := dbtest.Pool(t)
	iss := newTestIssuer(t)
	blobDir, blobURL := "", o.blobURL
	if blobURL == "" {
		blobDir = t.TempDir()
		blobURL = "file://" + blobDir
	}
	store, err := storage.Open(context.Background(), blobURL)
	require.NoError(t, err)
	t.Cleanup(func() { store.Close() })
	b := &testBundle{issuer: iss, pool: pool, store: store, blobDir: blobDir}
	b.server, b.http, b.hub = newServer(t, pool, func(baseURL string) Options {
		authCfg := AuthConfig{IssuerURL: iss.URL, Audience: testAudience,
			SubjectClaim: "sub", UsernameClaim: "preferred_username", RolesClaim: o.rolesClaim}
		opts := Options{Client: o.client, Web: o.web, Directory: o.directory, Store: store, Upload: o.upload,
			Validation: o.validation, JobWaitTimeout: o.jobWait, RateLimit: o.rateLimit, BodyTimeouts: o.bodyTimeouts,
			WebhookAllowPrivate: o.webhookAllowPrivate, UploadURLAllowPrivate: o.uploadURLAllowPrivate}
		if o.devIssuer {
			authCfg.IssuerURL = baseURL + "/dev-oidc"
			dev, err := NewDevIssuer(context.Background(), pool, authCfg.IssuerURL, testAudience)
			require.NoError(t, err)
			opts.DevIssuer = dev
		}
		opts.Auth = NewAuthenticator(authCfg, pool)
		return opts
	})
	return b
}

// newServer starts an API process on pool: its own hub (listening
// connection) and HTTP server. build returns the options that differ
// between tests, given the server's URL.
func newServer(t testing.TB, pool *pgxpool.Pool, build func(baseURL string) Options) (*Server, *httptest.Server, *Hub) {
	t.Helper()
	rc, err := river.NewClient(riverpgxv5.New(pool), &river.Config{})
	require.NoError(t, err)
	log := slog.New(slog.NewTextHandler(t.Output(), nil))
	hub := NewHub(pool, log)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { _ = hub.Run(ctx); close(done) }()
	hs := httptest.NewUnstartedServer(nil)
	opts := build("http://" + hs.Listener.Addr().String())
	opts.Pool, opts.River, opts.Hub, opts.Logger = pool, rc, hub, log
	// River UI is served by default, as auditd serves it.
	ui, err := riverui.NewHandler(&riverui.HandlerOpts{Endpoints: riverui.NewEndpoints(rc, nil),
		JobListHideArgsByDefault: true, Logger: log, Prefix: RiverUIPrefix})
	require.NoError(t, err)
	require.NoError(t, ui.Start(ctx))
	opts.RiverUI = ui
	if opts.JobWaitTimeout == 0 {
		opts.JobWaitTimeout = 300 * time.Millisecond
	}
	s := New(opts)
	hs.Config.Handler = s
	hs.Config.RegisterOnShutdown(hub.Close)
	hs.Listener = Listener(hs.Listener)
	hs.Start()
	t.Cleanup(func() {
		hub.Close()
		hs.Close()
		cancel()
		<-done
	})
	return s, hs, hub
}

type response struct {
	Status  int
	Header  http.Header
	Body    map[string]any
	RawBody string
}

func (b *testBundle) do(t *testing.T, method, path, token string, body io.Reader, headers ...string) response {
	t.Helper()
	req, err := http.NewRequest(method, b.http.URL+path, body)
	require.NoError(t, err)
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	res, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer res.Body.Close()
	raw, err := io.ReadAll(res.Body)
	require.NoError(t, err)
	r := response{Status: res.StatusCode, Header: res.Header, RawBody: string(raw)}
	_ = json.Unmarshal(raw, &r.Body)
	return r
}

// requireError checks an error response against the error model.
func requireError(t *testing.T, r response, status int, code string) {
	t.Helper()
	require.Equal(t, status, r.Status, r.RawBody)
	require.Equal(t, false, r.Body["success"], r.RawBody)
	require.Equal(t, code, r.Body["code"], r.RawBody)
	require.NotEmpty(t, r.Body["message"], r.RawBody)
	require.NotEmpty(t, r.Header.Get("X-Request-Id"))
	require.Equal(t, r.Header.Get("X-Request-Id"), r.Body["request_id"], r.RawBody)
	require.True(t, strings.HasPrefix(r.Header.Get("Content-Type"), "application/json"), r.Header.Get("Content-Type"))
}

func b64(v string) string { return base64.RawURLEncoding.EncodeToString([]byte(v)) }

func TestAuthenticationFailures(t *testing.T) {
	t.Parallel()
	b := setup(t)

	otherKey, err := rsa.GenerateKey(rand.Reader, 2048)
	require.NoError(t, err)
	signWith := func(key any, alg jose.SignatureAlgorithm, kid string, claims map[string]any) string {
		payload, err := json.Marshal(claims)
		require.NoError(t, err)
		signer, err := jose.NewSigner(jose.SigningKey{Algorithm: alg, Key: key}, (&jose.SignerOptions{}).WithHeader("kid", kid))
		require.NoError(t, err)
		sig, err := signer.Sign(payload)
		require.NoError(t, err)
		out, err := sig.CompactSerialize()
		require.NoError(t, err)
		return out
	}
	pubPEM := pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: must(x509.MarshalPKIXPublicKey(b.issuer.key.Public()))})
	claimsJSON, _ := json.Marshal(b.issuer.claims("mallory"))
	with := func(k string, v any) string {
		c := b.issuer.claims("mallory")
		c[k] = v
		return b.issuer.sign(t, c)
	}

	cases := []struct {
		name   string
		header string
		code   string
	}{
		{"no header", "", CodeMissingAuthHeader},
		{"basic scheme", "Basic " + b64("a:b"), CodeUnauthorized},
		{"bearer without token", "Bearer ", CodeUnauthorized},
		{"not a jwt", "Bearer not-a-token", CodeUnauthorized},
		{"bad signature", "Bearer " + signWith(otherKey, jose.RS256, "k1", b.issuer.claims("mallory")), CodeUnauthorized},
		{"expired", "Bearer " + with("exp", time.Now().Add(-time.Minute).Unix()), CodeUnauthorized},
		{"not yet valid", "Bearer " + with("nbf", time.Now().Add(time.Hour).Unix()), CodeUnauthorized},
		{"wrong issuer", "Bearer " + with("iss", "https://evil.example"), CodeUnauthorized},
		{"wrong audience", "Bearer " + with("aud", "api://someone-else"), CodeUnauthorized},
		{"alg none", "Bearer " + b64(`{"alg":"none","typ":"JWT"}`) + "." + b64(string(claimsJSON)) + ".", CodeUnauthorized},
		{"HS256 with the public key", "Bearer " + signWith(pubPEM, jose.HS256, "k1", b.issuer.claims("mallory")), CodeUnauthorized},
		{"NUL in the subject", "Bearer " + with("sub", "mal\x00lory"), CodeUnauthorized},
		{"NUL in the username", "Bearer " + with("preferred_username", "mal\x00lory"), CodeUnauthorized},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var headers []string
			if tc.header != "" {
				headers = []string{"Authorization", tc.header}
			}
			r := b.do(t, http.MethodGet, "/users/me", "", nil, headers...)
			requireError(t, r, http.StatusUnauthorized, tc.code)
			require.Contains(t, r.Header.Get("WWW-Authenticate"), "Bearer")
		})
	}
	// None of them created a user.
	var n int
	require.NoError(t, b.pool.QueryRow(context.Background(), "SELECT count(*) FROM users").Scan(&n))
	require.Zero(t, n)

	// The valid token is accepted, so the rejections above were for their reason.
	require.Equal(t, http.StatusOK, b.do(t, http.MethodGet, "/users/me", b.issuer.token(t, "mallory"), nil).Status)

	// A name or an e-mail with a NUL is display text: cleaned, and the
	// user's requests keep working.
	for range 2 {
		r := b.do(t, http.MethodGet, "/users/me", "", nil, "Authorization", "Bearer "+with("name", "Mal\x00lory\nSmith"))
		require.Equal(t, http.StatusOK, r.Status, r.RawBody)
		require.Equal(t, "Mal lory Smith", r.Body["details"].(map[string]any)["name"], r.RawBody)
	}
	r := b.do(t, http.MethodGet, "/users/me", "", nil, "Authorization", "Bearer "+with("email", "m\x00@x.test"))
	require.Equal(t, http.StatusOK, r.Status, r.RawBody)
	require.NotContains(t, r.RawBody, `\u0000`)
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

// skewClock moves b's authenticator's clock by what it returns: the
// JWKS refetch interval passes without waiting for it.
func skewClock(b *testBundle) *atomic.Int64 {
	var skew atomic.Int64
	b.server.opts.Auth.now = func() time.Time { return time.Now().Add(time.Duration(skew.Load())) }
	return &skew
}

func TestKeyRotationAcceptedWithoutRestart(t *testing.T) {
	t.Parallel()
	b := setup(t)
	skew := skewClock(b)
	require.Equal(t, http.StatusOK, b.do(t, http.MethodGet, "/users/me", b.issuer.token(t, "alice"), nil).Status)

	// A key published after the last fetch is fetched once keyRefetch has
	// passed since it, without a restart.
	b.issuer.rotate(t)
	skew.Store(int64(keyRefetch))
	r := b.do(t, http.MethodGet, "/users/me", b.issuer.token(t, "alice"), nil)
	require.Equal(t, http.StatusOK, r.Status, r.RawBody)
	require.EqualValues(t, 2, b.issuer.keyFetches.Load())
}

// Tokens naming keys the issuer never published, however many and however
// concurrent, fetch the JWKS at most once per keyRefetch.
func TestUnknownKeysFetchTheJWKSOncePerInterval(t *testing.T) {
	t.Parallel()
	b := setup(t)
	skew := skewClock(b)
	alice := b.issuer.token(t, "alice")
	require.Equal(t, http.StatusOK, b.do(t, http.MethodGet, "/users/me", alice, nil).Status)
	require.EqualValues(t, 1, b.issuer.keyFetches.Load())

	forged := func(kid string) string {
		key, err := rsa.GenerateKey(rand.Reader, 2048)
		require.NoError(t, err)
		payload, err := json.Marshal(b.issuer.claims("mallory"))
		require.NoError(t, err)
		return oidctest.SignIDToken(key, kid, oidc.RS256, string(payload))
	}
	tokens := []string{forged("k1"), forged("nope-1"), forged("nope-2"), forged("")}
	flood := func() {
		var wg sync.WaitGroup
		for i := range 200 {
			wg.Go(func() {
				req, _ := http.NewRequest(http.MethodGet, b.http.URL+"/users/me", nil)
				req.Header.Set("Authorization", "Bearer "+tokens[i%len(tokens)])
				if res, err := http.DefaultClient.Do(req); err == nil {
					_ = res.Body.Close()
				}
			})
		}
		wg.Wait()
	}
	flood()
	require.EqualValues(t, 1, b.issuer.keyFetches.Load(), "within the interval of the first fetch")
	skew.Store(int64(keyRefetch))
	flood()
	require.EqualValues(t, 2, b.issuer.keyFetches.Load(), "one fetch for the next interval")
	requireError(t, b.do(t, http.MethodGet, "/users/me", tokens[1], nil), http.StatusUnauthorized, CodeUnauthorized)
	require.Equal(t, http.StatusOK, b.do(t, http.MethodGet, "/users/me", alice, nil).Status)
}

func TestUsersMeJustInTime(t *testing.T) {
	t.Parallel()
	b := setup(t)
	c := b.issuer.claims("sub-123")
	c["preferred_username"] = "ana"
	c["roles"] = []string{"operator", "offline_access"}
	r := b.do(t, http.MethodGet, "/users/me", b.issuer.sign(t, c), nil)
	require.Equal(t, http.StatusOK, r.Status, r.RawBody)
	require.Equal(t, true, r.Body["success"])
	require.Equal(t, "OK", r.Body["code"])
	me := r.Body["details"].(map[string]any)
	require.Equal(t, "sub-123", me["id"])
	require.Equal(t, "ana", me["username"])
	require.Equal(t, "sub-123@example.test", me["email"])
	require.Equal(t, "operator", me["role"])
	require.Equal(t, []any{"operator", "offline_access"}, me["roles"])
	created := me["created_at"]

	// Claims change: the profile follows, the user stays the same one.
	c["email"] = "ana@new.example"
	c["name"] = "Ana María"
	c["roles"] = []string{"supervisor"}
	r = b.do(t, http.MethodGet, "/users/me", b.issuer.sign(t, c), nil)
	require.Equal(t, http.StatusOK, r.Status, r.RawBody)
	me = r.Body["details"].(map[string]any)
	require.Equal(t, "ana@new.example", me["email"])
	require.Equal(t, "Ana María", me["name"])
	require.Equal(t, "supervisor", me["role"])
	require.Equal(t, created, me["created_at"])

	var n int
	require.NoError(t, b.pool.QueryRow(context.Background(), "SELECT count(*) FROM users").Scan(&n))
	require.Equal(t, 1, n)

	// A deactivated user's valid token is refused.
	_, err := b.pool.Exec(context.Background(), "UPDATE users SET active = false WHERE id = 'sub-123'")
	require.NoError(t, err)
	requireError(t, b.do(t, http.MethodGet, "/users/me", b.issuer.sign(t, c), nil), http.StatusUnauthorized, CodeUnauthorized)
}

func TestRolesFromNestedClaim(t *testing.T) {
	t.Parallel()
	b := setup(t, setupOpts{rolesClaim: "realm_access.roles"})
	c := b.issuer.claims("kc-user")
	delete(c, "roles")
	c["realm_access"] = map[string]any{"roles": []string{"default-roles-acme", "admin"}}
	r := b.do(t, http.MethodGet, "/users/me", b.issuer.sign(t, c), nil)
	require.Equal(t, http.StatusOK, r.Status, r.RawBody)
	require.Equal(t, "admin", r.Body["details"].(map[string]any)["role"])
}

func TestRoleEnforced(t *testing.T) {
	t.Parallel()
	b := setup(t)
	r := b.do(t, http.MethodPost, "/admin/canary", b.issuer.token(t, "q", "quality"), nil)
	requireError(t, r, http.StatusForbidden, CodeForbidden)
	require.Contains(t, r.Body["message"], "admin")
}

// registerProbe adds operations that exercise the shared error machinery.
func registerProbe(s *Server) {
	type probeInput struct {
		ID   string `path:"id" format:"uuid"`
		Body struct {
			Notes  string `json:"notes" minLength:"1"`
			IsCall bool   `json:"isCall"`
		}
	}
	op := operation(http.MethodPost, "/probe/{id}", "probe", "probe", role.None)
	huma.Register(s.api, op, func(ctx context.Context, in *probeInput) (*Output[string], error) { return ok(in.ID), nil })
	huma.Register(s.api, operation(http.MethodGet, "/probe-panic", "probe-panic", "panic", role.None),
		func(ctx context.Context, _ *struct{}) (*Output[string], error) { panic("secret detail") })
	huma.Register(s.api, operation(http.MethodGet, "/probe-fail", "probe-fail", "fail", role.None),
		func(ctx context.Context, _ *struct{}) (*Output[string], error) {
			return nil, fmt.Errorf("SELECT secret FROM table: boom")
		})
}

func TestErrorModel(t *testing.T) {
	t.Parallel()
	b := setup(t)
	registerProbe(b.server)
	tok := b.issuer.token(t, "eve", "quality")
	id := "6f1c2b5e-8d44-4a57-9b8a-2f0d5c3e1a90"
	post := func(path, body string, headers ...string) response {
		return b.do(t, http.MethodPost, path, tok, strings.NewReader(body), append([]string{"Content-Type", "application/json"}, headers...)...)
	}

	t.Run("success", func(t *testing.T) {
		r := post("/probe/"+id, `{"notes":"x","isCall":true}`)
		require.Equal(t, http.StatusOK, r.Status, r.RawBody)
	})
	t.Run("missing field", func(t *testing.T) {
		r := post("/probe/"+id, `{"isCall":true}`)
		requireError(t, r, http.StatusBadRequest, CodeMissingFields)
		require.Contains(t, r.RawBody, "body.notes")
	})
	t.Run("missing body", func(t *testing.T) {
		requireError(t, post("/probe/"+id, ``), http.StatusBadRequest, CodeMissingFields)
	})
	t.Run("bad uuid", func(t *testing.T) {
		r := post("/probe/not-a-uuid", `{"notes":"x","isCall":true}`)
		requireError(t, r, http.StatusBadRequest, CodeValidation)
		require.Contains(t, r.RawBody, "path.id")
	})
	t.Run("wrong type", func(t *testing.T) {
		r := post("/probe/"+id, `{"notes":"x","isCall":"yes"}`)
		requireError(t, r, http.StatusBadRequest, CodeValidation)
		require.Contains(t, r.RawBody, "body.isCall")
	})
	t.Run("malformed json", func(t *testing.T) {
		requireError(t, post("/probe/"+id, `{"notes":`), http.StatusBadRequest, CodeValidation)
	})
	t.Run("oversized body", func(t *testing.T) {
		big := `{"notes":"` + strings.Repeat("a", 2<<20) + `","isCall":true}`
		requireError(t, post("/probe/"+id, big), http.StatusRequestEntityTooLarge, CodePayloadTooLarge)
	})
	t.Run("unknown route", func(t *testing.T) {
		requireError(t, b.do(t, http.MethodGet, "/nope", tok, nil), http.StatusNotFound, CodeNotFound)
	})
	t.Run("wrong method", func(t *testing.T) {
		requireError(t, b.do(t, http.MethodDelete, "/users/me", tok, nil), http.StatusMethodNotAllowed, CodeMethodNotAllowed)
	})
	t.Run("panic", func(t *testing.T) {
		r := b.do(t, http.MethodGet, "/probe-panic", tok, nil)
		requireError(t, r, http.StatusInternalServerError, CodeInternal)
		require.NotContains(t, r.RawBody, "secret")
	})
	t.Run("handler error", func(t *testing.T) {
		r := b.do(t, http.MethodGet, "/probe-fail", tok, nil)
		requireError(t, r, http.StatusInternalServerError, CodeInternal)
		require.NotContains(t, r.RawBody, "secret")
		require.NotContains(t, r.RawBody, "SELECT")
	})
	t.Run("request id echoed", func(t *testing.T) {
		r := b.do(t, http.MethodGet, "/nope", tok, nil, "X-Request-Id", "abc-123")
		require.Equal(t, "abc-123", r.Header.Get("X-Request-Id"))
		r = b.do(t, http.MethodGet, "/health", "", nil, "X-Request-Id", "bad id with spaces")
		require.Len(t, r.Header.Get("X-Request-Id"), 24)
	})
}

func TestHealthAndReady(t *testing.T) {
	t.Parallel()
	b := setup(t)
	r := b.do(t, http.MethodGet, "/health", "", nil)
	require.Equal(t, http.StatusOK, r.Status)
	require.NotEmpty(t, r.Header.Get("X-Request-Id"))
	r = b.do(t, http.MethodGet, "/ready", "", nil)
	require.Equal(t, http.StatusOK, r.Status, r.RawBody)

	// A schema behind the binary is not ready.
	ctx := context.Background()
	_, err := b.pool.Exec(ctx, "DELETE FROM goose_db_version WHERE version_id = (SELECT max(version_id) FROM goose_db_version)")
	require.NoError(t, err)
	rc, err := river.NewClient(riverpgxv5.New(b.pool), &river.Config{})
	require.NoError(t, err)
	stale := httptest.NewServer(New(Options{Pool: b.pool, River: rc, Auth: NewAuthenticator(AuthConfig{}, b.pool)}))
	defer stale.Close()
	res, err := http.Get(stale.URL + "/ready")
	require.NoError(t, err)
	defer res.Body.Close()
	require.Equal(t, http.StatusServiceUnavailable, res.StatusCode)
	var body map[string]any
	require.NoError(t, json.NewDecoder(res.Body).Decode(&body))
	require.Equal(t, CodeServiceUnavailable, body["code"])
	require.Contains(t, body["message"], "auditd migrate")
}

func TestDocsServedOffline(t *testing.T) {
	t.Parallel()
	b := setup(t)
	for _, page := range []string{"/docs", "/redoc"} {
		r := b.do(t, http.MethodGet, page, "", nil)
		require.Equal(t, http.StatusOK, r.Status)
		require.Contains(t, r.Header.Get("Content-Type"), "text/html")
		require.Equal(t, "frame-ancestors 'none'", r.Header.Get("Content-Security-Policy"))
		require.Equal(t, "DENY", r.Header.Get("X-Frame-Options"))
		require.Equal(t, "nosniff", r.Header.Get("X-Content-Type-Options"))
		require.NotContains(t, r.RawBody, "http://")
		require.NotContains(t, r.RawBody, "https://")
		// Every script and stylesheet the page loads is served by us.
		for _, ref := range refs(r.RawBody) {
			a := b.do(t, http.MethodGet, "/"+ref, "", nil)
			require.Equal(t, http.StatusOK, a.Status, ref)
			require.Greater(t, len(a.RawBody), 100, ref)
		}
	}
	r := b.do(t, http.MethodGet, "/redoc", "", nil)
	require.Contains(t, r.RawBody, `spec-url="openapi.json"`)
}

// refs returns the src and href attributes of an HTML page.
func refs(html string) []string {
	var out []string
	for _, attr := range []string{`src="`, `href="`} {
		for rest := html; ; {
			i := strings.Index(rest, attr)
			if i < 0 {
				break
			}
			rest = rest[i+len(attr):]
			out = append(out, rest[:strings.IndexByte(rest, '"')])
		}
	}
	return out
}

func TestOpenAPIDescribesEveryOperation(t *testing.T) {
	t.Parallel()
	b := setup(t)
	r := b.do(t, http.MethodGet, "/openapi.json", "", nil)
	require.Equal(t, http.StatusOK, r.Status)
	var doc struct {
		Tags       []struct{ Name, Description string } `json:"tags"`
		Paths      map[string]map[string]map[string]any `json:"paths"`
		Components struct {
			Schemas         map[string]any `json:"schemas"`
			SecuritySchemes map[string]any `json:"securitySchemes"`
		} `json:"components"`
	}
	require.NoError(t, json.Unmarshal([]byte(r.RawBody), &doc))
	require.Contains(t, doc.Components.SecuritySchemes, "bearer")
	require.Contains(t, doc.Components.Schemas, "Error")
	require.Contains(t, doc.Paths, "/users/me")
	public := map[string]bool{"/health": true, "/ready": true, "/client-config": true}
	listed := map[string]bool{}
	for _, tag := range doc.Tags {
		require.NotEmpty(t, tag.Description, tag.Name)
		listed[tag.Name] = true
	}
	for path, ops := range doc.Paths {
		for method, op := range ops {
			require.NotEmpty(t, op["operationId"], "%s %s", method, path)
			opTags, _ := op["tags"].([]any)
			require.NotEmpty(t, opTags, "%s %s is in a group of the reference", method, path)
			for _, tag := range opTags {
				require.True(t, listed[tag.(string)], "%s %s: its tag %q is listed, in its place, in the document's tags", method, path, tag)
			}
			responses := op["responses"].(map[string]any)
			require.Contains(t, fmt.Sprint(responses), "#/components/schemas/Error", "%s %s documents the error model", method, path)
			if !public[path] {
				require.NotEmpty(t, op["security"], "%s %s needs the bearer scheme", method, path)
				require.Contains(t, responses, "401", "%s %s", method, path)
			}
		}
	}
}

func TestCanaryWithoutWorkers(t *testing.T) {
	t.Parallel()
	b := setup(t)
	r := b.do(t, http.MethodPost, "/admin/canary", b.issuer.token(t, "root", "admin"), bytes.NewReader(nil))
	requireError(t, r, http.StatusServiceUnavailable, CodeServiceUnavailable)
	require.Contains(t, r.Body["message"], "auditd work")
	// The unanswered canary is not left queued.
	var state string
	require.NoError(t, b.pool.QueryRow(context.Background(), "SELECT state FROM river_job WHERE kind = 'canary'").Scan(&state))
	require.Equal(t, "cancelled", state)
}

// TestTokenClaimsBounded: what a token says of its user is stored bounded
// and without control or bidirectional characters; an identifier that is
// not plain text of a bounded length is refused.
func TestTokenClaimsBounded(t *testing.T) {
	t.Parallel()
	b := setup(t)
	c := b.issuer.claims("big")
	c["name"] = "\u202eAna\u2066 " + strings.Repeat("n", 100_000) + "\r\n"
	c["email"] = "ana\u202e@example.test"
	roles := []any{"\u202eadmin", strings.Repeat("r", 65)}
	for i := range 1000 {
		roles = append(roles, fmt.Sprintf("group-%d", i))
	}
	c["roles"] = append(roles, "supervisor", "supervisor")
	r := b.do(t, http.MethodGet, "/users/me", b.issuer.sign(t, c), nil)
	require.Equal(t, http.StatusOK, r.Status, r.RawBody)
	me := r.Body["details"].(map[string]any)
	name := me["name"].(string)
	require.Equal(t, maxClaimName, utf8.RuneCountInString(name))
	require.True(t, strings.HasPrefix(name, "Ana nnn"), name)
	require.Empty(t, me["email"], "an address with a bidirectional control is no address")
	require.Equal(t, "supervisor", me["role"], "the service's roles are kept first")
	require.Len(t, me["roles"], maxRoles)
	require.Equal(t, "supervisor", me["roles"].([]any)[0])

	for _, sub := range []string{strings.Repeat("s", maxClaimID+1), "ana\u202e", "ana\u200f"} {
		requireError(t, b.do(t, http.MethodGet, "/users/me", b.issuer.token(t, sub, "admin"), nil), http.StatusUnauthorized, CodeUnauthorized)
	}
	c = b.issuer.claims("uname")
	c["preferred_username"] = "ad\u202emin"
	requireError(t, b.do(t, http.MethodGet, "/users/me", b.issuer.sign(t, c), nil), http.StatusUnauthorized, CodeUnauthorized)
}

// TestRolesFromTheNewestToken: roles come from the newest token (by iat)
// or the directory; a user's older admin token kept after the role was
// removed neither makes them admin again nor revives their River UI
// session.
func TestRolesFromTheNewestToken(t *testing.T) {
	t.Parallel()
	b := setup(t)
	older := b.issuer.claims("rosa")
	older["iat"] = time.Now().Add(-time.Hour).Unix()
	older["roles"] = []string{"admin"}
	adminToken := b.issuer.sign(t, older)
	r := b.do(t, http.MethodPost, "/admin/riverui/session", adminToken, nil)
	require.Equal(t, http.StatusOK, r.Status, r.RawBody)
	cookie := r.Header.Get("Set-Cookie")
	require.NotEmpty(t, cookie)
	session := strings.SplitN(cookie, ";", 2)[0]
	require.Equal(t, http.StatusOK, b.do(t, http.MethodGet, RiverUIPrefix+"/api/states", "", nil, "Cookie", session).Status)

	newer := b.issuer.claims("rosa") // issued now, without admin
	r = b.do(t, http.MethodGet, "/users/me", b.issuer.sign(t, newer), nil)
	require.Equal(t, "quality", r.Body["details"].(map[string]any)["role"], r.RawBody)

	r = b.do(t, http.MethodGet, "/users/me", adminToken, nil)
	require.Equal(t, http.StatusOK, r.Status, r.RawBody)
	require.Equal(t, "quality", r.Body["details"].(map[string]any)["role"], "the older token's roles do not come back")
	requireError(t, b.do(t, http.MethodGet, "/admin/jobs", adminToken, nil), http.StatusForbidden, CodeForbidden)
	requireError(t, b.do(t, http.MethodGet, RiverUIPrefix+"/api/states", "", nil, "Cookie", session), http.StatusForbidden, CodeForbidden)

	// A token issued later gives the role back.
	again := b.issuer.claims("rosa")
	again["iat"] = time.Now().Add(time.Second).Unix()
	again["roles"] = []string{"admin"}
	require.Equal(t, http.StatusOK, b.do(t, http.MethodGet, "/admin/jobs", b.issuer.sign(t, again), nil).Status)
}
