package config

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func getenv(vars map[string]string) func(string) string {
	return func(k string) string { return vars[k] }
}

func TestDefaults(t *testing.T) {
	t.Parallel()
	c, err := FromEnv(getenv(map[string]string{"DATABASE_URL": "postgres://x/y", "AUTH_DEV": "true"}))
	require.NoError(t, err)
	require.Equal(t, "127.0.0.1:8080", c.ListenAddr)
	require.Equal(t, "http://127.0.0.1:8080", c.PublicURL)
	require.Equal(t, "http://127.0.0.1:8080/dev-oidc", c.DevIssuerURL())
	require.Equal(t, "auditd", c.OIDCAudience)
	require.Equal(t, "roles", c.OIDCRolesClaim)
	require.Equal(t, "preferred_username", c.OIDCUsernameClaim)
	require.Equal(t, "sub", c.OIDCSubjectClaim)
	require.Equal(t, "", c.OIDCWebClientID)
	require.Equal(t, "openid profile email offline_access", c.OIDCWebScopes)
	require.Equal(t, 10, c.WorkerConcurrency)
	require.Equal(t, 30*time.Second, c.ShutdownTimeout)
	require.Empty(t, c.DirectoryProvider, "no directory unless one is chosen")
	require.Equal(t, "id", c.DirectorySubjectAttribute)
	require.Equal(t, time.Hour, c.UserSyncInterval)
	require.Equal(t, "file://./data/blobs", c.BlobURL)
	require.Equal(t, int64(512<<20), c.UploadMaxFileBytes)
	require.Equal(t, 100, c.UploadMaxFiles)
	require.Equal(t, int64(4<<30), c.UploadMaxRequestBytes)
	require.Equal(t, 30*time.Second, c.UploadIdleTimeout)
	require.Zero(t, c.JobRetryMaxDelay, "River's backoff, uncapped")
	require.Equal(t, 5*time.Second, c.DatabaseTimeout)
	require.Equal(t, time.Hour, c.UploadTimeout)
	require.Equal(t, 600, c.RateLimitWrites)
	require.Equal(t, 60, c.RateLimitUploads)
	require.Equal(t, 3000, c.RateLimitReads)
	require.Equal(t, 300, c.RateLimitAnonymous)
	require.Empty(t, c.SMTPURL, "no mail server: the outbox")
	require.Equal(t, "auditd@localhost", c.MailFrom)
	require.Equal(t, "./data/outbox", c.MailDir)
	require.Equal(t, 30*time.Second, c.MailTimeout)
	require.Empty(t, c.ValidationTo)
	require.Empty(t, c.ValidationBcc)
	require.Equal(t, 10, c.ValidationMaxAttachments)
	require.Equal(t, int64(25<<20), c.ValidationMaxAttachmentBytes)
	require.Equal(t, 90, c.BulkResultsDays)
	require.NoError(t, c.ValidateAuth())
}

func TestMail(t *testing.T) {
	t.Parallel()
	c, err := FromEnv(getenv(map[string]string{"DATABASE_URL": "postgres://x/y", "SMTP_URL": "smtps://u:p@mail.example.com",
		"MAIL_FROM": "QA <qa@example.com>", "VALIDATION_TO": "Jefa <jefa@example.com>, audit@example.com",
		"VALIDATION_BCC": "archive@example.com", "VALIDATION_MAX_ATTACHMENT_BYTES": "50MiB", "MAIL_TIMEOUT": "1m"}))
	require.NoError(t, err)
	require.Equal(t, "QA <qa@example.com>", c.MailFrom)
	require.Equal(t, []string{"jefa@example.com", "audit@example.com"}, c.ValidationTo)
	require.Equal(t, []string{"archive@example.com"}, c.ValidationBcc)
	require.Equal(t, int64(50<<20), c.ValidationMaxAttachmentBytes)
	require.Equal(t, time.Minute, c.MailTimeout)
}

