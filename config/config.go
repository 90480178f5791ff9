// Package config reads the service's configuration from the environment and
// validates it, naming the variable in every error.
package config

import (
	"errors"
	"fmt"
	"math"
	"net"
	"net/mail"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"golang.org/x/text/language"
)

// DefaultReviewConfidence is AUDIT_REVIEW_CONFIDENCE's default: the
// threshold `make eval` chooses from the rules engine's cross-validated
// reliability on the development set (docs/engines.md, "Confidence and
// review").
const DefaultReviewConfidence = 0.79

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
	// RiverUI serves River UI at /riverui/ to admins (RIVER_UI). Defaults
	// to true.
	RiverUI bool
	// WebhookAllowPrivate lets webhook subscriptions reach loopback,
	// private and link-local addresses (WEBHOOK_ALLOW_PRIVATE), for a
	// receiver on the same machine or network. Defaults to false.
	WebhookAllowPrivate bool
	// UploadURLAllowPrivate lets POST /tasks/upload fetch a recording by
	// URL from loopback, private and link-local addresses
	// (UPLOAD_URL_ALLOW_PRIVATE). Defaults to false.
	UploadURLAllowPrivate bool
	// JobWaitTimeout bounds how long a request waits for a job it inserted
	// (JOB_WAIT_TIMEOUT). Defaults to 10s.
	JobWaitTimeout time.Duration

	// DirectoryProvider is the directory users are synced from: keycloak,
	// msgraph or scim (DIRECTORY_PROVIDER). Empty when none is (the
	// default, DIRECTORY_PROVIDER=none).
	DirectoryProvider string
	// DirectoryURL is the Keycloak base URL, the Graph endpoint or the SCIM
	// base URL (DIRECTORY_URL). Defaults to https://graph.microsoft.com for
	// msgraph; required for the others.
	DirectoryURL string
	// DirectoryRealm is the Keycloak realm (DIRECTORY_REALM). Required for keycloak.
	DirectoryRealm string
	// DirectoryTenant is the Entra tenant id or domain (DIRECTORY_TENANT). Required for msgraph.
	DirectoryTenant string
	// DirectoryLoginURL is the Entra login endpoint Graph tokens come from
	// (DIRECTORY_LOGIN_URL). Defaults to https://login.microsoftonline.com.
	DirectoryLoginURL string
	// DirectoryClientID and DirectoryClientSecret are the client-credentials
	// grant (DIRECTORY_CLIENT_ID, DIRECTORY_CLIENT_SECRET). Required for
	// keycloak and msgraph.
	DirectoryClientID, DirectoryClientSecret string
	// DirectoryToken is the SCIM bearer token (DIRECTORY_TOKEN). Required for scim.
	DirectoryToken string
	// DirectorySubjectAttribute is the SCIM attribute that equals the token
	// subject: id, externalId or userName (DIRECTORY_SUBJECT_ATTRIBUTE).
	// Defaults to id.
	DirectorySubjectAttribute string
	// SamplingInterval is how often the sampling rules pick tasks for
	// review (SAMPLING_INTERVAL). Defaults to 5m; at least 1s.
	SamplingInterval time.Duration
	// BulkResultsDays is how many days after a bulk action ends its
	// per-task results are kept (BULK_RESULTS_DAYS); the action and its
	// counts stay. Defaults to 90; 1 to 36500.
	BulkResultsDays int
	// UserSyncInterval is how often users are synced from the directory
	// (USER_SYNC_INTERVAL). Defaults to 1h; at least 1m.
	UserSyncInterval time.Duration

	// BlobURL is where uploaded files are stored (BLOB_URL): file://DIR or
	// s3://BUCKET?region=…&endpoint=…&use_path_style=true. Defaults to
	// file://./data/blobs.
	BlobURL string
	// UploadMaxFileBytes caps each uploaded file (UPLOAD_MAX_FILE_BYTES).
	// Defaults to 512 MiB.
	UploadMaxFileBytes int64
	// UploadMaxFiles caps the files of one upload request (UPLOAD_MAX_FILES).
	// Defaults to 100.
	UploadMaxFiles int
	// UploadMaxRequestBytes caps a whole upload request
	// (UPLOAD_MAX_REQUEST_BYTES). Defaults to 4 GiB.
	UploadMaxRequestBytes int64
	// UploadIdleTimeout is how long the body of an upload or a validation
	// may send nothing before it is answered 408 (UPLOAD_IDLE_TIMEOUT).
	// Defaults to 30s.
	UploadIdleTimeout time.Duration
	// UploadTimeout bounds the whole body of an upload or a validation,
	// however steadily it arrives (UPLOAD_TIMEOUT). Defaults to 1h.
	UploadTimeout time.Duration
	// RateLimitReads bounds each user's GET requests a minute
	// (RATE_LIMIT_READS). Defaults to 3000.
	RateLimitReads int
	// RateLimitWrites bounds each user's writes (POST, PUT, PATCH, DELETE)
	// a minute, uploads apart (RATE_LIMIT_WRITES). Defaults to 600.
	RateLimitWrites int
	// RateLimitUploads bounds each user's upload requests a minute
	// (RATE_LIMIT_UPLOADS). Defaults to 60.
	RateLimitUploads int
	// RateLimitAnonymous bounds, per client address, requests to public
	// operations and requests whose authentication fails, a minute
	// (RATE_LIMIT_ANONYMOUS). Defaults to 300.
	RateLimitAnonymous int

	// ASREngine transcribes calls: pocketsphinx or openai (ASR_ENGINE);
	// empty for none, when calls wait as queued. Defaults to pocketsphinx
	// when pocketsphinx_continuous is on PATH, else none.
	ASREngine string
	// ASRBaseURL, ASRAPIKey and ASRModel are the OpenAI-compatible server
	// of the openai engine (ASR_BASE_URL, ASR_API_KEY, ASR_MODEL); the URL
	// and the model are required with it.
	ASRBaseURL, ASRAPIKey, ASRModel string
	// ASRLanguages are the languages the engine transcribes, primary BCP 47
	// subtags in order of preference (ASR_LANGUAGES, comma-separated): an
	// upload refuses a call in any other, also a call uploaded with no
	// language whose campaign's the engine lacks. Empty means any, the
	// server detecting it. pocketsphinx transcribes en only; openai
	// defaults to any.
	ASRLanguages []string
	// ASRMaxChunk bounds the audio one engine call gets: longer recordings
	// are cut in their pauses (ASR_MAX_CHUNK). Zero means no limit; else at
	// least 2s. Defaults to 10m for openai (under OpenAI's 25 MB per
	// request), 0 for pocketsphinx.
	ASRMaxChunk time.Duration
	// ASRTimeout bounds one request to the openai engine's server, from
	// the first byte sent to the last byte of its answer (ASR_TIMEOUT);
	// one that runs out is retried as a failed request is. Defaults to
	// 10m.
	ASRTimeout time.Duration
	// TranscriptQualityFloor is the quality, from 0 to 1, under which a
	// call's transcript (or one of its segments) is not to be trusted
	// (TRANSCRIPT_QUALITY_FLOOR): the task is marked "transcript
	// unreliable" and its automatic verdicts need review. Defaults to 0.55
	// (transcript.DefaultQualityFloor, measured: docs/engines.md); 0 trusts
	// every transcript.
	TranscriptQualityFloor float64
	// TranscribeConcurrency is how many calls one worker process transcribes
	// at once, the workers of the media queue (TRANSCRIBE_CONCURRENCY).
	// Defaults to 1.
	TranscribeConcurrency int
	// TranscribeTimeoutMax bounds the time limit of one transcription, which
	// otherwise grows with the recording's length (TRANSCRIBE_TIMEOUT_MAX).
	// Defaults to 2h.
	TranscribeTimeoutMax time.Duration
	// JobRescueAfter is how long a job may stay running before River takes
	// its worker for dead and runs it again (JOB_RESCUE_AFTER). It must
	// exceed TranscribeTimeoutMax. Defaults to TranscribeTimeoutMax + 10m,
	// and at least 1h (the user sync may run 50m).
	JobRescueAfter time.Duration
	// JobRetryMaxDelay caps how long a failed job waits before it runs
	// again, whatever its attempt (JOB_RETRY_MAX_DELAY). 0 (the default)
	// keeps River's backoff, attempt⁴ seconds: 1 s, 16 s, 81 s…
	JobRetryMaxDelay time.Duration
	// DatabaseTimeout bounds the wait for a new database connection
	// (DATABASE_TIMEOUT); past it a request answers 503
	// SERVICE_UNAVAILABLE. Defaults to 5s.
	DatabaseTimeout time.Duration
	// AuditorEngine judges transcripts against scorecards: rules, llm, or
	// hybrid (the rules, and the model for what they are unsure of)
	// (AUDITOR_ENGINE). Defaults to rules.
	AuditorEngine string
	// ReviewConfidence is the confidence below which an automatic verdict
	// is marked as needing an analyst's review (AUDIT_REVIEW_CONFIDENCE),
	// from 0 to 1. Defaults to DefaultReviewConfidence.
	ReviewConfidence float64
	// LLMBaseURL is the OpenAI-compatible server of the llm engine, with or
	// without /v1 (LLM_BASE_URL). Required with AUDITOR_ENGINE=llm.
	LLMBaseURL string
	// LLMAPIKey is sent to it as a bearer token (LLM_API_KEY); local
	// servers often need none.
	LLMAPIKey string
	// LLMModel is the model to ask (LLM_MODEL). Required with AUDITOR_ENGINE=llm.
	LLMModel string
	// LLMContextChars is how many characters a prompt may take; longer
	// transcripts are truncated (LLM_CONTEXT_CHARS). Defaults to 48000
	// (about 12,000 tokens); at least 4000.
	LLMContextChars int
	// LLMTimeout bounds one request to the model (LLM_TIMEOUT). Defaults to 2m.
	LLMTimeout time.Duration
	// SMTPURL is the mail server (SMTP_URL): smtp://user:pass@host:port
	// (STARTTLS) or smtps://… (implicit TLS). Empty writes e-mails as .eml
	// files to MailDir instead.
	SMTPURL string
	// MailFrom is the sender of e-mails (MAIL_FROM). Required with SMTP_URL;
	// defaults to auditd@localhost for the outbox.
	MailFrom string
	// MailDir is the outbox used without SMTP_URL (MAIL_DIR). Defaults to ./data/outbox.
	MailDir string
	// MailTimeout bounds one delivery attempt (MAIL_TIMEOUT). Defaults to 30s.
	MailTimeout time.Duration
	// DefaultTimeZone is the zone of the times written to a user who has
	// none (DEFAULT_TIME_ZONE, an IANA name: the token's zoneinfo claim or
	// the user's choice comes first). Defaults to UTC.
	DefaultTimeZone *time.Location
	// ValidationTo receive every validation e-mail (VALIDATION_TO, a comma
	// list of addresses), beside the agent and the campaign's supervisors.
	ValidationTo []string
	// ValidationBcc receive every validation e-mail in blind copy
	// (VALIDATION_BCC, a comma list of addresses).
	ValidationBcc []string
	// ValidationMaxAttachments caps the files attached to one validation
	// (VALIDATION_MAX_ATTACHMENTS). Defaults to 10.
	ValidationMaxAttachments int
	// ValidationMaxAttachmentBytes caps the attachments of one validation
	// together (VALIDATION_MAX_ATTACHMENT_BYTES). Defaults to 25 MiB.
	ValidationMaxAttachmentBytes int64
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

		BlobURL:               e.str("BLOB_URL", "file://./data/blobs"),
		UploadMaxFileBytes:    e.bytes("UPLOAD_MAX_FILE_BYTES", 512<<20),
		UploadMaxFiles:        e.integer("UPLOAD_MAX_FILES", 100),
		UploadMaxRequestBytes: e.bytes("UPLOAD_MAX_REQUEST_BYTES", 4<<30),
		UploadIdleTimeout:     e.duration("UPLOAD_IDLE_TIMEOUT", 30*time.Second),
		UploadTimeout:         e.duration("UPLOAD_TIMEOUT", time.Hour),
		RateLimitReads:        e.integer("RATE_LIMIT_READS", 3000),
		RateLimitWrites:       e.integer("RATE_LIMIT_WRITES", 600),
		RateLimitUploads:      e.integer("RATE_LIMIT_UPLOADS", 60),
		RateLimitAnonymous:    e.integer("RATE_LIMIT_ANONYMOUS", 300),
		EventRetention:        e.duration("EVENT_RETENTION", 7*24*time.Hour),
		MetricsAddr:           e.str("METRICS_ADDR", ""),
		MetricsToken:          e.str("METRICS_TOKEN", ""),
		RiverUI:               e.boolean("RIVER_UI", true),
		WebhookAllowPrivate:   e.boolean("WEBHOOK_ALLOW_PRIVATE", false),
		UploadURLAllowPrivate: e.boolean("UPLOAD_URL_ALLOW_PRIVATE", false),

		DirectoryProvider:         e.str("DIRECTORY_PROVIDER", "none"),
		DirectoryURL:              strings.TrimRight(e.str("DIRECTORY_URL", ""), "/"),
		DirectoryRealm:            e.str("DIRECTORY_REALM", ""),
		DirectoryTenant:           e.str("DIRECTORY_TENANT", ""),
		DirectoryLoginURL:         strings.TrimRight(e.str("DIRECTORY_LOGIN_URL", "https://login.microsoftonline.com"), "/"),
		DirectoryClientID:         e.str("DIRECTORY_CLIENT_ID", ""),
		DirectoryClientSecret:     e.str("DIRECTORY_CLIENT_SECRET", ""),
		DirectoryToken:            e.str("DIRECTORY_TOKEN", ""),
		DirectorySubjectAttribute: e.str("DIRECTORY_SUBJECT_ATTRIBUTE", "id"),
		UserSyncInterval:          e.duration("USER_SYNC_INTERVAL", time.Hour),
		SamplingInterval:          e.duration("SAMPLING_INTERVAL", 5*time.Minute),
		BulkResultsDays:           e.integer("BULK_RESULTS_DAYS", 90),

		AuditorEngine:                e.str("AUDITOR_ENGINE", "rules"),
		ReviewConfidence:             e.fraction("AUDIT_REVIEW_CONFIDENCE", DefaultReviewConfidence),
		TranscriptQualityFloor:       e.fraction("TRANSCRIPT_QUALITY_FLOOR", 0.55),
		LLMBaseURL:                   e.str("LLM_BASE_URL", ""),
		LLMAPIKey:                    e.str("LLM_API_KEY", ""),
		LLMModel:                     e.str("LLM_MODEL", ""),
		LLMContextChars:              e.integer("LLM_CONTEXT_CHARS", 48000),
		LLMTimeout:                   e.duration("LLM_TIMEOUT", 2*time.Minute),
		SMTPURL:                      e.str("SMTP_URL", ""),
		MailFrom:                     e.str("MAIL_FROM", ""),
		MailDir:                      e.str("MAIL_DIR", "./data/outbox"),
		MailTimeout:                  e.duration("MAIL_TIMEOUT", 30*time.Second),
		DefaultTimeZone:              e.zone("DEFAULT_TIME_ZONE"),
		ValidationTo:                 e.addresses("VALIDATION_TO"),
		ValidationBcc:                e.addresses("VALIDATION_BCC"),
		ValidationMaxAttachments:     e.integer("VALIDATION_MAX_ATTACHMENTS", 10),
		ValidationMaxAttachmentBytes: e.bytes("VALIDATION_MAX_ATTACHMENT_BYTES", 25<<20),
	}
	if c.MailFrom == "" && c.SMTPURL == "" {
		c.MailFrom = "auditd@localhost"
	}
	c.ASREngine = e.str("ASR_ENGINE", "")
	if c.ASREngine == "" && onPath(getenv("PATH"), "pocketsphinx_continuous") {
		c.ASREngine = "pocketsphinx"
	}
	if c.ASREngine == "none" {
		c.ASREngine = ""
	}
	c.ASRBaseURL = e.str("ASR_BASE_URL", "")
	c.ASRAPIKey = e.str("ASR_API_KEY", "")
	c.ASRModel = e.str("ASR_MODEL", "")
	c.ASRLanguages = e.languages("ASR_LANGUAGES")
	if c.ASREngine == "pocketsphinx" {
		if len(c.ASRLanguages) > 0 && !slices.Equal(c.ASRLanguages, []string{"en"}) && e.err == nil {
			e.err = errors.New("ASR_LANGUAGES: pocketsphinx transcribes en only; set ASR_ENGINE=openai for other languages")
		}
		c.ASRLanguages = []string{"en"}
	}
	maxChunk := time.Duration(0)
	if c.ASREngine == "openai" {
		maxChunk = 10 * time.Minute
	}
	c.ASRMaxChunk = e.durationOrZero("ASR_MAX_CHUNK", maxChunk)
	c.ASRTimeout = e.duration("ASR_TIMEOUT", 10*time.Minute)
	c.TranscribeConcurrency = e.integer("TRANSCRIBE_CONCURRENCY", 1)
	c.TranscribeTimeoutMax = e.duration("TRANSCRIBE_TIMEOUT_MAX", 2*time.Hour)
	c.JobRescueAfter = e.duration("JOB_RESCUE_AFTER", max(c.TranscribeTimeoutMax+10*time.Minute, time.Hour))
	c.JobRetryMaxDelay = e.durationOrZero("JOB_RETRY_MAX_DELAY", 0)
	c.DatabaseTimeout = e.duration("DATABASE_TIMEOUT", 5*time.Second)
	if c.DirectoryProvider == "none" {
		c.DirectoryProvider = ""
	}
	if c.DirectoryProvider == "msgraph" && c.DirectoryURL == "" {
		c.DirectoryURL = "https://graph.microsoft.com"
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
	if !isHTTPURL(c.PublicURL) {
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
	if u, err := url.Parse(c.BlobURL); err != nil || (u.Scheme != "file" && u.Scheme != "s3") {
		return fmt.Errorf("BLOB_URL: %q is not a file:// or s3:// URL", c.BlobURL)
	}
	if c.UploadMaxFileBytes < 1 {
		return fmt.Errorf("UPLOAD_MAX_FILE_BYTES: %d is not positive", c.UploadMaxFileBytes)
	}
	if c.UploadMaxRequestBytes < c.UploadMaxFileBytes {
		return fmt.Errorf("UPLOAD_MAX_REQUEST_BYTES: %d is below UPLOAD_MAX_FILE_BYTES (%d)", c.UploadMaxRequestBytes, c.UploadMaxFileBytes)
	}
	if c.UploadMaxFiles < 1 || c.UploadMaxFiles > 1000 {
		// A sanity bound: all of a request's tasks commit in one transaction.
		return fmt.Errorf("UPLOAD_MAX_FILES: %d is outside 1..1000", c.UploadMaxFiles)
	}
	for _, l := range []struct {
		name string
		v    int
	}{{"RATE_LIMIT_READS", c.RateLimitReads}, {"RATE_LIMIT_WRITES", c.RateLimitWrites},
		{"RATE_LIMIT_UPLOADS", c.RateLimitUploads}, {"RATE_LIMIT_ANONYMOUS", c.RateLimitAnonymous}} {
		if l.v < 1 {
			return fmt.Errorf("%s: %d is not positive", l.name, l.v)
		}
	}
	if c.SMTPURL != "" && c.MailFrom == "" {
		// A mail server relays for a real sender domain only; there is no
		// default that would work.
		return errors.New("MAIL_FROM is required with SMTP_URL: the sender address of the e-mails, such as auditd@example.com")
	}
	if c.ValidationMaxAttachments < 1 || c.ValidationMaxAttachments > 100 {
		return fmt.Errorf("VALIDATION_MAX_ATTACHMENTS: %d is outside 1..100", c.ValidationMaxAttachments)
	}
	if c.ValidationMaxAttachmentBytes < 1 {
		return fmt.Errorf("VALIDATION_MAX_ATTACHMENT_BYTES: %d is not positive", c.ValidationMaxAttachmentBytes)
	}
	if c.AuthDev && !isLoopback(host) {
		return fmt.Errorf("AUTH_DEV: the development issuer is refused on LISTEN_ADDR %q; listen on 127.0.0.1 or use a real OIDC_ISSUER_URL", c.ListenAddr)
	}
	if err := c.validateTranscription(); err != nil {
		return err
	}
	if err := c.validateAuditor(); err != nil {
		return err
	}
	if c.SamplingInterval < time.Second {
		return fmt.Errorf("SAMPLING_INTERVAL: %s is shorter than 1s", c.SamplingInterval)
	}
	if c.BulkResultsDays < 1 || c.BulkResultsDays > 36500 {
		return fmt.Errorf("BULK_RESULTS_DAYS: %d is outside 1..36500", c.BulkResultsDays)
	}
	return c.validateDirectory()
}

// validateTranscription checks the speech engine and the transcribe jobs' limits.
func (c Config) validateTranscription() error {
	switch c.ASREngine {
	case "", "pocketsphinx":
	case "openai":
		if c.ASRBaseURL == "" {
			return errors.New("ASR_BASE_URL is required with ASR_ENGINE=openai (the server, such as https://api.openai.com)")
		}
		if !isHTTPURL(c.ASRBaseURL) {
			return fmt.Errorf("ASR_BASE_URL: %q is not an http(s) URL", c.ASRBaseURL)
		}
		if c.ASRModel == "" {
			return errors.New("ASR_MODEL is required with ASR_ENGINE=openai (for example whisper-1)")
		}
	default:
		return fmt.Errorf("ASR_ENGINE: %q is not one of pocketsphinx, openai, none", c.ASREngine)
	}
	if c.ASRMaxChunk != 0 && c.ASRMaxChunk < 2*time.Second {
		return fmt.Errorf("ASR_MAX_CHUNK: %s is under 2s (0 means no limit)", c.ASRMaxChunk)
	}
	if c.TranscribeConcurrency < 1 || c.TranscribeConcurrency > 1000 {
		return fmt.Errorf("TRANSCRIBE_CONCURRENCY: %d is outside 1..1000", c.TranscribeConcurrency)
	}
	if c.JobRescueAfter <= c.TranscribeTimeoutMax {
		// River would start a second run of a transcription still running.
		return fmt.Errorf("JOB_RESCUE_AFTER: %s must exceed TRANSCRIBE_TIMEOUT_MAX (%s)", c.JobRescueAfter, c.TranscribeTimeoutMax)
	}
	return nil
}

// validateAuditor checks that the chosen auditor engine has what it needs.
func (c Config) validateAuditor() error {
	switch c.AuditorEngine {
	case "rules":
		return nil
	case "llm", "hybrid":
	default:
		return fmt.Errorf("AUDITOR_ENGINE: %q is not one of rules, llm, hybrid", c.AuditorEngine)
	}
	if c.LLMBaseURL == "" {
		return fmt.Errorf("LLM_BASE_URL is required with AUDITOR_ENGINE=%s (an OpenAI-compatible server, such as https://api.openai.com)", c.AuditorEngine)
	}
	if !isHTTPURL(c.LLMBaseURL) {
		return fmt.Errorf("LLM_BASE_URL: %q is not an http(s) URL", c.LLMBaseURL)
	}
	if c.LLMModel == "" {
		return fmt.Errorf("LLM_MODEL is required with AUDITOR_ENGINE=%s (the model to ask, such as gpt-4o-mini)", c.AuditorEngine)
	}
	if c.LLMContextChars < 4000 {
		return fmt.Errorf("LLM_CONTEXT_CHARS: %d is below 4000, too little for a scorecard and a transcript", c.LLMContextChars)
	}
	return nil
}

// onPath reports whether an executable called name is in one of the
// directories of path (a PATH value).
func onPath(path, name string) bool {
	for _, dir := range filepath.SplitList(path) {
		if st, err := os.Stat(filepath.Join(dir, name)); err == nil && st.Mode().IsRegular() && st.Mode()&0o111 != 0 {
			return true
		}
	}
	return false
}

// validateDirectory checks that the chosen directory has every setting it needs.
func (c Config) validateDirectory() error {
	var required []string
	switch c.DirectoryProvider {
	case "":
		return nil
	case "keycloak":
		required = []string{"DIRECTORY_URL", "DIRECTORY_REALM", "DIRECTORY_CLIENT_ID", "DIRECTORY_CLIENT_SECRET"}
	case "msgraph":
		required = []string{"DIRECTORY_TENANT", "DIRECTORY_CLIENT_ID", "DIRECTORY_CLIENT_SECRET"}
	case "scim":
		required = []string{"DIRECTORY_URL", "DIRECTORY_TOKEN"}
	default:
		return fmt.Errorf("DIRECTORY_PROVIDER: %q is not one of none, keycloak, msgraph, scim", c.DirectoryProvider)
	}
	values := map[string]string{
		"DIRECTORY_URL": c.DirectoryURL, "DIRECTORY_REALM": c.DirectoryRealm, "DIRECTORY_TENANT": c.DirectoryTenant,
		"DIRECTORY_CLIENT_ID": c.DirectoryClientID, "DIRECTORY_CLIENT_SECRET": c.DirectoryClientSecret,
		"DIRECTORY_TOKEN": c.DirectoryToken,
	}
	for _, name := range required {
		if values[name] == "" {
			return fmt.Errorf("%s is required with DIRECTORY_PROVIDER=%s", name, c.DirectoryProvider)
		}
	}
	for name, v := range map[string]string{"DIRECTORY_URL": c.DirectoryURL, "DIRECTORY_LOGIN_URL": c.DirectoryLoginURL} {
		if !isHTTPURL(v) {
			return fmt.Errorf("%s: %q is not an http(s) URL", name, v)
		}
	}
	switch c.DirectorySubjectAttribute {
	case "id", "externalId", "userName":
	default:
		return fmt.Errorf("DIRECTORY_SUBJECT_ATTRIBUTE: %q is not one of id, externalId, userName", c.DirectorySubjectAttribute)
	}
	if c.UserSyncInterval < time.Minute {
		return fmt.Errorf("USER_SYNC_INTERVAL: %s is shorter than 1m", c.UserSyncInterval)
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
		if !isHTTPURL(c.OIDCIssuerURL) {
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
	if c.DirectoryProvider == "msgraph" && c.OIDCSubjectClaim != "oid" {
		// Entra's sub differs per application; only oid is the object id
		// that Graph lists, so synced users would never match a token.
		return fmt.Errorf("OIDC_SUBJECT_CLAIM: %q does not match users synced from Microsoft Graph; set OIDC_SUBJECT_CLAIM=oid", c.OIDCSubjectClaim)
	}
	return nil
}

// DevIssuerURL is the issuer of the built-in development identity provider.
// It hangs off PublicURL, so every API process behind one address shares it.
func (c Config) DevIssuerURL() string {
	return c.PublicURL + "/dev-oidc"
}

// isHTTPURL reports whether s is an absolute http(s) URL with a host.
func isHTTPURL(s string) bool {
	u, err := url.Parse(s)
	return err == nil && (u.Scheme == "https" || u.Scheme == "http") && u.Host != ""
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

// zone reads an IANA time zone name; UTC when unset. "Local" (the
// server's zone to Go, none to Postgres) is refused.
func (e *env) zone(name string) *time.Location {
	return parse(e, name, time.UTC, "an IANA time zone such as UTC or Europe/Madrid", func(v string) (*time.Location, error) {
		if v == "Local" {
			return nil, errors.New("not a zone")
		}
		return time.LoadLocation(v)
	})
}

func (e *env) boolean(name string, def bool) bool {
	return parse(e, name, def, "a boolean (true or false)", strconv.ParseBool)
}

// fraction reads a number from 0 to 1.
func (e *env) fraction(name string, def float64) float64 {
	return parse(e, name, def, "a number from 0 to 1, such as 0.8", func(v string) (float64, error) {
		f, err := strconv.ParseFloat(v, 64)
		if err == nil && !(f >= 0 && f <= 1) {
			err = errors.New("out of range")
		}
		return f, err
	})
}

func (e *env) integer(name string, def int) int {
	return parse(e, name, def, "an integer", strconv.Atoi)
}

// byteUnits are the suffixes bytes accepts, longest first so "MiB" is not read as "B".
var byteUnits = []struct {
	suffix string
	size   int64
}{{"GiB", 1 << 30}, {"MiB", 1 << 20}, {"KiB", 1 << 10}, {"G", 1 << 30}, {"M", 1 << 20}, {"K", 1 << 10}, {"B", 1}}

// bytes reads a size: a number of bytes, optionally with a binary unit
// (512MiB, 4GiB, 64K).
func (e *env) bytes(name string, def int64) int64 {
	return parse(e, name, def, "a size such as 536870912, 512MiB or 4GiB", func(v string) (int64, error) {
		unit := int64(1)
		for _, u := range byteUnits {
			if num, ok := strings.CutSuffix(v, u.suffix); ok {
				v, unit = strings.TrimSpace(num), u.size
				break
			}
		}
		n, err := strconv.ParseInt(v, 10, 64)
		if err == nil && (n < 0 || n > math.MaxInt64/unit) {
			err = errors.New("out of range")
		}
		return n * unit, err
	})
}

// durationOrZero reads a duration where 0 means "none".
func (e *env) durationOrZero(name string, def time.Duration) time.Duration {
	return parse(e, name, def, "a duration such as 10m, or 0 for none", durationFrom(0))
}

// addresses reads a comma-separated list of e-mail addresses ("Ana
// <ana@example.com>" is accepted), keeping the bare addresses.
func (e *env) addresses(name string) []string {
	return parse(e, name, nil, "a comma-separated list of e-mail addresses", func(v string) ([]string, error) {
		list, err := mail.ParseAddressList(v)
		out := make([]string, len(list))
		for i, a := range list {
			out[i] = a.Address
		}
		return out, err
	})
}

// languages reads a comma-separated list of BCP 47 language tags, keeping
// their primary subtags without repeats.
func (e *env) languages(name string) []string {
	return parse(e, name, nil, "a comma-separated list of languages such as en,es", func(v string) ([]string, error) {
		var out []string
		for part := range strings.SplitSeq(v, ",") {
			tag, err := language.Parse(strings.TrimSpace(part))
			if err != nil {
				return nil, err
			}
			if base, _ := tag.Base(); !slices.Contains(out, base.String()) {
				out = append(out, base.String())
			}
		}
		return out, nil
	})
}

// duration reads a positive duration.
func (e *env) duration(name string, def time.Duration) time.Duration {
	return parse(e, name, def, "a positive duration such as 30s or 2m", durationFrom(1))
}

// durationFrom parses a duration of at least least.
func durationFrom(least time.Duration) func(string) (time.Duration, error) {
	return func(v string) (time.Duration, error) {
		d, err := time.ParseDuration(v)
		if err == nil && d < least {
			err = fmt.Errorf("below %v", least)
		}
		return d, err
	}
}
