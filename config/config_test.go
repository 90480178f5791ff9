package config

import (
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
	require.Equal(t, 10, c.WorkerConcurrency)
	require.Equal(t, 30*time.Second, c.ShutdownTimeout)
	require.Equal(t, "file://./data/blobs", c.BlobURL)
	require.Equal(t, int64(512<<20), c.UploadMaxFileBytes)
	require.Equal(t, 100, c.UploadMaxFiles)
	require.Equal(t, int64(4<<30), c.UploadMaxRequestBytes)
	require.NoError(t, c.ValidateAuth())
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
		{base(map[string]string{"BLOB_URL": "gs://bucket"}), "BLOB_URL"},
		{base(map[string]string{"UPLOAD_MAX_FILE_BYTES": "lots"}), "UPLOAD_MAX_FILE_BYTES"},
		{base(map[string]string{"UPLOAD_MAX_FILE_BYTES": "0"}), "UPLOAD_MAX_FILE_BYTES"},
		{base(map[string]string{"UPLOAD_MAX_FILE_BYTES": "-5MiB"}), "UPLOAD_MAX_FILE_BYTES"},
		{base(map[string]string{"UPLOAD_MAX_FILE_BYTES": "99999999999GiB"}), "UPLOAD_MAX_FILE_BYTES"},
		{base(map[string]string{"UPLOAD_MAX_REQUEST_BYTES": "1MiB"}), "UPLOAD_MAX_REQUEST_BYTES"},
		{base(map[string]string{"UPLOAD_MAX_FILES": "0"}), "UPLOAD_MAX_FILES"},
		{base(map[string]string{"UPLOAD_MAX_FILES": "5000"}), "UPLOAD_MAX_FILES"},
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
	}
	for _, tc := range cases {
		tc.vars["DATABASE_URL"] = "postgres://x/y"
		c, err := FromEnv(getenv(tc.vars))
		require.NoError(t, err)
		require.ErrorContains(t, c.ValidateAuth(), tc.want, "%v", tc.vars)
	}
	c, err := FromEnv(getenv(map[string]string{"DATABASE_URL": "postgres://x/y", "OIDC_ISSUER_URL": "https://idp.example", "OIDC_AUDIENCE": "a", "OIDC_ROLES_CLAIM": "realm_access.roles"}))
	require.NoError(t, err)
	require.NoError(t, c.ValidateAuth())
}