func TestSizes(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]int64{"1000": 1000, "64K": 64 << 10, "512MiB": 512 << 20, "2 GiB": 2 << 30, "7B": 7} {
		c, err := FromEnv(getenv(map[string]string{"DATABASE_URL": "postgres://x/y", "UPLOAD_MAX_FILE_BYTES": in, "UPLOAD_MAX_REQUEST_BYTES": "8GiB"}))
		require.NoError(t, err, in)
		require.Equal(t, want, c.UploadMaxFileBytes, in)
	}
}

func TestErrorsNameTheVariable(t *testing.T) {
	t.Parallel()
	base := func(extra map[string]string) map[string]string {
		m := map[string]string{"DATABASE_URL": "postgres://x/y", "OIDC_ISSUER_URL": "https://idp.example/realms/a", "OIDC_AUDIENCE": "auditd"}
		for k, v := range extra {
			m[k] = v
		}
		return m
	}
	cases := []struct {
		vars map[string]string
		want string
	}{
		{map[string]string{}, "DATABASE_URL"},
		{base(map[string]string{"LISTEN_ADDR": "8080"}), "LISTEN_ADDR"},
		{base(map[string]string{"PUBLIC_URL": "ftp://x"}), "PUBLIC_URL"},
		{base(map[string]string{"LOG_LEVEL": "loud"}), "LOG_LEVEL"},
		{base(map[string]string{"AUTH_DEV": "maybe"}), "AUTH_DEV"},
		{base(map[string]string{"AUTH_DEV": "true", "LISTEN_ADDR": "0.0.0.0:8080"}), "AUTH_DEV"},
		{base(map[string]string{"AUTH_DEV": "true", "LISTEN_ADDR": "10.0.0.5:8080"}), "AUTH_DEV"},
		{base(map[string]string{"WORKER_CONCURRENCY": "0"}), "WORKER_CONCURRENCY"},
		{base(map[string]string{"SHUTDOWN_TIMEOUT": "-1s"}), "SHUTDOWN_TIMEOUT"},
		{base(map[string]string{"JOB_WAIT_TIMEOUT": "soon"}), "JOB_WAIT_TIMEOUT"},
		{base(map[string]string{"DIRECTORY_PROVIDER": "ldap"}), "DIRECTORY_PROVIDER"},
		{base(map[string]string{"DIRECTORY_PROVIDER": "keycloak", "DIRECTORY_REALM": "acme", "DIRECTORY_CLIENT_ID": "c", "DIRECTORY_CLIENT_SECRET": "s"}), "DIRECTORY_URL is required"},
		{base(map[string]string{"DIRECTORY_PROVIDER": "keycloak", "DIRECTORY_URL": "https://kc.example", "DIRECTORY_CLIENT_ID": "c", "DIRECTORY_CLIENT_SECRET": "s"}), "DIRECTORY_REALM is required"},
		{base(map[string]string{"DIRECTORY_PROVIDER": "keycloak", "DIRECTORY_URL": "https://kc.example", "DIRECTORY_REALM": "acme", "DIRECTORY_CLIENT_SECRET": "s"}), "DIRECTORY_CLIENT_ID is required"},
		{base(map[string]string{"DIRECTORY_PROVIDER": "keycloak", "DIRECTORY_URL": "https://kc.example", "DIRECTORY_REALM": "acme", "DIRECTORY_CLIENT_ID": "c"}), "DIRECTORY_CLIENT_SECRET is required"},
		{base(map[string]string{"DIRECTORY_PROVIDER": "keycloak", "DIRECTORY_URL": "kc.example", "DIRECTORY_REALM": "acme", "DIRECTORY_CLIENT_ID": "c", "DIRECTORY_CLIENT_SECRET": "s"}), "DIRECTORY_URL"},
		{base(map[string]string{"DIRECTORY_PROVIDER": "msgraph", "DIRECTORY_CLIENT_ID": "c", "DIRECTORY_CLIENT_SECRET": "s"}), "DIRECTORY_TENANT is required"},
		{base(map[string]string{"DIRECTORY_PROVIDER": "msgraph", "DIRECTORY_TENANT": "t", "DIRECTORY_CLIENT_ID": "c", "DIRECTORY_CLIENT_SECRET": "s", "DIRECTORY_LOGIN_URL": "nope"}), "DIRECTORY_LOGIN_URL"},
		{base(map[string]string{"DIRECTORY_PROVIDER": "scim", "DIRECTORY_URL": "https://idp.example/scim/v2"}), "DIRECTORY_TOKEN is required"},
		{base(map[string]string{"DIRECTORY_PROVIDER": "scim", "DIRECTORY_URL": "https://idp.example/scim/v2", "DIRECTORY_TOKEN": "t", "DIRECTORY_SUBJECT_ATTRIBUTE": "email"}), "DIRECTORY_SUBJECT_ATTRIBUTE"},
		{base(map[string]string{"DIRECTORY_PROVIDER": "scim", "DIRECTORY_URL": "https://idp.example/scim/v2", "DIRECTORY_TOKEN": "t", "USER_SYNC_INTERVAL": "10s"}), "USER_SYNC_INTERVAL"},
		{base(map[string]string{"USER_SYNC_INTERVAL": "hourly"}), "USER_SYNC_INTERVAL"},
		{base(map[string]string{"SAMPLING_INTERVAL": "500ms"}), "SAMPLING_INTERVAL"},
		{base(map[string]string{"SAMPLING_INTERVAL": "often"}), "SAMPLING_INTERVAL"},
		{base(map[string]string{"BULK_RESULTS_DAYS": "0"}), "BULK_RESULTS_DAYS"},
		{base(map[string]string{"BULK_RESULTS_DAYS": "36501"}), "BULK_RESULTS_DAYS"},
		{base(map[string]string{"BULK_RESULTS_DAYS": "a month"}), "BULK_RESULTS_DAYS"},
		{base(map[string]string{"BLOB_URL": "gs://bucket"}), "BLOB_URL"},
		{base(map[string]string{"UPLOAD_MAX_FILE_BYTES": "lots"}), "UPLOAD_MAX_FILE_BYTES"},
		{base(map[string]string{"UPLOAD_MAX_FILE_BYTES": "0"}), "UPLOAD_MAX_FILE_BYTES"},
		{base(map[string]string{"UPLOAD_MAX_FILE_BYTES": "-5MiB"}), "UPLOAD_MAX_FILE_BYTES"},
		{base(map[string]string{"UPLOAD_MAX_FILE_BYTES": "99999999999GiB"}), "UPLOAD_MAX_FILE_BYTES"},
		{base(map[string]string{"UPLOAD_MAX_REQUEST_BYTES": "1MiB"}), "UPLOAD_MAX_REQUEST_BYTES"},
		{base(map[string]string{"UPLOAD_MAX_FILES": "0"}), "UPLOAD_MAX_FILES"},
		{base(map[string]string{"UPLOAD_MAX_FILES": "5000"}), "UPLOAD_MAX_FILES"},
		{base(map[string]string{"UPLOAD_IDLE_TIMEOUT": "0s"}), "UPLOAD_IDLE_TIMEOUT"},
		{base(map[string]string{"UPLOAD_IDLE_TIMEOUT": "soon"}), "UPLOAD_IDLE_TIMEOUT"},
		{base(map[string]string{"JOB_RETRY_MAX_DELAY": "-1s"}), "JOB_RETRY_MAX_DELAY"},
		{base(map[string]string{"DATABASE_TIMEOUT": "0s"}), "DATABASE_TIMEOUT"},
		{base(map[string]string{"UPLOAD_TIMEOUT": "-1h"}), "UPLOAD_TIMEOUT"},
		{base(map[string]string{"UPLOAD_TIMEOUT": "60"}), "UPLOAD_TIMEOUT"},
		{base(map[string]string{"RATE_LIMIT_WRITES": "0"}), "RATE_LIMIT_WRITES"},
		{base(map[string]string{"RATE_LIMIT_UPLOADS": "-1"}), "RATE_LIMIT_UPLOADS"},
		{base(map[string]string{"RATE_LIMIT_READS": "0"}), "RATE_LIMIT_READS"},
		{base(map[string]string{"RATE_LIMIT_ANONYMOUS": "-3"}), "RATE_LIMIT_ANONYMOUS"},
		{base(map[string]string{"RATE_LIMIT_UPLOADS": "many"}), "RATE_LIMIT_UPLOADS"},
		{base(map[string]string{"ASR_ENGINE": "whisper"}), "ASR_ENGINE"},
		{base(map[string]string{"ASR_ENGINE": "pocketsphinx", "ASR_LANGUAGES": "es"}), "ASR_LANGUAGES: pocketsphinx transcribes en only"},
		{base(map[string]string{"ASR_LANGUAGES": "es,not a language"}), `ASR_LANGUAGES: "es,not a language" is not a comma-separated list of languages`},
		{base(map[string]string{"ASR_ENGINE": "openai", "ASR_MODEL": "whisper-1"}), "ASR_BASE_URL is required"},
		{base(map[string]string{"ASR_ENGINE": "openai", "ASR_BASE_URL": "api.openai.com", "ASR_MODEL": "whisper-1"}), "ASR_BASE_URL"},
		{base(map[string]string{"ASR_ENGINE": "openai", "ASR_BASE_URL": "https://api.openai.com"}), "ASR_MODEL is required"},
		{base(map[string]string{"ASR_TIMEOUT": "0s"}), "ASR_TIMEOUT"},
		{base(map[string]string{"ASR_TIMEOUT": "ten minutes"}), "ASR_TIMEOUT"},
		{base(map[string]string{"ASR_MAX_CHUNK": "1s"}), "ASR_MAX_CHUNK"},
		{base(map[string]string{"ASR_MAX_CHUNK": "-1m"}), "ASR_MAX_CHUNK"},
		{base(map[string]string{"ASR_MAX_CHUNK": "long"}), "ASR_MAX_CHUNK"},
		{base(map[string]string{"TRANSCRIBE_CONCURRENCY": "0"}), "TRANSCRIBE_CONCURRENCY"},
		{base(map[string]string{"TRANSCRIBE_TIMEOUT_MAX": "0s"}), "TRANSCRIBE_TIMEOUT_MAX"},
		{base(map[string]string{"JOB_RESCUE_AFTER": "1h"}), "JOB_RESCUE_AFTER"},
		{base(map[string]string{"TRANSCRIBE_TIMEOUT_MAX": "30s", "JOB_RESCUE_AFTER": "30s"}), "JOB_RESCUE_AFTER"},
		{base(map[string]string{"SMTP_URL": "smtp://mail.example.com"}), "MAIL_FROM is required with SMTP_URL"},
		{base(map[string]string{"MAIL_TIMEOUT": "soon"}), "MAIL_TIMEOUT"},
		{base(map[string]string{"VALIDATION_TO": "jefa@example.com, not an address"}), "VALIDATION_TO"},
		{base(map[string]string{"VALIDATION_BCC": "a@example.com\r\nBcc: evil@example.com"}), "VALIDATION_BCC"},
		{base(map[string]string{"VALIDATION_MAX_ATTACHMENTS": "0"}), "VALIDATION_MAX_ATTACHMENTS"},
		{base(map[string]string{"VALIDATION_MAX_ATTACHMENTS": "many"}), "VALIDATION_MAX_ATTACHMENTS"},
		{base(map[string]string{"VALIDATION_MAX_ATTACHMENT_BYTES": "0"}), "VALIDATION_MAX_ATTACHMENT_BYTES"},
	}
	for _, tc := range cases {
		_, err := FromEnv(getenv(tc.vars))
		require.ErrorContains(t, err, tc.want, "%v", tc.vars)
	}
}

