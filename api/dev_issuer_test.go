package api

import (
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// devSignIn posts body to the development sign-in.
func (b *testBundle) devSignIn(t *testing.T, body string, headers ...string) response {
	t.Helper()
	return b.do(t, http.MethodPost, "/dev-oidc/token", "", strings.NewReader(body),
		append([]string{"Content-Type", "application/json"}, headers...)...)
}

func TestDevSignIn(t *testing.T) {
	t.Parallel()
	b := setup(t, setupOpts{devIssuer: true})

	r := b.devSignIn(t, `{"username":"maria","roles":["quality","operator"]}`)
	require.Equal(t, http.StatusOK, r.Status, r.RawBody)
	require.Equal(t, "no-store", r.Header.Get("Cache-Control"))
	tok := r.Body["details"].(map[string]any)
	require.Equal(t, "Bearer", tok["token_type"])
	require.EqualValues(t, 3600, tok["expires_in"])

	// The token is verified like any other, through the issuer's discovery
	// document and JWKS, and provisions the user.
	me := b.do(t, http.MethodGet, "/users/me", tok["access_token"].(string), nil)
	require.Equal(t, http.StatusOK, me.Status, me.RawBody)
	profile := me.Body["details"].(map[string]any)
	require.Equal(t, "maria", profile["id"])
	require.Equal(t, "maria", profile["username"])
	require.Equal(t, "maria", profile["name"])
	require.Equal(t, "maria@example.test", profile["email"])
	require.Equal(t, "quality", profile["role"])
	require.Equal(t, "", profile["locale"], "no locale claim")

	// The dashboard sends its language as the locale claim.
	r = b.devSignIn(t, `{"username":"lucia","roles":["quality"],"locale":"es"}`)
	require.Equal(t, http.StatusOK, r.Status, r.RawBody)
	me = b.do(t, http.MethodGet, "/users/me", r.Body["details"].(map[string]any)["access_token"].(string), nil)
	require.Equal(t, "es", me.Body["details"].(map[string]any)["locale"])

	// Name, e-mail and validity can be chosen; no roles is a user with none.
	r = b.devSignIn(t, `{"username":"ana.lopez","name":"Ana López","email":"ana@cc.test","roles":[],"expires_in":5}`)
	require.Equal(t, http.StatusOK, r.Status, r.RawBody)
	tok = r.Body["details"].(map[string]any)
	require.EqualValues(t, 5, tok["expires_in"])
	me = b.do(t, http.MethodGet, "/users/me", tok["access_token"].(string), nil)
	profile = me.Body["details"].(map[string]any)
	require.Equal(t, "Ana López", profile["name"])
	require.Equal(t, "ana@cc.test", profile["email"])
	require.Equal(t, "none", profile["role"])
}

func TestDevSignInRejectsBadRequests(t *testing.T) {
	t.Parallel()
	b := setup(t, setupOpts{devIssuer: true})
	cases := []struct {
		body, code, location string
	}{
		{`{"roles":["admin"]}`, CodeMissingFields, "body.username"},
		{`{"username":"a b","roles":[]}`, CodeValidation, "body.username"},
		{`{"username":"` + strings.Repeat("x", 65) + `"}`, CodeValidation, "body.username"},
		{`{"username":"x","roles":["root"]}`, CodeValidation, "body.roles[0]"},
		{`{"username":"x","roles":["quality","none"]}`, CodeValidation, "body.roles[1]"},
		{`{"username":"x","expires_in":1}`, CodeValidation, "body.expires_in"},
		{`{"username":"x","expires_in":43201}`, CodeValidation, "body.expires_in"},
		{`{"username":"x","admin":true}`, CodeValidation, ""},
		{`{"username":`, CodeValidation, ""},
	}
	for _, tc := range cases {
		r := b.devSignIn(t, tc.body)
		requireError(t, r, http.StatusBadRequest, tc.code)
		if tc.location != "" {
			details := r.Body["details"].([]any)
			require.Equal(t, tc.location, details[0].(map[string]any)["location"], tc.body)
		}
	}
	r := b.do(t, http.MethodPost, "/dev-oidc/token", "", strings.NewReader(`{"username":"x"}`))
	requireError(t, r, http.StatusUnsupportedMediaType, CodeUnsupportedMediaType)
	r = b.devSignIn(t, `{"username":"x","name":"`+strings.Repeat("x", 20<<10)+`"}`)
	requireError(t, r, http.StatusRequestEntityTooLarge, CodePayloadTooLarge)
	r = b.do(t, http.MethodGet, "/dev-oidc/token", "", nil)
	requireError(t, r, http.StatusMethodNotAllowed, CodeMethodNotAllowed)
}

func TestDevSignInOnlyWithAuthDev(t *testing.T) {
	t.Parallel()
	b := setup(t)
	requireError(t, b.devSignIn(t, `{"username":"maria","roles":["admin"]}`), http.StatusNotFound, CodeNotFound)
}
