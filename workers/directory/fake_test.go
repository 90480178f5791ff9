package directory_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/auditd/auditd/workers/directory"
)

// fakeServer is the HTTP side of a directory on loopback: a token endpoint
// (client credentials) or a fixed bearer token, the provider's API routes
// on mux, and faults injected into chosen requests.
type fakeServer struct {
	URL string
	mux *http.ServeMux
	// tokenPath is the token endpoint ("" for a fixed token).
	tokenPath string
	// unauthorized writes the provider's own 401 answer.
	unauthorized func(w http.ResponseWriter)

	mu     sync.Mutex
	valid  map[string]bool
	issued int
	hits   map[string]int
	faults []fault
}

// fault changes the answer to the nth request to path.
type fault struct {
	path   string
	nth    int
	status int
	header map[string]string
	body   string
	// expire revokes every token before the request is served as usual,
	// as if the token expired early mid-sync.
	expire bool
	// hang answers only when the client gives up.
	hang bool
}

func newFakeServer(t *testing.T, unauthorized func(w http.ResponseWriter)) *fakeServer {
	f := &fakeServer{mux: http.NewServeMux(), unauthorized: unauthorized, valid: map[string]bool{}, hits: map[string]int{}}
	srv := httptest.NewServer(f)
	t.Cleanup(srv.Close)
	f.URL = srv.URL
	return f
}

// fixedToken makes tok the only valid bearer token.
func (f *fakeServer) fixedToken(tok string) { f.valid[tok] = true }

// tokenEndpoint serves the client-credentials grant at path for id and
// secret (and scope, unless empty). Tokens live five minutes.
func (f *fakeServer) tokenEndpoint(t *testing.T, path, id, secret, scope string) {
	f.tokenPath = path
	f.mux.HandleFunc("POST "+path, func(w http.ResponseWriter, r *http.Request) {
		require.NoError(t, r.ParseForm())
		w.Header().Set("Content-Type", "application/json")
		switch {
		case r.PostForm.Get("grant_type") != "client_credentials":
			w.WriteHeader(http.StatusBadRequest)
			fmt.Fprint(w, `{"error":"unsupported_grant_type"}`)
		case r.PostForm.Get("client_id") != id || r.PostForm.Get("client_secret") != secret:
			w.WriteHeader(http.StatusUnauthorized)
			fmt.Fprint(w, `{"error":"unauthorized_client","error_description":"Invalid client or Invalid client credentials"}`)
		case scope != "" && r.PostForm.Get("scope") != scope:
			w.WriteHeader(http.StatusBadRequest)
			fmt.Fprintf(w, `{"error":"invalid_scope","error_description":"scope %q is not valid"}`, r.PostForm.Get("scope"))
		default:
			f.mu.Lock()
			f.issued++
			tok := fmt.Sprintf("tok-%d", f.issued)
			f.valid[tok] = true
			f.mu.Unlock()
			fmt.Fprintf(w, `{"access_token":%q,"token_type":"Bearer","expires_in":300}`, tok)
		}
	})
}

func (f *fakeServer) inject(fs ...fault) { f.faults = append(f.faults, fs...) }

// tokensIssued counts the tokens the token endpoint handed out.
func (f *fakeServer) tokensIssued() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.issued
}

func (f *fakeServer) hitsOf(path string) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.hits[path]
}

func (f *fakeServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	f.hits[r.URL.Path]++
	var ft *fault
	for i := range f.faults {
		if f.faults[i].path == r.URL.Path && f.faults[i].nth == f.hits[r.URL.Path] {
			ft = &f.faults[i]
		}
	}
	if ft != nil && ft.expire {
		clear(f.valid)
	}
	authorized := f.valid[strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")]
	f.mu.Unlock()

	switch {
	case ft != nil && ft.hang:
		<-r.Context().Done()
	case ft != nil && ft.status != 0:
		for k, v := range ft.header {
			w.Header().Set(k, v)
		}
		w.WriteHeader(ft.status)
		fmt.Fprint(w, ft.body)
	case r.URL.Path != f.tokenPath && !authorized:
		f.unauthorized(w)
	default:
		f.mux.ServeHTTP(w, r)
	}
}

func writeJSON(t *testing.T, w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	require.NoError(t, json.NewEncoder(w).Encode(v))
}

// collect drains p's users, stopping at the first error.
func collect(ctx context.Context, p directory.Provider) ([]directory.User, error) {
	var out []directory.User
	for u, err := range p.Users(ctx) {
		if err != nil {
			return out, err
		}
		out = append(out, u)
	}
	return out, nil
}

func subjects(users []directory.User) []string {
	out := make([]string, len(users))
	for i, u := range users {
		out[i] = u.Subject
	}
	return out
}
