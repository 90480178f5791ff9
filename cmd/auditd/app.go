package main

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"os/exec"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"
	"github.com/riverqueue/river/rivertype"
	"riverqueue.com/riverui"

	"github.com/auditd/auditd/api"
	"github.com/auditd/auditd/auditor"
	"github.com/auditd/auditd/auditor/llm"
	"github.com/auditd/auditd/config"
	"github.com/auditd/auditd/db"
	"github.com/auditd/auditd/intake"
	"github.com/auditd/auditd/jobs"
	"github.com/auditd/auditd/metrics"
	"github.com/auditd/auditd/storage"
	"github.com/auditd/auditd/web"
	"github.com/auditd/auditd/workers"
	"github.com/auditd/auditd/workers/asr"
	"github.com/auditd/auditd/workers/directory"
	"github.com/auditd/auditd/workers/mail"
)

// Main is one auditd process: the API, the workers, or both.
type Main struct {
	Config config.Config
	// Serve runs the HTTP API; Work runs River workers; Migrate migrates first.
	Serve, Work, Migrate bool
	// Stderr receives the JSON logs.
	Stderr io.Writer

	log        *slog.Logger
	metrics    *metrics.Metrics
	metricsSrv *http.Server
	pool       *pgxpool.Pool
	store      *storage.Store
	river      *river.Client[pgx.Tx]
	http       *http.Server
	ln         net.Listener
	served     chan error
	stopHub    context.CancelFunc
}

// Run opens the process, blocks until ctx is cancelled (SIGTERM), then shuts
// down gracefully within Config.ShutdownTimeout.
func (m *Main) Run(ctx context.Context) error {
	if err := m.Open(ctx); err != nil {
		m.Close(context.Background())
		return err
	}
	select {
	case <-ctx.Done():
	case err := <-m.served:
		m.Close(context.Background())
		return err
	}
	m.log.Info("shutting down", "timeout", m.Config.ShutdownTimeout.String())
	sctx, cancel := context.WithTimeout(context.Background(), m.Config.ShutdownTimeout)
	defer cancel()
	return m.Close(sctx)
}

