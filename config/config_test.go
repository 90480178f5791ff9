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
	require.Equal(t, "", c.OIDCWebClientID)
	require.Equal(t, "openid profile email offline_access", c.OIDCWebScopes)
	require.Equal(t, 10, c.WorkerConcurrency)
	require.Equal(t, 30*time.Second, c.ShutdownTimeout)
	require.NoError(t, c.ValidateAuth())
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