func TestValidateAuth(t *testing.T) {
	t.Parallel()
	cases := []struct {
		vars map[string]string
		want string
	}{
		{map[string]string{}, "OIDC_ISSUER_URL is required"},
		{map[string]string{"OIDC_ISSUER_URL": "idp.example"}, "OIDC_ISSUER_URL"},
		{map[string]string{"OIDC_ISSUER_URL": "https://idp.example"}, "OIDC_AUDIENCE"},
		{map[string]string{"OIDC_ISSUER_URL": "https://idp.example", "OIDC_AUDIENCE": "a", "OIDC_ROLES_CLAIM": "realm_access."}, "OIDC_ROLES_CLAIM"},
		{map[string]string{"OIDC_ISSUER_URL": "https://idp.example", "OIDC_AUDIENCE": "a", "OIDC_SUBJECT_CLAIM": "a..b"}, "OIDC_SUBJECT_CLAIM"},
		{map[string]string{"OIDC_ISSUER_URL": "https://idp.example", "OIDC_AUDIENCE": "a", "OIDC_WEB_SCOPES": "profile email"}, "OIDC_WEB_SCOPES"},
	}
	for _, tc := range cases {
		tc.vars["DATABASE_URL"] = "postgres://x/y"
		c, err := FromEnv(getenv(tc.vars))
		require.NoError(t, err)
		require.ErrorContains(t, c.ValidateAuth(), tc.want, "%v", tc.vars)
	}
	c, err := FromEnv(getenv(map[string]string{"DATABASE_URL": "postgres://x/y", "OIDC_ISSUER_URL": "https://idp.example", "OIDC_AUDIENCE": "a", "OIDC_ROLES_CLAIM": "realm_access.roles",
		"OIDC_WEB_CLIENT_ID": "dashboard", "OIDC_WEB_SCOPES": "  openid   api://auditd/.default "}))
	require.NoError(t, err)
	require.NoError(t, c.ValidateAuth())
	require.Equal(t, "dashboard", c.OIDCWebClientID)
	require.Equal(t, "openid api://auditd/.default", c.OIDCWebScopes)
}

