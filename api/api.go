// Package api is the HTTP API of the audit service: Huma v2 operations on a
// chi router, the error model, bearer-token authentication and the docs.
package api

import (
	"cmp"
	"log/slog"
	"net/http"
	"time"

	"github.com/danielgtaylor/huma/v2"
	"github.com/danielgtaylor/huma/v2/adapters/humachi"
	"github.com/go-chi/chi/v5"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river"

	"github.com/auditd/auditd/metrics"
	"github.com/auditd/auditd/role"
	"github.com/auditd/auditd/storage"
	"github.com/auditd/auditd/web"
)

// Version is the API version shown in the OpenAPI document.
const Version = "0.1.0"

// Options are the dependencies of the API.
type Options struct {
	// Pool is the database. Required.
	Pool *pgxpool.Pool
	// River inserts jobs (and reads their state); an insert-only client is enough. Required.
	River *river.Client[pgx.Tx]
	// Auth verifies bearer tokens. Required.
	Auth *Authenticator
	// Hub fans events out to SSE streams; run it with Hub.Run. Required.
	Hub *Hub
	// DevIssuer, when set, is served under /dev-oidc (AUTH_DEV=true).
	DevIssuer *DevIssuer
	// Client is what the dashboard needs to sign users in, served at /client-config.
	Client ClientConfig
	// Web, when set, is the dashboard, served at / and under web.AppPrefix.
	Web *web.Handler
	// Metrics records request metrics and is served at /metrics. Defaults to a new registry.
	Metrics *metrics.Metrics
	// MetricsToken, when set, is the static bearer token /metrics accepts
	// (for Prometheus); otherwise /metrics needs an admin's access token.
	MetricsToken string
	// Logger receives request and error logs. Defaults to slog.Default().
	Logger *slog.Logger
	// JobWaitTimeout bounds how long a request waits for a job it inserted. Defaults to 10s.
	JobWaitTimeout time.Duration
	// Directory is the provider users are synced from (DIRECTORY_PROVIDER):
	// keycloak, msgraph or scim. Empty when none is configured, and then
	// POST /users/sync answers CONFLICT.
	Directory string
	// Store keeps uploaded files. Required.
	Store *storage.Store
	// Upload bounds upload requests; zero fields take their defaults.
	Upload UploadLimits
	// Validation configures POST /validate-audit; zero limits take their defaults.
	Validation ValidationOptions
	// RiverUI, when set, is River UI's handler (riverui.Handler, started,
	// with the prefix RiverUIPrefix), served there to admins.
	RiverUI http.Handler
	// SecureCookies marks cookies Secure: PUBLIC_URL is https.
	SecureCookies bool
	// BodyTimeouts bound the time upload and validation bodies take to
	// arrive; zero fields take their defaults.
	BodyTimeouts BodyTimeouts
	// RateLimit bounds each user's writes and uploads; zero fields take their defaults.
	RateLimit RateLimits
	// WebhookAllowPrivate lets webhook subscriptions name loopback and
	// private addresses (WEBHOOK_ALLOW_PRIVATE).
	WebhookAllowPrivate bool
	// UploadURLAllowPrivate lets an upload by URL fetch from loopback and
	// private addresses (UPLOAD_URL_ALLOW_PRIVATE).
	UploadURLAllowPrivate bool
	// DefaultTimeZone is the zone of a user who has none
	// (DEFAULT_TIME_ZONE). Defaults to UTC.
	DefaultTimeZone *time.Location
	// ReviewConfidence is the confidence below which a verdict of a
	// scorecard's preview needs review (AUDIT_REVIEW_CONFIDENCE), as the
	// audit job marks it. Zero marks none.
	ReviewConfidence float64
}

// Server is the HTTP API.
type Server struct {
	opts Options
	api  huma.API
	mux  *chi.Mux
}

