// Package config reads the service's configuration from the environment and
// validates it, naming the variable in every error.
package config

import (
	"errors"
	"fmt"
	"net"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Config is the whole configuration of auditd. The zero value is not valid;
// use FromEnv.
type Config struct {
	// DatabaseURL is the Postgres connection string (DATABASE_URL). Required.
	DatabaseURL string
	// ListenAddr is the API's listen address (LISTEN_ADDR). Defaults to 127.0.0.1:8080.
	ListenAddr string
	// PublicURL is the base URL clients reach the API at, behind any proxy
	// (PUBLIC_URL). Defaults to http://LISTEN_ADDR.
	PublicURL string
	// LogLevel is debug, info, warn or error (LOG_LEVEL). Defaults to info.
	LogLevel string

	// OIDCIssuerURL is the identity provider (OIDC_ISSUER_URL). Required unless AuthDev.
	OIDCIssuerURL string
	// OIDCAudience is the audience access tokens must carry (OIDC_AUDIENCE).
	// Required unless AuthDev, where it defaults to "auditd".
	OIDCAudience string
	// OIDCRolesClaim is the dotted path of the roles claim (OIDC_ROLES_CLAIM). Defaults to roles.
	OIDCRolesClaim string
	// OIDCUsernameClaim is the dotted path of the username claim (OIDC_USERNAME_CLAIM).
	// Defaults to preferred_username.
	OIDCUsernameClaim string
	// OIDCSubjectClaim is the claim that identifies a user (OIDC_SUBJECT_CLAIM). Defaults to sub.
	OIDCSubjectClaim string
	// OIDCWebClientID is the dashboard's client id at the identity provider
	// (OIDC_WEB_CLIENT_ID): a public client using the authorization code flow
	// with PKCE. Unset, the dashboard cannot sign in with OIDC (AUTH_DEV's
	// sign-in needs none).
	OIDCWebClientID string
	// OIDCWebScopes are the scopes the dashboard asks for, space-separated
	// (OIDC_WEB_SCOPES). They must include openid. Defaults to
	// "openid profile email offline_access" (offline_access for a refresh token).
	OIDCWebScopes string
	// AuthDev runs the built-in development issuer (AUTH_DEV). Refused unless
	// ListenAddr is a loopback address. Defaults to false.
	AuthDev bool

	// WorkerConcurrency is how many jobs of the default queue one worker
	// process runs at once (WORKER_CONCURRENCY). Defaults to 10.
	WorkerConcurrency int
	// ShutdownTimeout bounds the graceful shutdown on SIGTERM: in-flight
	// requests and jobs get this long before they are cancelled
	// (SHUTDOWN_TIMEOUT). Defaults to 30s.
	ShutdownTimeout time.Duration
	// EventRetention is how long events are kept for streams to resume
	// from (EVENT_RETENTION). Defaults to 168h (7 days).
	EventRetention time.Duration
	// MetricsAddr, when set, serves /metrics (unauthenticated) on its own
	// listener, in every process type (METRICS_ADDR).
	MetricsAddr string
	// MetricsToken, when set, is the bearer token that /metrics on the API
	// listener accepts; otherwise /metrics there needs an admin's token
	// (METRICS_TOKEN).
	MetricsToken string
	// JobWaitTimeout bounds how long a request waits for a job it inserted
	// (JOB_WAIT_TIMEOUT). Defaults to 10s.
	JobWaitTimeout time.Duration
}

// FromEnv builds a Config from getenv (usually os.Getenv) and validates it.
func FromEnv(getenv func(string) string) (Config, error) {
	e := env{getenv: getenv}
	c := Config{
		DatabaseURL:       e.str("DATABASE_URL", ""),
		ListenAddr:        e.str("LISTEN_ADDR", "127.0.0.1:8080"),
		PublicURL:         strings.TrimRight(e.str("PUBLIC_URL", ""), "/"),
		LogLevel:          e.str("LOG_LEVEL", "info"),
		OIDCIssuerURL:     e.str("OIDC_ISSUER_URL", ""),
		OIDCAudience:      e.str("OIDC_AUDIENCE", ""),
		OIDCRolesClaim:    e.str("OIDC_ROLES_CLAIM", "roles"),
		OIDCUsernameClaim: e.str("OIDC_USERNAME_CLAIM", "preferred_username"),
		OIDCSubjectClaim:  e.str("OIDC_SUBJECT_CLAIM", "sub"),
		OIDCWebClientID:   e.str("OIDC_WEB_CLIENT_ID", ""),
		OIDCWebScopes:     strings.Join(strings.Fields(e.str("OIDC_WEB_SCOPES", "openid profile email offline_access")), " "),
		AuthDev:           e.boolean("AUTH_DEV", false),
		WorkerConcurrency: e.integer("WORKER_CONCURRENCY", 10),
		ShutdownTimeout:   e.duration("SHUTDOWN_TIMEOUT", 30*time.Second),
		JobWaitTimeout:    e.duration("JOB_WAIT_TIMEOUT", 10*time.Second),
		EventRetention:    e.duration("EVENT_RETENTION", 7*24*time.Hour),
		MetricsAddr:       e.str("METRICS_ADDR", ""),
		MetricsToken:      e.str("METRICS_TOKEN", ""),
	}
	if c.PublicURL == "" {
		c.PublicURL = "http://" + c.ListenAddr
	}
	if c.AuthDev && c.OIDCAudience == "" {
		c.OIDCAudience = "auditd"
	}
	if e.err != nil {
		return Config{}, e.err
	}
	return c, c.validate()
}

func (c Config) validate() error {
	if c.DatabaseURL == "" {
		return errors.New("DATABASE_URL is required (a postgres:// connection string)")
	}
	host, _, err := net.SplitHostPort(c.ListenAddr)
	if err != nil {
		return fmt.Errorf("LISTEN_ADDR: %q is not host:port", c.ListenAddr)
	}
	if c.MetricsAddr != "" {
		if _, _, err := net.SplitHostPort(c.MetricsAddr); err != nil {
			return fmt.Errorf("METRICS_ADDR: %q is not host:port", c.MetricsAddr)
		}
	}
	if u, err := url.Parse(c.PublicURL); err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
		return fmt.Errorf("PUBLIC_URL: %q is not an http(s) URL", c.PublicURL)
	}
	switch c.LogLevel {
	case "debug", "info", "warn", "error":
	default:
		return fmt.Errorf("LOG_LEVEL: %q is not one of debug, info, warn, error", c.LogLevel)
	}
	if c.WorkerConcurrency < 1 || c.WorkerConcurrency > 10000 {
		return fmt.Errorf("WORKER_CONCURRENCY: %d is outside 1..10000", c.WorkerConcurrency)
	}
	if c.AuthDev && !isLoopback(host) {
		return fmt.Errorf("AUTH_DEV: the development issuer is refused on LISTEN_ADDR %q; listen on 127.0.0.1 or use a real OIDC_ISSUER_URL", c.ListenAddr)
	}
	return nil
}

