// Package directory lists the users of an identity provider's directory
// (Keycloak's Admin REST API, Microsoft Graph, or any SCIM 2.0 server) for
// the sync_users job. Users are fetched a page at a time and handed on as
// they arrive, so a directory of any size is never held in memory whole.
package directory

import (
	"context"
	"fmt"
	"iter"
	"net/http"
	"slices"
	"strings"
	"time"

	"golang.org/x/sync/errgroup"
)

// User is a user as the directory lists it.
type User struct {
	// Subject is the identifier the user's access tokens carry as their
	// subject: the Keycloak user id, the Entra object id (oid), or the
	// configured SCIM attribute. Empty when the directory has no value for
	// it (the user cannot be matched to a token).
	Subject  string
	Username string
	Email    string
	Name     string
	// Roles are role names as the tokens' roles claim carries them, sorted.
	Roles []string
	// Active is false when the directory disables the user.
	Active bool
}

// Provider lists the users of one directory.
type Provider interface {
	// Name is the provider's name: keycloak, msgraph or scim.
	Name() string
	// Users yields every user of the directory, fetching one page at a
	// time as the caller consumes them. On failure it yields a zero User
	// and the error, and stops: a *RetryableError when the directory asks
	// to be called back later (HTTP 429 or 503), an *Error when it refused
	// a request, or the transport's or ctx's error.
	Users(ctx context.Context) iter.Seq2[User, error]
}

// Config selects and configures a Provider.
type Config struct {
	// Provider is keycloak, msgraph or scim.
	Provider string
	// URL is the Keycloak base URL (https://kc.example.com, or
	// https://kc.example.com/auth before Keycloak 17), the Graph endpoint
	// (https://graph.microsoft.com), or the SCIM base URL (…/scim/v2).
	URL string
	// Realm is the Keycloak realm.
	Realm string
	// Tenant is the Entra tenant id or domain.
	Tenant string
	// LoginURL is the Entra login endpoint the Graph token comes from
	// (https://login.microsoftonline.com).
	LoginURL string
	// ClientID and ClientSecret are the client-credentials grant (Keycloak, Graph).
	ClientID, ClientSecret string
	// Token is the SCIM bearer token.
	Token string
	// SubjectAttribute is the SCIM attribute that equals the token
	// subject: id, externalId or userName.
	SubjectAttribute string
	// RolesClaim is the access tokens' roles claim path (OIDC_ROLES_CLAIM).
	// For Keycloak, resource_access.<client>.roles selects the client
	// roles of <client>; anything else the realm roles.
	RolesClaim string
	// PageSize overrides the number of users asked for per page. Defaults
	// to 100 (Keycloak), 999 (Graph, its maximum) or 200 (SCIM).
	PageSize int
	// RequestTimeout bounds each HTTP request. Defaults to 30s.
	RequestTimeout time.Duration
}

// New returns the Provider c describes. It returns an error when
// c.Provider is not one of keycloak, msgraph or scim.
func New(c Config) (Provider, error) {
	timeout := c.RequestTimeout
	if timeout <= 0 {
		timeout = 30 * time.Second
	}
	cl := &client{provider: c.Provider, http: &http.Client{Timeout: timeout}}
	base := strings.TrimRight(c.URL, "/")
	switch c.Provider {
	case "keycloak":
		cl.tokens = &clientCredentials{client: cl, url: base + "/realms/" + c.Realm + "/protocol/openid-connect/token",
			id: c.ClientID, secret: c.ClientSecret}
		return newKeycloak(cl, base+"/admin/realms/"+c.Realm, c.RolesClaim, pageSize(c.PageSize, 100)), nil
	case "msgraph":
		cl.tokens = &clientCredentials{client: cl,
			url: strings.TrimRight(c.LoginURL, "/") + "/" + c.Tenant + "/oauth2/v2.0/token",
			id:  c.ClientID, secret: c.ClientSecret, scope: base + "/.default"}
		return &msgraph{c: cl, base: base + "/v1.0", appID: c.ClientID, pageSize: pageSize(c.PageSize, 999)}, nil
	case "scim":
		cl.tokens = staticToken(c.Token)
		return &scim{c: cl, base: base, subject: c.SubjectAttribute, pageSize: pageSize(c.PageSize, 200)}, nil
	}
	return nil, fmt.Errorf("directory provider %q is not keycloak, msgraph or scim", c.Provider)
}

func pageSize(n, def int) int {
	if n > 0 {
		return n
	}
	return def
}

// roleFetchConcurrency bounds the role requests in flight for one page:
// Keycloak and Graph answer roles per user, so a page of users costs a page
// of requests.
const roleFetchConcurrency = 8

// yieldPage sets the roles of each user of page with fetch, a few users at
// a time, and then yields the users, or the error if a fetch failed. It
// reports whether the listing goes on.
func yieldPage(ctx context.Context, page []User, fetch func(ctx context.Context, subject string) ([]string, error),
	yield func(User, error) bool) bool {
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(roleFetchConcurrency)
	for i := range page {
		g.Go(func() error {
			roles, err := fetch(gctx, page[i].Subject)
			page[i].Roles = normalize(roles)
			return err
		})
	}
	if err := g.Wait(); err != nil {
		yield(User{}, err)
		return false
	}
	for _, u := range page {
		if !yield(u, nil) {
			return false
		}
	}
	return true
}

// normalize sorts roles and drops empty and repeated names, so the same
// roles always compare equal whatever order the directory lists them in.
// No roles is nil.
func normalize(roles []string) []string {
	out := slices.DeleteFunc(slices.Clone(roles), func(r string) bool { return r == "" })
	if len(out) == 0 {
		return nil
	}
	slices.Sort(out)
	return slices.Compact(out)
}