// Open connects, migrates if asked, and starts the API listener and the workers.
func (m *Main) Open(ctx context.Context) error {
	var level slog.Level
	if err := level.UnmarshalText([]byte(m.Config.LogLevel)); err != nil {
		return fmt.Errorf("LOG_LEVEL: %w", err)
	}
	m.log = slog.New(slog.NewJSONHandler(m.Stderr, &slog.HandlerOptions{Level: level}))
	if m.Serve {
		if err := m.Config.ValidateAuth(); err != nil {
			return err
		}
		if err := m.listen(); err != nil {
			return err
		}
	}
	pool, err := db.Open(ctx, m.Config.DatabaseURL, m.Config.DatabaseTimeout)
	if err != nil {
		return err
	}
	m.pool = pool
	if m.Migrate {
		if err := db.Migrate(ctx, pool); err != nil {
			return err
		}
		m.log.Info("migrations applied")
	}

	m.metrics = metrics.New()
	m.metrics.WatchQueues(pool, m.log)
	if m.store, err = storage.Open(ctx, m.Config.BlobURL); err != nil {
		return err
	}

	// SkipUnknownJobCheck: the API inserts jobs that worker processes
	// (perhaps another version of this binary) work, even when this
	// process also works some kinds.
	riverCfg := &river.Config{Logger: m.log.With("component", "river"), SkipUnknownJobCheck: true}
	if m.Work {
		deps := workers.Deps{Pool: pool, Store: m.store, EventRetention: m.Config.EventRetention,
			UserSyncInterval: m.Config.UserSyncInterval, SamplingInterval: m.Config.SamplingInterval,
			BulkResultsDays: m.Config.BulkResultsDays, DashboardURL: strings.TrimRight(m.Config.PublicURL, "/") + web.AppPrefix,
			Backoff: workers.Backoff{Max: m.Config.JobRetryMaxDelay}, ReviewConfidence: m.Config.ReviewConfidence,
			ValidationTo: m.Config.ValidationTo, ValidationBcc: m.Config.ValidationBcc, Logger: m.log, DefaultTimeZone: m.Config.DefaultTimeZone,
			WebhookAllowPrivate: m.Config.WebhookAllowPrivate, UploadMaxFileBytes: m.Config.UploadMaxFileBytes,
			Speech: intake.Speech{Engine: m.Config.ASREngine, Languages: m.Config.ASRLanguages},
			Transcribe: workers.TranscribeConfig{MaxChunk: m.Config.ASRMaxChunk, TimeoutMax: m.Config.TranscribeTimeoutMax,
				QualityFloor: m.Config.TranscriptQualityFloor}}
		if deps.Auditor, err = auditEngine(m.Config); err != nil {
			return err
		}
		if deps.Transcribe.Engine, err = asrEngine(m.Config); err != nil {
			return err
		}
		if deps.Mailer, err = mail.New(mail.Config{URL: m.Config.SMTPURL, From: m.Config.MailFrom,
			Dir: m.Config.MailDir, Timeout: m.Config.MailTimeout}); err != nil {
			return err
		}
		m.log.Info("e-mail", "to", deps.Mailer.Describe())
		if m.Config.DirectoryProvider != "" {
			if deps.Directory, err = directory.New(directoryConfig(m.Config)); err != nil {
				return err
			}
		}
		ws := river.NewWorkers()
		workers.Register(ws, deps)
		riverCfg.Workers = ws
		riverCfg.PeriodicJobs = workers.Periodic(deps)
		riverCfg.Middleware = []rivertype.Middleware{m.metrics.RiverMiddleware()}
		riverCfg.Queues = map[string]river.QueueConfig{
			jobs.QueueDefault: {MaxWorkers: m.Config.WorkerConcurrency},
			jobs.QueueMedia:   {MaxWorkers: m.Config.TranscribeConcurrency},
		}
		// Running jobs get this long to finish on SIGTERM before their
		// contexts are cancelled; unfinished ones are handed back to the queue.
		riverCfg.SoftStopTimeout = m.Config.ShutdownTimeout * 2 / 3
		// A job running longer than this is taken for one whose worker died
		// and runs again: it exceeds every transcription's time limit.
		// River wants it above the default job timeout too, which a short
		// JOB_RESCUE_AFTER (in tests) lowers.
		riverCfg.RescueStuckJobsAfter = m.Config.JobRescueAfter
		riverCfg.RetryPolicy = deps.Backoff
		riverCfg.JobTimeout = min(river.JobTimeoutDefault, m.Config.JobRescueAfter)
	}
	m.river, err = river.NewClient(riverpgxv5.New(pool), riverCfg)
	if err != nil {
		return fmt.Errorf("river: %w", err)
	}
	if m.Work {
		if err := m.river.Start(context.WithoutCancel(ctx)); err != nil {
			return fmt.Errorf("river: %w", err)
		}
		m.log.Info("workers started", "concurrency", m.Config.WorkerConcurrency,
			"transcribe_concurrency", m.Config.TranscribeConcurrency, "asr_engine", cmp.Or(m.Config.ASREngine, "none"))
	}
	if m.Config.MetricsAddr != "" {
		if err := m.openMetrics(); err != nil {
			return err
		}
	}
	if m.Serve {
		return m.openHTTP(ctx)
	}
	return nil
}

// openMetrics serves /metrics on METRICS_ADDR, for any process type.
func (m *Main) openMetrics() error {
	ln, err := net.Listen("tcp", m.Config.MetricsAddr)
	if err != nil {
		return fmt.Errorf("METRICS_ADDR: %w", err)
	}
	mux := http.NewServeMux()
	mux.Handle("GET /metrics", m.metrics.Handler())
	m.metricsSrv = &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = m.metricsSrv.Serve(ln) }()
	m.log.Info("metrics listening", "addr", ln.Addr().String())
	return nil
}