// ValidateAuth checks the settings that token verification needs; processes
// that serve the API (and `auditd token`) call it, workers do not.
func (c Config) ValidateAuth() error {
	if !c.AuthDev {
		if c.OIDCIssuerURL == "" {
			return errors.New("OIDC_ISSUER_URL is required (or set AUTH_DEV=true for local development)")
		}
		if u, err := url.Parse(c.OIDCIssuerURL); err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
			return fmt.Errorf("OIDC_ISSUER_URL: %q is not an http(s) URL", c.OIDCIssuerURL)
		}
		if c.OIDCAudience == "" {
			return errors.New("OIDC_AUDIENCE is required: the audience (API identifier) your access tokens carry")
		}
	}
	if !slices.Contains(strings.Fields(c.OIDCWebScopes), "openid") {
		return fmt.Errorf("OIDC_WEB_SCOPES: %q must include openid", c.OIDCWebScopes)
	}
	for _, claim := range []struct{ name, path string }{
		{"OIDC_ROLES_CLAIM", c.OIDCRolesClaim},
		{"OIDC_USERNAME_CLAIM", c.OIDCUsernameClaim},
		{"OIDC_SUBJECT_CLAIM", c.OIDCSubjectClaim},
	} {
		if strings.HasPrefix(claim.path, ".") || strings.HasSuffix(claim.path, ".") || strings.Contains(claim.path, "..") {
			return fmt.Errorf("%s: %q is not a dotted claim path such as realm_access.roles", claim.name, claim.path)
		}
	}
	return nil
}

// DevIssuerURL is the issuer of the built-in development identity provider.
// It hangs off PublicURL, so every API process behind one address shares it.
func (c Config) DevIssuerURL() string {
	return c.PublicURL + "/dev-oidc"
}

func isLoopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// env reads variables and keeps the first parse error.
type env struct {
	getenv func(string) string
	err    error
}

func (e *env) str(name, def string) string {
	if v := strings.TrimSpace(e.getenv(name)); v != "" {
		return v
	}
	return def
}

func (e *env) fail(name, v, want string) {
	if e.err == nil {
		e.err = fmt.Errorf("%s: %q is not %s", name, v, want)
	}
}

// parse reads name with conv, keeping def when it is unset and recording
// an error that says what was wanted when conv fails.
func parse[T any](e *env, name string, def T, want string, conv func(string) (T, error)) T {
	v := e.str(name, "")
	if v == "" {
		return def
	}
	x, err := conv(v)
	if err != nil {
		e.fail(name, v, want)
	}
	return x
}

func (e *env) boolean(name string, def bool) bool {
	return parse(e, name, def, "a boolean (true or false)", strconv.ParseBool)
}

func (e *env) integer(name string, def int) int {
	return parse(e, name, def, "an integer", strconv.Atoi)
}

func (e *env) duration(name string, def time.Duration) time.Duration {
	return parse(e, name, def, "a positive duration such as 30s or 2m", func(v string) (time.Duration, error) {
		d, err := time.ParseDuration(v)
		if err == nil && d <= 0 {
			err = errors.New("not positive")
		}
		return d, err
	})
}