// New builds the API with every operation registered.
func New(opts Options) *Server {
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	if opts.Metrics == nil {
		opts.Metrics = metrics.New()
	}
	if opts.JobWaitTimeout == 0 {
		opts.JobWaitTimeout = 10 * time.Second
	}
	mux := chi.NewMux()
	mux.Use(withRequest(opts.Logger, opts.Metrics), strictURL)
	mux.Use(withOrigin)
	mux.NotFound(func(w http.ResponseWriter, r *http.Request) {
		writeError(w, r, Errorf(CodeNotFound, "no such route: "+r.Method+" "+r.URL.Path))
	})
	mux.MethodNotAllowed(func(w http.ResponseWriter, r *http.Request) {
		writeError(w, r, Errorf(CodeMethodNotAllowed, "method "+r.Method+" is not allowed on "+r.URL.Path))
	})

	cfg := huma.DefaultConfig("Audit service API", Version)
	cfg.Info.Description = "Audits recordings of calls and transcripts of chats against a campaign's scorecard. " +
		"Every endpoint except /health, /ready, /client-config and the docs needs `Authorization: Bearer <access token>`. " +
		"Errors are `{success: false, code, message, details, request_id}`."
	cfg.Formats = map[string]huma.Format{"application/json": jsonFormat, "json": jsonFormat}
	cfg.OpenAPIPath = "/openapi"
	cfg.DocsPath = ""
	cfg.CreateHooks = nil
	// Every operation needs a token unless it says otherwise (public: the
	// one empty requirement); the API is served where the document is.
	cfg.Security = []map[string][]string{{"bearer": {}}}
	cfg.Servers = []*huma.Server{{URL: "/", Description: "This server"}}
	cfg.Components.SecuritySchemes = map[string]*huma.SecurityScheme{
		"bearer": {Type: "http", Scheme: "bearer", BearerFormat: "JWT", Description: "An access token from the identity provider (OIDC_ISSUER_URL)."},
	}
	cfg.Transformers = append(cfg.Transformers, func(ctx huma.Context, _ string, v any) (any, error) {
		if e, ok := v.(*Error); ok {
			e.RequestID = requestID(ctx.Context())
		}
		return v, nil
	})
	hapi := humachi.New(mux, cfg)
	s := &Server{opts: opts, api: hapi, mux: mux}
	lim := newLimiter(opts.RateLimit, opts.Pool)
	hapi.UseMiddleware(opts.Auth.middleware(lim), lim.middleware, strictQuery)

	docsRoutes(mux)
	mux.Get("/metrics", metricsHandler(opts))
	if opts.DevIssuer != nil {
		mux.Route("/dev-oidc", opts.DevIssuer.routes)
	}
	if opts.Web != nil {
		// The dashboard only gets "/", its client routes and its own files,
		// never a catch-all: every other path stays the API's, so an unknown
		// API path is still a JSON 404. (A test keeps API paths out of the
		// dashboard's.)
		for _, p := range opts.Web.Patterns() {
			mux.Method(http.MethodGet, p, opts.Web)
			mux.Method(http.MethodHead, p, opts.Web)
		}
	}
	opts.Client.RiverUI = opts.RiverUI != nil
	(&clientResource{config: opts.Client}).register(hapi)
	(&healthResource{pool: opts.Pool}).register(hapi)
	(&usersResource{pool: opts.Pool, zone: cmp.Or(opts.DefaultTimeZone, time.UTC)}).register(hapi)
	(&usersAdminResource{pool: opts.Pool, river: opts.River, directory: opts.Directory}).register(hapi)
	(&pickersResource{pool: opts.Pool}).register(hapi)
	(&notificationsResource{pool: opts.Pool}).register(hapi)
	(&viewsResource{pool: opts.Pool}).register(hapi)
	(&campaignsResource{pool: opts.Pool, river: opts.River, review: opts.ReviewConfidence}).register(hapi)
	(&statsResource{pool: opts.Pool, now: time.Now}).register(hapi)
	audits := &auditsResource{pool: opts.Pool, river: opts.River, wait: opts.JobWaitTimeout}
	audits.register(hapi)
	(&eventsResource{pool: opts.Pool, hub: opts.Hub}).register(hapi)
	(&adminResource{river: opts.River, wait: opts.JobWaitTimeout}).register(hapi)
	timeouts := opts.BodyTimeouts.withDefaults()
	(&tasksResource{pool: opts.Pool, river: opts.River, store: opts.Store, limits: opts.Upload.withDefaults(),
		speech: opts.Client.Speech, timeouts: timeouts, fetchPrivate: opts.UploadURLAllowPrivate}).register(hapi)
	(&validationsResource{pool: opts.Pool, river: opts.River, store: opts.Store, wait: opts.JobWaitTimeout,
		opts: opts.Validation.withDefaults(), timeouts: timeouts}).register(hapi)
	(&bulkResource{pool: opts.Pool, river: opts.River}).register(hapi)
	(&samplingResource{pool: opts.Pool, river: opts.River, wait: opts.JobWaitTimeout}).register(hapi)
	(&reviewsResource{pool: opts.Pool, now: time.Now}).register(hapi)
	(&disputesResource{pool: opts.Pool, river: opts.River, wait: opts.JobWaitTimeout}).register(hapi)
	(&calibrationResource{pool: opts.Pool, audits: audits, now: time.Now}).register(hapi)
	(&coachingResource{pool: opts.Pool, river: opts.River, now: time.Now}).register(hapi)
	(&privacyResource{pool: opts.Pool, river: opts.River}).register(hapi)
	(&webhooksResource{pool: opts.Pool, river: opts.River, wait: opts.JobWaitTimeout,
		allowPrivate: opts.WebhookAllowPrivate}).register(hapi)
	(&ingestResource{pool: opts.Pool, river: opts.River}).register(hapi)
	// Its session operations are in the API either way (the document does
	// not depend on RIVER_UI); with River UI off they answer NOT_FOUND.
	u := &riverUI{ui: opts.RiverUI, auth: opts.Auth, pool: opts.Pool, secure: opts.SecureCookies}
	if opts.RiverUI != nil {
		u.mount(s)
	}
	u.register(hapi)
	canonicalUUIDs(hapi.OpenAPI())
	hapi.OpenAPI().Tags = tags
	return s
}