func TestDirectory(t *testing.T) {
	t.Parallel()
	c, err := FromEnv(getenv(map[string]string{"DATABASE_URL": "postgres://x/y", "DIRECTORY_PROVIDER": "msgraph",
		"DIRECTORY_TENANT": "contoso.onmicrosoft.com", "DIRECTORY_CLIENT_ID": "c", "DIRECTORY_CLIENT_SECRET": "s",
		"OIDC_ISSUER_URL": "https://login.microsoftonline.com/t/v2.0", "OIDC_AUDIENCE": "api://auditd"}))
	require.NoError(t, err)
	require.Equal(t, "https://graph.microsoft.com", c.DirectoryURL)
	require.Equal(t, "https://login.microsoftonline.com", c.DirectoryLoginURL)
	// Graph lists object ids, which tokens carry as oid, not sub.
	require.ErrorContains(t, c.ValidateAuth(), "OIDC_SUBJECT_CLAIM")
	c.OIDCSubjectClaim = "oid"
	require.NoError(t, c.ValidateAuth())

	c, err = FromEnv(getenv(map[string]string{"DATABASE_URL": "postgres://x/y", "DIRECTORY_PROVIDER": "keycloak",
		"DIRECTORY_URL": "https://kc.example/", "DIRECTORY_REALM": "acme", "DIRECTORY_CLIENT_ID": "c", "DIRECTORY_CLIENT_SECRET": "s",
		"USER_SYNC_INTERVAL": "15m"}))
	require.NoError(t, err)
	require.Equal(t, "keycloak", c.DirectoryProvider)
	require.Equal(t, "https://kc.example", c.DirectoryURL)
	require.Equal(t, 15*time.Minute, c.UserSyncInterval)

	c, err = FromEnv(getenv(map[string]string{"DATABASE_URL": "postgres://x/y", "DIRECTORY_PROVIDER": "none"}))
	require.NoError(t, err)
	require.Empty(t, c.DirectoryProvider)
}

