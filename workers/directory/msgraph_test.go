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

const (
	roleAdmin   = "3f1c2b6e-0000-4000-8000-000000000001"
	roleQuality = "3f1c2b6e-0000-4000-8000-000000000002"
	roleOld     = "3f1c2b6e-0000-4000-8000-000000000003"
	defaultRole = "00000000-0000-0000-0000-000000000000"
	ourSP       = "sp-auditd"
)

// graphFixture is Microsoft Graph v1.0 with the Entra login endpoint on
// the same loopback server: five users, two per page, and the app roles
// of application client-1.
func graphFixture(t *testing.T) fixture {
	f := newFakeServer(t, func(w http.ResponseWriter) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusUnauthorized)
		fmt.Fprint(w, `{"error":{"code":"InvalidAuthenticationToken","message":"Lifetime validation failed, the token is expired."}}`)
	})
	f.tokenEndpoint(t, "/tenant-1/oauth2/v2.0/token", "client-1", "s3cret", f.URL+"/.default")
	users := []map[string]any{
		{"id": "oid-1", "userPrincipalName": "ana@acme.onmicrosoft.com", "mail": "ana@acme.test", "displayName": "Ana Pérez", "accountEnabled": true},
		{"id": "oid-2", "userPrincipalName": "bob@acme.onmicrosoft.com", "mail": nil, "displayName": "Bob", "accountEnabled": false},
		{"id": "oid-3", "userPrincipalName": "carla@acme.onmicrosoft.com", "mail": "carla@acme.test", "displayName": "Carla", "accountEnabled": true},
		{"id": "oid-4", "userPrincipalName": "dan@acme.onmicrosoft.com", "displayName": "Dan", "accountEnabled": true},
		{"id": "oid-5", "userPrincipalName": "eve@acme.onmicrosoft.com", "mail": "eve@acme.test", "displayName": "Eve", "accountEnabled": true},
	}
	assignments := map[string][]map[string]any{
		"oid-1": {
			{"resourceId": ourSP, "appRoleId": roleAdmin, "principalType": "User"},
			{"resourceId": "sp-other-app", "appRoleId": roleQuality, "principalType": "User"},
			{"resourceId": ourSP, "appRoleId": roleQuality, "principalType": "Group"},
			{"resourceId": ourSP, "appRoleId": defaultRole, "principalType": "User"},
			{"resourceId": ourSP, "appRoleId": roleOld, "principalType": "User"},
		},
		"oid-3": {{"resourceId": ourSP, "appRoleId": roleQuality, "principalType": "User"}},
	}
	// page serves items two at a time, linking to the next page with $skiptoken.
	page := func(w http.ResponseWriter, r *http.Request, items []map[string]any, size int) {
		skip, _ := strconv.Atoi(r.URL.Query().Get("$skiptoken"))
		out := map[string]any{"@odata.context": f.URL + "/v1.0/$metadata#users", "value": items[min(skip, len(items)):min(skip+size, len(items))]}
		if skip+size < len(items) {
			out["@odata.nextLink"] = fmt.Sprintf("%s%s?$top=%d&$skiptoken=%d", f.URL, r.URL.Path, size, skip+size)
		}
		writeJSON(t, w, out)
	}
	f.mux.HandleFunc("GET /v1.0/users", func(w http.ResponseWriter, r *http.Request) {
		q := r.URL.Query()
		size, err := strconv.Atoi(q.Get("$top"))
		require.NoError(t, err)
		if q.Get("$skiptoken") == "" {
			require.Equal(t, "id,userPrincipalName,mail,displayName,accountEnabled", q.Get("$select"))
		}
		page(w, r, users, size)
	})
	f.mux.HandleFunc("GET /v1.0/users/{id}/appRoleAssignments", func(w http.ResponseWriter, r *http.Request) {
		page(w, r, assignments[r.PathValue("id")], 2)
	})
	f.mux.HandleFunc("GET /v1.0/servicePrincipals(appId='client-1')", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(t, w, map[string]any{"id": ourSP, "appRoles": []map[string]any{
			{"id": roleAdmin, "value": "admin", "isEnabled": true, "allowedMemberTypes": []string{"User"}},
			{"id": roleQuality, "value": "quality", "isEnabled": true},
			{"id": roleOld, "value": "auditor", "isEnabled": false},
		}})
	})
	return fixture{
		fake: f,
		cfg: directory.Config{Provider: "msgraph", URL: f.URL, LoginURL: f.URL, Tenant: "tenant-1",
			ClientID: "client-1", ClientSecret: "s3cret", PageSize: 2},
		usersPath: "/v1.0/users", pages: 3,
		subjects:    []string{"oid-1", "oid-2", "oid-3", "oid-4", "oid-5"},
		refreshable: true,
		errBody:     `{"error":{"code":"generalException","message":"General exception while processing."}}`,
		errText:     "generalException: General exception while processing.",
	}
}

func TestGraphUsers(t *testing.T) {
	t.Parallel()
	fx := graphFixture(t)
	users, err := collect(context.Background(), fx.provider(t))
	require.NoError(t, err)
	require.Equal(t, []directory.User{
		// Only enabled app roles of our application, directly or through a group.
		{Subject: "oid-1", Username: "ana@acme.onmicrosoft.com", Email: "ana@acme.test", Name: "Ana Pérez", Roles: []string{"admin", "quality"}, Active: true},
		{Subject: "oid-2", Username: "bob@acme.onmicrosoft.com", Name: "Bob", Active: false},
		{Subject: "oid-3", Username: "carla@acme.onmicrosoft.com", Email: "carla@acme.test", Name: "Carla", Roles: []string{"quality"}, Active: true},
		{Subject: "oid-4", Username: "dan@acme.onmicrosoft.com", Name: "Dan", Active: true},
		{Subject: "oid-5", Username: "eve@acme.onmicrosoft.com", Email: "eve@acme.test", Name: "Eve", Active: true},
	}, users)
	require.Equal(t, 3, fx.fake.hitsOf(fx.usersPath))
	require.Equal(t, 3, fx.fake.hitsOf("/v1.0/users/oid-1/appRoleAssignments"), "assignments are paged too")
	require.Equal(t, 1, fx.fake.tokensIssued())
}

func TestGraphRefusesForeignNextLink(t *testing.T) {
	t.Parallel()
	fx := graphFixture(t)
	fx.fake.inject(fault{path: fx.usersPath, nth: 1, status: http.StatusOK,
		body: `{"value":[{"id":"oid-1","accountEnabled":true}],"@odata.nextLink":"https://evil.example/v1.0/users?$skiptoken=x"}`})
	users, err := collect(context.Background(), fx.provider(t))
	require.ErrorContains(t, err, "outside DIRECTORY_URL")
	require.Equal(t, []string{"oid-1"}, subjects(users))
}

func TestGraphUnknownApplication(t *testing.T) {
	t.Parallel()
	fx := graphFixture(t)
	fx.fake.inject(fault{path: "/v1.0/servicePrincipals(appId='client-1')", nth: 1, status: http.StatusNotFound,
		body: `{"error":{"code":"Request_ResourceNotFound","message":"Resource 'client-1' does not exist."}}`})
	_, err := collect(context.Background(), fx.provider(t))
	var e *directory.Error
	require.ErrorAs(t, err, &e)
	require.Equal(t, http.StatusNotFound, e.Status)
	require.Equal(t, "Request_ResourceNotFound: Resource 'client-1' does not exist.", e.Message)
	require.Contains(t, err.Error(), "service principal of application client-1")
}
