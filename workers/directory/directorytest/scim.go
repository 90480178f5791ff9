// Package directorytest serves a SCIM 2.0 directory (RFC 7644, GET /Users
// with startIndex and count, bearer token) on loopback, for tests of the
// code that syncs users from a directory.
package directorytest

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strconv"
	"sync"
	"testing"

	"github.com/auditd/auditd/workers/directory"
)

// User is a user of the directory.
type User struct {
	ID       string
	UserName string
	Email    string
	Name     string
	Roles    []string
	Active   bool
}

// SCIM is a SCIM service provider on loopback.
type SCIM struct {
	// URL is the SCIM base URL.
	URL string
	// Token is the bearer token it accepts.
	Token string

	mu    sync.Mutex
	users []User
	fails []failure
}

type failure struct {
	status     int
	retryAfter string
	detail     string
}

// NewSCIM starts a SCIM directory with no users, stopped when t ends.
func NewSCIM(t testing.TB) *SCIM {
	s := &SCIM{Token: "scim-test-token"}
	srv := httptest.NewServer(http.HandlerFunc(s.serve))
	t.Cleanup(srv.Close)
	s.URL = srv.URL + "/scim/v2"
	return s
}

// Config is the directory configuration of a provider that syncs from s,
// two users per page.
func (s *SCIM) Config() directory.Config {
	return directory.Config{Provider: "scim", URL: s.URL, Token: s.Token, SubjectAttribute: "id", PageSize: 2}
}

// Provider is a directory.Provider that syncs from s.
func (s *SCIM) Provider(t testing.TB) directory.Provider {
	p, err := directory.New(s.Config())
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// SetUsers replaces the directory's users.
func (s *SCIM) SetUsers(users ...User) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.users = users
}

// FailAfter makes the request that follows the next pages successful ones
// fail with status, a Retry-After header (unless empty) and a SCIM error
// detail.
func (s *SCIM) FailAfter(pages, status int, retryAfter, detail string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.fails = make([]failure, pages+1)
	s.fails[pages] = failure{status: status, retryAfter: retryAfter, detail: detail}
}

func (s *SCIM) serve(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	var fail failure
	if len(s.fails) > 0 {
		fail, s.fails = s.fails[0], s.fails[1:]
	}
	users := s.users
	s.mu.Unlock()

	w.Header().Set("Content-Type", "application/scim+json")
	if r.Header.Get("Authorization") != "Bearer "+s.Token {
		fail = failure{status: http.StatusUnauthorized, detail: "invalid bearer token"}
	}
	if r.Method != http.MethodGet || r.URL.Path != "/scim/v2/Users" {
		fail = failure{status: http.StatusNotFound, detail: "no such resource"}
	}
	if fail.status != 0 {
		if fail.retryAfter != "" {
			w.Header().Set("Retry-After", fail.retryAfter)
		}
		w.WriteHeader(fail.status)
		_ = json.NewEncoder(w).Encode(map[string]any{"schemas": []string{"urn:ietf:params:scim:api:messages:2.0:Error"},
			"status": strconv.Itoa(fail.status), "detail": fail.detail})
		return
	}
	start, err1 := strconv.Atoi(r.URL.Query().Get("startIndex"))
	count, err2 := strconv.Atoi(r.URL.Query().Get("count"))
	if err1 != nil || err2 != nil || start < 1 || count < 0 {
		w.WriteHeader(http.StatusBadRequest)
		fmt.Fprint(w, `{"schemas":["urn:ietf:params:scim:api:messages:2.0:Error"],"status":"400","scimType":"invalidValue"}`)
		return
	}
	from, to := min(start-1, len(users)), min(start-1+count, len(users))
	resources := make([]map[string]any, 0, to-from)
	for _, u := range users[from:to] {
		roles := []map[string]string{}
		for _, r := range u.Roles {
			roles = append(roles, map[string]string{"value": r})
		}
		resources = append(resources, map[string]any{
			"schemas": []string{"urn:ietf:params:scim:schemas:core:2.0:User"},
			"id":      u.ID, "userName": u.UserName, "displayName": u.Name, "active": u.Active, "roles": roles,
			"emails": []map[string]any{{"value": u.Email, "primary": true}},
		})
	}
	_ = json.NewEncoder(w).Encode(map[string]any{"schemas": []string{"urn:ietf:params:scim:api:messages:2.0:ListResponse"},
		"totalResults": len(users), "itemsPerPage": len(resources), "startIndex": start, "Resources": resources})
}
