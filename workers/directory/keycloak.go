package directory

import (
	"context"
	"fmt"
	"iter"
	"net/url"
	"strings"
)

// keycloak lists users with Keycloak's Admin REST API. The sync client
// needs the view-users service-account role of realm-management (and
// view-clients when client roles are synced).
type keycloak struct {
	c    *client
	base string // {URL}/admin/realms/{realm}
	// rolesClient is the clientId whose client roles the tokens carry;
	// empty for realm roles.
	rolesClient string
	pageSize    int
}

func newKeycloak(c *client, base, rolesClaim string, pageSize int) *keycloak {
	k := &keycloak{c: c, base: base, pageSize: pageSize}
	if rest, ok := strings.CutPrefix(rolesClaim, "resource_access."); ok {
		if client, ok := strings.CutSuffix(rest, ".roles"); ok {
			k.rolesClient = client
		}
	}
	return k
}

// Name implements Provider.
func (k *keycloak) Name() string { return "keycloak" }

type keycloakUser struct {
	ID        string `json:"id"`
	Username  string `json:"username"`
	Email     string `json:"email"`
	FirstName string `json:"firstName"`
	LastName  string `json:"lastName"`
	Enabled   bool   `json:"enabled"`
	// ServiceAccountClientID marks the user behind a client's service
	// account: not a person, and never signs in.
	ServiceAccountClientID string `json:"serviceAccountClientId"`
}

type keycloakRole struct {
	Name string `json:"name"`
}

// Users implements Provider: pages of GET /users with first and max, until
// a page comes back short; then each user's effective (composite) realm
// roles, or client roles of the client the roles claim names, which is
// what Keycloak puts in their tokens.
func (k *keycloak) Users(ctx context.Context) iter.Seq2[User, error] {
	return func(yield func(User, error) bool) {
		rolesPath := "/role-mappings/realm/composite"
		if k.rolesClient != "" {
			id, err := k.clientUUID(ctx)
			if err != nil {
				yield(User{}, err)
				return
			}
			rolesPath = "/role-mappings/clients/" + url.PathEscape(id) + "/composite"
		}
		for first := 0; ; first += k.pageSize {
			var page []keycloakUser
			err := k.c.get(ctx, "list users", fmt.Sprintf("%s/users?briefRepresentation=false&first=%d&max=%d",
				k.base, first, k.pageSize), &page)
			if err != nil {
				yield(User{}, err)
				return
			}
			users := make([]User, 0, len(page))
			for _, u := range page {
				if u.ServiceAccountClientID != "" {
					continue
				}
				users = append(users, User{Subject: u.ID, Username: u.Username, Email: u.Email,
					Name: strings.TrimSpace(u.FirstName + " " + u.LastName), Active: u.Enabled})
			}
			more := yieldPage(ctx, users, func(ctx context.Context, id string) ([]string, error) {
				var roles []keycloakRole
				err := k.c.get(ctx, "list roles of user "+id, k.base+"/users/"+url.PathEscape(id)+rolesPath, &roles)
				names := make([]string, len(roles))
				for i, r := range roles {
					names[i] = r.Name
				}
				return names, err
			}, yield)
			if !more || len(page) < k.pageSize {
				return
			}
		}
	}
}

// clientUUID returns the internal id of the client rolesClient names.
func (k *keycloak) clientUUID(ctx context.Context) (string, error) {
	var clients []struct {
		ID       string `json:"id"`
		ClientID string `json:"clientId"`
	}
	if err := k.c.get(ctx, "find client "+k.rolesClient, k.base+"/clients?clientId="+url.QueryEscape(k.rolesClient), &clients); err != nil {
		return "", err
	}
	for _, c := range clients {
		if c.ClientID == k.rolesClient {
			return c.ID, nil
		}
	}
	return "", fmt.Errorf("keycloak: the realm has no client %q, whose roles OIDC_ROLES_CLAIM names", k.rolesClient)
}