func (m *Main) openHTTP(ctx context.Context) error {
	c := m.Config
	if _, err := exec.LookPath("ffprobe"); err != nil {
		return errors.New("ffprobe is needed to check uploaded audio: install ffmpeg (apt-get install ffmpeg)")
	}
	authCfg := api.AuthConfig{
		IssuerURL: c.OIDCIssuerURL, Audience: c.OIDCAudience,
		SubjectClaim: c.OIDCSubjectClaim, UsernameClaim: c.OIDCUsernameClaim, RolesClaim: c.OIDCRolesClaim,
	}
	var dev *api.DevIssuer
	if c.AuthDev {
		var err error
		if dev, err = api.NewDevIssuer(ctx, m.pool, c.DevIssuerURL(), c.OIDCAudience); err != nil {
			return err
		}
		authCfg.IssuerURL = c.DevIssuerURL()
		m.log.Warn("AUTH_DEV=true: the development issuer signs tokens for anyone; never use it in production",
			"issuer", authCfg.IssuerURL)
	}
	hub := api.NewHub(m.pool, m.log.With("component", "events"))
	m.metrics.Gauge("auditd_sse_clients", "Open event streams.", func() float64 { return float64(hub.Subscribers()) })
	hubCtx, stopHub := context.WithCancel(context.WithoutCancel(ctx))
	m.stopHub = stopHub
	go func() { _ = hub.Run(hubCtx) }()
	client := api.ClientConfig{AuthDev: c.AuthDev, Issuer: authCfg.IssuerURL, ClientID: c.OIDCWebClientID,
		Audience: c.OIDCAudience, Scopes: c.OIDCWebScopes,
		Speech: intake.Speech{Engine: c.ASREngine, Languages: c.ASRLanguages}}
	var connect []string // the dashboard calls the identity provider for discovery and tokens
	if u, err := url.Parse(c.OIDCIssuerURL); err == nil && !c.AuthDev {
		connect = append(connect, u.Scheme+"://"+u.Host)
	}
	dashboard, err := web.New(web.Dist(), web.Options{ConnectSources: connect})
	if err != nil {
		return err
	}
	var riverUI http.Handler
	if c.RiverUI {
		h, err := riverui.NewHandler(&riverui.HandlerOpts{Endpoints: riverui.NewEndpoints(m.river, nil),
			JobListHideArgsByDefault: true, Logger: m.log.With("component", "riverui"), Prefix: api.RiverUIPrefix})
		if err != nil {
			return fmt.Errorf("river ui: %w", err)
		}
		// Its background queries stop with the hub, before the pool closes.
		if err := h.Start(hubCtx); err != nil {
			return fmt.Errorf("river ui: %w", err)
		}
		riverUI = h
	}
	srv := api.New(api.Options{
		Pool: m.pool, River: m.river, Auth: api.NewAuthenticator(authCfg, m.pool), Hub: hub, DevIssuer: dev,
		Client: client, Web: dashboard,
		Logger: m.log, JobWaitTimeout: c.JobWaitTimeout, Metrics: m.metrics, MetricsToken: c.MetricsToken,
		Directory: c.DirectoryProvider, Store: m.store,
		Upload: api.UploadLimits{MaxFileBytes: c.UploadMaxFileBytes, MaxFiles: c.UploadMaxFiles, MaxRequestBytes: c.UploadMaxRequestBytes},
		RateLimit: api.RateLimits{Reads: c.RateLimitReads, Writes: c.RateLimitWrites,
			Uploads: c.RateLimitUploads, Anonymous: c.RateLimitAnonymous},
		Validation: api.ValidationOptions{To: c.ValidationTo, Bcc: c.ValidationBcc,
			MaxAttachments: c.ValidationMaxAttachments, MaxAttachmentBytes: c.ValidationMaxAttachmentBytes},
		BodyTimeouts: api.BodyTimeouts{Idle: c.UploadIdleTimeout, Total: c.UploadTimeout},
		RiverUI:      riverUI, SecureCookies: strings.HasPrefix(c.PublicURL, "https://"),
		WebhookAllowPrivate: c.WebhookAllowPrivate, UploadURLAllowPrivate: c.UploadURLAllowPrivate,
		DefaultTimeZone:  c.DefaultTimeZone,
		ReviewConfidence: c.ReviewConfidence,
	})
	m.http = &http.Server{
		Handler:           srv,
		ReadHeaderTimeout: 10 * time.Second,
		IdleTimeout:       2 * time.Minute,
		ErrorLog:          slog.NewLogLogger(m.log.Handler(), slog.LevelWarn),
	}
	// Open event streams would hold the drain until the timeout: end them
	// (clients reconnect elsewhere with Last-Event-ID).
	m.http.RegisterOnShutdown(hub.Close)
	m.served = make(chan error, 1)
	go func() {
		if err := m.http.Serve(m.ln); !errors.Is(err, http.ErrServerClosed) {
			m.served <- err
		}
	}()
	m.log.Info("listening", "addr", m.Addr())
	return nil
}

