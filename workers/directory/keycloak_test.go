package directory_test

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/auditd/auditd/workers/directory"
)

// keycloakFixture is a realm "acme" of Keycloak's Admin REST API with five
// people and a service account, listed two per page.
func keycloakFixture(t *testing.T) fixture {
	f := newFakeServer(t, func(w http.ResponseWriter) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusUnauthorized)
		fmt.Fprint(w, `{"error":"HTTP 401 Unauthorized"}`)
	})
	f.tokenEndpoint(t, "/realms/acme/protocol/openid-connect/token", "auditd-sync", "s3cret", "")
	users := []map[string]any{
		{"id": "kc-1", "username": "ana", "email": "ana@acme.test", "firstName": "Ana", "lastName": "Pérez", "enabled": true},
		{"id": "kc-2", "username": "bob", "email": "bob@acme.test", "firstName": "Bob", "enabled": false},
		{"id": "kc-svc", "username": "service-account-auditd-sync", "enabled": true, "serviceAccountClientId": "auditd-sync"},
		{"id": "kc-3", "username": "carla", "email": "carla@acme.test", "lastName": "Ruiz", "enabled": true},
		{"id": "kc-4", "username": "dan", "enabled": true},
		{"id": "kc-5", "username": "eve", "email": "eve@acme.test", "firstName": "Eve", "lastName": "Li", "enabled": true},
	}
	realmRoles := map[string][]string{
		"kc-1": {"default-roles-acme", "admin", "offline_access"}, "kc-2": {"operator"}, "kc-3": {"quality", "operator"},
		"kc-4": {}, "kc-5": {"supervisor"},
	}
	clientRoles := map[string][]string{"kc-1": {"supervisor"}, "kc-2": {}, "kc-3": {"quality"}, "kc-4": {}, "kc-5": {}}
	f.mux.HandleFunc("GET /admin/realms/acme/users", func(w http.ResponseWriter, r *http.Request) {
		q := r.URL.Query()
		require.Equal(t, "false", q.Get("briefRepresentation"))
		first, err := strconv.Atoi(q.Get("first"))
		require.NoError(t, err)
		n, err := strconv.Atoi(q.Get("max"))
		require.NoError(t, err)
		writeJSON(t, w, users[min(first, len(users)):min(first+n, len(users))])
	})
	roles := func(m map[string][]string) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			names, ok := m[r.PathValue("id")]
			if !ok {
				w.WriteHeader(http.StatusNotFound)
				fmt.Fprint(w, `{"error":"User not found"}`)
				return
			}
			out := []map[string]any{}
			for _, n := range names {
				out = append(out, map[string]any{"id": "role-" + n, "name": n, "composite": false, "containerId": "acme"})
			}
			writeJSON(t, w, out)
		}
	}
	f.mux.HandleFunc("GET /admin/realms/acme/users/{id}/role-mappings/realm/composite", roles(realmRoles))
	f.mux.HandleFunc("GET /admin/realms/acme/users/{id}/role-mappings/clients/c-7f1e/composite", roles(clientRoles))
	f.mux.HandleFunc("GET /admin/realms/acme/clients", func(w http.ResponseWriter, r *http.Request) {
		out := []map[string]any{}
		if r.URL.Query().Get("clientId") == "auditd" {
			out = append(out, map[string]any{"id": "c-7f1e", "clientId": "auditd"})
		}
		writeJSON(t, w, out)
	})
	return fixture{
		fake: f,
		cfg: directory.Config{Provider: "keycloak", URL: f.URL + "/", Realm: "acme", ClientID: "auditd-sync",
			ClientSecret: "s3cret", RolesClaim: "realm_access.roles", PageSize: 2},
		usersPath: "/admin/realms/acme/users", pages: 4,
		subjects:    []string{"kc-1", "kc-2", "kc-3", "kc-4", "kc-5"},
		refreshable: true,
		errBody:     `{"error":"unknown_error"}`, errText: "unknown_error",
	}
}

func TestKeycloakUsers(t *testing.T) {
	t.Parallel()
	fx := keycloakFixture(t)
	users, err := collect(context.Background(), fx.provider(t))
	require.NoError(t, err)
	require.Equal(t, []directory.User{
		{Subject: "kc-1", Username: "ana", Email: "ana@acme.test", Name: "Ana Pérez", Roles: []string{"admin", "default-roles-acme", "offline_access"}, Active: true},
		{Subject: "kc-2", Username: "bob", Email: "bob@acme.test", Name: "Bob", Roles: []string{"operator"}, Active: false},
		{Subject: "kc-3", Username: "carla", Email: "carla@acme.test", Name: "Ruiz", Roles: []string{"operator", "quality"}, Active: true},
		{Subject: "kc-4", Username: "dan", Active: true},
		{Subject: "kc-5", Username: "eve", Email: "eve@acme.test", Name: "Eve Li", Roles: []string{"supervisor"}, Active: true},
	}, users)
	// Six accounts two per page: three full pages and the empty one that ends the listing.
	require.Equal(t, 4, fx.fake.hitsOf(fx.usersPath))
	require.Equal(t, 1, fx.fake.tokensIssued(), "the token is cached for the whole sync")
}

func TestKeycloakClientRoles(t *testing.T) {
	t.Parallel()
	fx := keycloakFixture(t)
	fx.cfg.RolesClaim = "resource_access.auditd.roles"
	users, err := collect(context.Background(), fx.provider(t))
	require.NoError(t, err)
	roles := map[string][]string{}
	for _, u := range users {
		roles[u.Subject] = u.Roles
	}
	require.Equal(t, []string{"supervisor"}, roles["kc-1"])
	require.Equal(t, []string{"quality"}, roles["kc-3"])
	require.Empty(t, roles["kc-2"])

	fx.cfg.RolesClaim = "resource_access.nope.roles"
	_, err = collect(context.Background(), fx.provider(t))
	require.ErrorContains(t, err, `no client "nope"`)
}

func TestKeycloakBadCredentials(t *testing.T) {
	t.Parallel()
	fx := keycloakFixture(t)
	fx.cfg.ClientSecret = "wrong"
	users, err := collect(context.Background(), fx.provider(t))
	require.Empty(t, users)
	var e *directory.Error
	require.ErrorAs(t, err, &e)
	require.Equal(t, http.StatusUnauthorized, e.Status)
	require.Contains(t, e.Message, "Invalid client credentials")
	require.Contains(t, e.Message, "DIRECTORY_CLIENT_SECRET")
	require.Zero(t, fx.fake.hitsOf(fx.usersPath))
}

func TestKeycloakRoleFailureStopsTheListing(t *testing.T) {
	t.Parallel()
	fx := keycloakFixture(t)
	fx.fake.inject(fault{path: "/admin/realms/acme/users/kc-3/role-mappings/realm/composite", nth: 1,
		status: http.StatusForbidden, body: `{"error":"unknown_error","error_description":"For more on this error consult the server log."}`})
	users, err := collect(context.Background(), fx.provider(t))
	var e *directory.Error
	require.ErrorAs(t, err, &e)
	require.Equal(t, http.StatusForbidden, e.Status)
	require.Contains(t, err.Error(), "list roles of user kc-3")
	// The first page came through; the page with the failure did not.
	require.Equal(t, []string{"kc-1", "kc-2"}, subjects(users))
	require.False(t, slices.Contains(subjects(users), "kc-3"))
}
