package directory_test

import (
	"context"
	"fmt"
	"net/http"
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/auditd/auditd/workers/directory"
)

// scimFixture is a SCIM 2.0 service provider with five users that never
// answers more than two per page, whatever count asks for.
func scimFixture(t *testing.T) fixture {
	f := newFakeServer(t, func(w http.ResponseWriter) {
		w.Header().Set("Content-Type", "application/scim+json")
		w.WriteHeader(http.StatusUnauthorized)
		fmt.Fprint(w, `{"schemas":["urn:ietf:params:scim:api:messages:2.0:Error"],"status":"401","detail":"Bearer token is invalid or expired"}`)
	})
	f.fixedToken("scim-token")
	users := []map[string]any{
		{"id": "s-1", "externalId": "ext-1", "userName": "ana", "displayName": "Ana Pérez", "active": true,
			"emails":  []map[string]any{{"value": "ana@home.test"}, {"value": "ana@acme.test", "primary": true}},
			"roles":   []map[string]any{{"value": "admin"}},
			"groups":  []map[string]any{{"value": "g-1", "display": "quality"}},
			"schemas": []string{"urn:ietf:params:scim:schemas:core:2.0:User"}},
		{"id": "s-2", "externalId": "ext-2", "userName": "bob", "name": map[string]any{"givenName": "Bob", "familyName": "Stone"}, "active": false,
			"emails": []map[string]any{{"value": "bob@acme.test"}}},
		{"id": "s-3", "userName": "carla", "name": map[string]any{"formatted": "Carla Ruiz"}},
		{"id": "s-4", "externalId": "ext-4", "userName": "dan", "roles": []map[string]any{{"value": "operator"}, {"value": "operator"}}},
		{"id": "s-5", "externalId": "ext-5", "userName": "eve", "active": true},
	}
	f.mux.HandleFunc("GET /scim/v2/Users", func(w http.ResponseWriter, r *http.Request) {
		start, err := strconv.Atoi(r.URL.Query().Get("startIndex"))
		require.NoError(t, err)
		count, err := strconv.Atoi(r.URL.Query().Get("count"))
		require.NoError(t, err)
		from, to := min(start-1, len(users)), min(start-1+min(count, 2), len(users))
		w.Header().Set("Content-Type", "application/scim+json")
		writeJSON(t, w, map[string]any{"schemas": []string{"urn:ietf:params:scim:api:messages:2.0:ListResponse"},
			"totalResults": len(users), "itemsPerPage": to - from, "startIndex": start, "Resources": users[from:to]})
	})
	return fixture{
		fake:      f,
		cfg:       directory.Config{Provider: "scim", URL: f.URL + "/scim/v2", Token: "scim-token", SubjectAttribute: "id", PageSize: 3},
		usersPath: "/scim/v2/Users", pages: 3,
		subjects: []string{"s-1", "s-2", "s-3", "s-4", "s-5"},
		errBody:  `{"schemas":["urn:ietf:params:scim:api:messages:2.0:Error"],"status":"500","detail":"the user store is unavailable"}`,
		errText:  "the user store is unavailable",
	}
}

func TestSCIMUsers(t *testing.T) {
	t.Parallel()
	fx := scimFixture(t)
	users, err := collect(context.Background(), fx.provider(t))
	require.NoError(t, err)
	require.Equal(t, []directory.User{
		{Subject: "s-1", Username: "ana", Email: "ana@acme.test", Name: "Ana Pérez", Roles: []string{"admin", "quality"}, Active: true},
		{Subject: "s-2", Username: "bob", Email: "bob@acme.test", Name: "Bob Stone", Active: false},
		{Subject: "s-3", Username: "carla", Name: "Carla Ruiz", Active: true},
		{Subject: "s-4", Username: "dan", Roles: []string{"operator"}, Active: true},
		{Subject: "s-5", Username: "eve", Active: true},
	}, users)
	// count=3 asked, two per page served: pages start at 1, 3 and 5.
	require.Equal(t, 3, fx.fake.hitsOf(fx.usersPath))
}

func TestSCIMSubjectAttribute(t *testing.T) {
	t.Parallel()
	for attr, want := range map[string][]string{
		"externalId": {"ext-1", "ext-2", "", "ext-4", "ext-5"},
		"userName":   {"ana", "bob", "carla", "dan", "eve"},
	} {
		fx := scimFixture(t)
		fx.cfg.SubjectAttribute = attr
		users, err := collect(context.Background(), fx.provider(t))
		require.NoError(t, err)
		require.Equal(t, want, subjects(users), attr)
	}
}

func TestSCIMWrongToken(t *testing.T) {
	t.Parallel()
	fx := scimFixture(t)
	fx.cfg.Token = "wrong"
	_, err := collect(context.Background(), fx.provider(t))
	var e *directory.Error
	require.ErrorAs(t, err, &e)
	require.Equal(t, http.StatusUnauthorized, e.Status)
	require.Equal(t, "Bearer token is invalid or expired (check DIRECTORY_TOKEN)", e.Message)
	require.Equal(t, 1, fx.fake.hitsOf(fx.usersPath), "a fixed token is not retried")
}