// listen binds LISTEN_ADDR before anything else is opened. Port 0 takes
// any free port; PUBLIC_URL, when it was left to default to
// http://LISTEN_ADDR, then names the port taken (Addr reads it back).
func (m *Main) listen() error {
	ln, err := net.Listen("tcp", m.Config.ListenAddr)
	if err != nil {
		return fmt.Errorf("LISTEN_ADDR: %w", err)
	}
	if m.Config.PublicURL == "http://"+m.Config.ListenAddr {
		m.Config.PublicURL = "http://" + ln.Addr().String()
	}
	m.ln = api.Listener(ln)
	return nil
}

// asrEngine is the speech engine of the transcribe jobs; nil for none. It
// returns an error naming ASR_ENGINE when the engine's tools are missing.
func asrEngine(c config.Config) (asr.Engine, error) {
	if c.ASREngine == "" {
		return nil, nil
	}
	for _, tool := range []string{"ffmpeg", "ffprobe"} {
		if _, err := exec.LookPath(tool); err != nil {
			return nil, fmt.Errorf("ASR_ENGINE=%s: %s is needed to prepare recordings: install ffmpeg (apt-get install ffmpeg)", c.ASREngine, tool)
		}
	}
	if c.ASREngine == "openai" {
		return asr.NewOpenAI(asr.OpenAIConfig{BaseURL: c.ASRBaseURL, APIKey: c.ASRAPIKey, Model: c.ASRModel, Timeout: c.ASRTimeout})
	}
	if _, err := exec.LookPath("pocketsphinx_continuous"); err != nil {
		return nil, errors.New("ASR_ENGINE=pocketsphinx: pocketsphinx_continuous is not installed (apt-get install pocketsphinx pocketsphinx-en-us)")
	}
	return asr.PocketSphinx{}, nil
}

// auditor is the engine of automatic audits (AUDITOR_ENGINE).
func auditEngine(c config.Config) (auditor.Engine, error) {
	if c.AuditorEngine == "rules" {
		return &auditor.Rules{}, nil
	}
	model, err := llm.New(llm.Config{BaseURL: c.LLMBaseURL, APIKey: c.LLMAPIKey, Model: c.LLMModel,
		ContextChars: c.LLMContextChars, Timeout: c.LLMTimeout})
	if err != nil {
		return nil, err
	}
	if c.AuditorEngine == "llm" {
		return model, nil
	}
	return auditor.NewHybrid(model, c.ReviewConfidence), nil
}

// directoryConfig is the directory users are synced from.
func directoryConfig(c config.Config) directory.Config {
	return directory.Config{
		Provider: c.DirectoryProvider, URL: c.DirectoryURL, Realm: c.DirectoryRealm, Tenant: c.DirectoryTenant,
		LoginURL: c.DirectoryLoginURL, ClientID: c.DirectoryClientID, ClientSecret: c.DirectoryClientSecret,
		Token: c.DirectoryToken, SubjectAttribute: c.DirectorySubjectAttribute, RolesClaim: c.OIDCRolesClaim,
	}
}

// Addr is the API's listen address once Open has returned.
func (m *Main) Addr() string { return m.ln.Addr().String() }

// Close drains HTTP requests, stops the workers (handing back jobs they
// cannot finish within ctx) and closes the database pool.
func (m *Main) Close(ctx context.Context) error {
	var errs []error
	if m.http != nil {
		if err := m.http.Shutdown(ctx); err != nil {
			errs = append(errs, fmt.Errorf("http shutdown: %w", err))
		}
	} else if m.ln != nil {
		_ = m.ln.Close() // opened, never served
	}
	if m.metricsSrv != nil {
		_ = m.metricsSrv.Close()
	}
	if m.stopHub != nil {
		m.stopHub()
	}
	if m.river != nil && m.Work {
		if err := m.river.Stop(ctx); err != nil {
			// Out of time: cancel what still runs; River records those jobs
			// as errored and retries them.
			cctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			errs = append(errs, m.river.StopAndCancel(cctx))
			cancel()
		}
	}
	if m.store != nil {
		if err := m.store.Close(); err != nil {
			errs = append(errs, fmt.Errorf("blob store: %w", err))
		}
	}
	if m.pool != nil {
		m.pool.Close()
	}
	return errors.Join(errs...)
}