func TestTranscription(t *testing.T) {
	t.Parallel()
	// The offline engine is the default where it is installed.
	bin := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(bin, "pocketsphinx_continuous"), []byte("#!/bin/sh\n"), 0o755))
	c, err := FromEnv(getenv(map[string]string{"DATABASE_URL": "postgres://x/y", "PATH": "/nonexistent" + string(filepath.ListSeparator) + bin}))
	require.NoError(t, err)
	require.Equal(t, "pocketsphinx", c.ASREngine)
	require.Equal(t, []string{"en"}, c.ASRLanguages, "the offline model is English")
	require.Zero(t, c.ASRMaxChunk)
	require.Equal(t, 1, c.TranscribeConcurrency)
	require.Equal(t, 2*time.Hour, c.TranscribeTimeoutMax)
	require.Equal(t, 2*time.Hour+10*time.Minute, c.JobRescueAfter)

	// Elsewhere there is none, unless one is chosen.
	c, err = FromEnv(getenv(map[string]string{"DATABASE_URL": "postgres://x/y", "PATH": t.TempDir()}))
	require.NoError(t, err)
	require.Empty(t, c.ASREngine)
	c, err = FromEnv(getenv(map[string]string{"DATABASE_URL": "postgres://x/y", "PATH": bin, "ASR_ENGINE": "none"}))
	require.NoError(t, err)
	require.Empty(t, c.ASREngine)

	c, err = FromEnv(getenv(map[string]string{"DATABASE_URL": "postgres://x/y", "ASR_ENGINE": "openai",
		"ASR_BASE_URL": "http://127.0.0.1:8000/v1", "ASR_MODEL": "Systran/faster-whisper-small",
		"TRANSCRIBE_CONCURRENCY": "4", "TRANSCRIBE_TIMEOUT_MAX": "20m"}))
	require.NoError(t, err)
	require.Equal(t, "openai", c.ASREngine)
	require.Empty(t, c.ASRLanguages, "the server detects any language")
	require.Equal(t, 10*time.Minute, c.ASRMaxChunk, "chunks that fit OpenAI's 25 MB")
	require.Equal(t, 10*time.Minute, c.ASRTimeout)
	require.Equal(t, 4, c.TranscribeConcurrency)
	require.Equal(t, time.Hour, c.JobRescueAfter, "never under the user sync's 50 minutes by default")

	c, err = FromEnv(getenv(map[string]string{"DATABASE_URL": "postgres://x/y", "ASR_ENGINE": "openai",
		"ASR_BASE_URL": "https://api.openai.com", "ASR_MODEL": "whisper-1", "ASR_MAX_CHUNK": "0", "ASR_TIMEOUT": "90s",
		"TRANSCRIBE_TIMEOUT_MAX": "8s", "JOB_RESCUE_AFTER": "10s", "ASR_LANGUAGES": "es-MX, en,es"}))
	require.NoError(t, err)
	require.Equal(t, []string{"es", "en"}, c.ASRLanguages, "primary subtags, first mention kept")
	require.Zero(t, c.ASRMaxChunk, "0 turns chunking off")
	require.Equal(t, 90*time.Second, c.ASRTimeout)
	require.Equal(t, 10*time.Second, c.JobRescueAfter)

	c, err = FromEnv(getenv(map[string]string{"DATABASE_URL": "postgres://x/y", "JOB_RETRY_MAX_DELAY": "1m", "DATABASE_TIMEOUT": "2s"}))
	require.NoError(t, err)
	require.Equal(t, time.Minute, c.JobRetryMaxDelay)
	require.Equal(t, 2*time.Second, c.DatabaseTimeout)
}