// ServeHTTP implements http.Handler.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) { s.mux.ServeHTTP(w, r) }

// OpenAPI returns the OpenAPI document of the API.
func (s *Server) OpenAPI() *huma.OpenAPI { return s.api.OpenAPI() }

func unwrap(ctx huma.Context) (*http.Request, http.ResponseWriter) { return humachi.Unwrap(ctx) }

// Envelope is the body of every successful response that carries a result.
type Envelope[T any] struct {
	Success bool   `json:"success" doc:"Always true for a success"`
	Code    string `json:"code" doc:"OK, or ACCEPTED when work continues in the background" enum:"OK,ACCEPTED"`
	Details T      `json:"details"`
}

// Output is a response whose body is an Envelope.
type Output[T any] struct {
	Body Envelope[T]
}

func ok[T any](v T) *Output[T] {
	return &Output[T]{Body: Envelope[T]{Success: true, Code: "OK", Details: v}}
}

// accepted is the body of a 202: the work goes on in the background
// (declare the operation's DefaultStatus as 202).
func accepted[T any](v T) *Output[T] {
	return &Output[T]{Body: Envelope[T]{Success: true, Code: "ACCEPTED", Details: v}}
}

// bodyReadTimeout bounds the reading of a JSON request body: a client
// that sends it slower is answered 408 REQUEST_TIMEOUT rather than holding
// a connection and a goroutine. Uploads and validations stream their
// bodies (declared without a Body field) and are bounded by BodyTimeouts
// instead.
const bodyReadTimeout = 10 * time.Second

// operation describes an operation that needs a bearer token and at least minRole.
func operation(method, path, id, summary string, minRole role.Role, errs ...int) huma.Operation {
	who := "Any signed-in user."
	if minRole > role.None {
		who = "Requires the " + minRole.String() + " role or above."
	}
	// Per-user rate limits, and per address for failed authentications
	// (RateLimits).
	errs = append([]int{http.StatusUnauthorized, http.StatusForbidden}, append(errs, http.StatusTooManyRequests)...)
	return huma.Operation{
		OperationID: id,
		Method:      method,
		Path:        path,
		Summary:     summary,
		Description: who,
		Security:    []map[string][]string{{"bearer": {}}},
		Metadata:    map[string]any{metaRole: minRole},
		Errors:      errs,
		// Huma applies it to operations with a Body only.
		BodyReadTimeout: bodyReadTimeout,
	}
}