func TestAuditorEngine(t *testing.T) {
	t.Parallel()
	c, err := FromEnv(getenv(map[string]string{"DATABASE_URL": "postgres://x/y"}))
	require.NoError(t, err)
	require.Equal(t, "rules", c.AuditorEngine)
	require.Equal(t, 48000, c.LLMContextChars)
	require.Equal(t, 2*time.Minute, c.LLMTimeout)

	llm := func(extra map[string]string) map[string]string {
		m := map[string]string{"DATABASE_URL": "postgres://x/y", "AUDITOR_ENGINE": "llm",
			"LLM_BASE_URL": "http://127.0.0.1:8000/v1", "LLM_MODEL": "qwen2.5-7b-instruct"}
		for k, v := range extra {
			m[k] = v
		}
		return m
	}
	c, err = FromEnv(getenv(llm(map[string]string{"LLM_API_KEY": "sk-x", "LLM_CONTEXT_CHARS": "20000", "LLM_TIMEOUT": "90s"})))
	require.NoError(t, err)
	require.Equal(t, "llm", c.AuditorEngine)
	require.Equal(t, "sk-x", c.LLMAPIKey)
	require.Equal(t, 20000, c.LLMContextChars)
	require.Equal(t, 90*time.Second, c.LLMTimeout)
	require.Equal(t, DefaultReviewConfidence, c.ReviewConfidence)
	require.Equal(t, 0.55, c.TranscriptQualityFloor)
	c, err = FromEnv(getenv(llm(map[string]string{"AUDITOR_ENGINE": "hybrid", "AUDIT_REVIEW_CONFIDENCE": "0.7", "TRANSCRIPT_QUALITY_FLOOR": "0"})))
	require.NoError(t, err)
	require.Equal(t, "hybrid", c.AuditorEngine)
	require.Equal(t, 0.7, c.ReviewConfidence)
	require.Zero(t, c.TranscriptQualityFloor)

	for _, tc := range []struct {
		vars map[string]string
		want string
	}{
		{map[string]string{"DATABASE_URL": "postgres://x/y", "AUDITOR_ENGINE": "gpt"}, "AUDITOR_ENGINE"},
		{llm(map[string]string{"LLM_BASE_URL": ""}), "LLM_BASE_URL is required with AUDITOR_ENGINE=llm"},
		{llm(map[string]string{"LLM_BASE_URL": "127.0.0.1:8000"}), "LLM_BASE_URL"},
		{llm(map[string]string{"LLM_MODEL": ""}), "LLM_MODEL is required with AUDITOR_ENGINE=llm"},
		{llm(map[string]string{"LLM_CONTEXT_CHARS": "1000"}), "LLM_CONTEXT_CHARS"},
		{llm(map[string]string{"LLM_CONTEXT_CHARS": "lots"}), "LLM_CONTEXT_CHARS"},
		{llm(map[string]string{"LLM_TIMEOUT": "0s"}), "LLM_TIMEOUT"},
		{llm(map[string]string{"AUDITOR_ENGINE": "hybrid", "LLM_MODEL": ""}), "LLM_MODEL is required with AUDITOR_ENGINE=hybrid"},
		{llm(map[string]string{"AUDITOR_ENGINE": "hybrid", "LLM_BASE_URL": ""}), "LLM_BASE_URL is required with AUDITOR_ENGINE=hybrid"},
		{llm(map[string]string{"AUDIT_REVIEW_CONFIDENCE": "1.5"}), "AUDIT_REVIEW_CONFIDENCE"},
		{llm(map[string]string{"AUDIT_REVIEW_CONFIDENCE": "high"}), "AUDIT_REVIEW_CONFIDENCE"},
		{llm(map[string]string{"TRANSCRIPT_QUALITY_FLOOR": "-0.1"}), "TRANSCRIPT_QUALITY_FLOOR"},
		{llm(map[string]string{"TRANSCRIPT_QUALITY_FLOOR": "low"}), "TRANSCRIPT_QUALITY_FLOOR"},
	} {
		_, err := FromEnv(getenv(tc.vars))
		require.ErrorContains(t, err, tc.want, "%v", tc.vars)
	}
}
