package directory

import (
	"context"
	"fmt"
	"iter"
	"net/url"
)

// msgraph lists users with Microsoft Graph. The sync application needs the
// application permissions User.Read.All and Application.Read.All (or
// Directory.Read.All, which covers both and the role assignments).
type msgraph struct {
	c    *client
	base string // {URL}/v1.0
	// appID is the application whose app roles the tokens carry.
	appID    string
	pageSize int
}

// Name implements Provider.
func (g *msgraph) Name() string { return "msgraph" }

type graphUser struct {
	ID                string `json:"id"`
	UserPrincipalName string `json:"userPrincipalName"`
	Mail              string `json:"mail"`
	DisplayName       string `json:"displayName"`
	AccountEnabled    bool   `json:"accountEnabled"`
}

type graphAssignment struct {
	ResourceID string `json:"resourceId"`
	AppRoleID  string `json:"appRoleId"`
}

// graphPage is one page of a Graph collection.
type graphPage[T any] struct {
	Value    []T    `json:"value"`
	NextLink string `json:"@odata.nextLink"`
}

// Users implements Provider: pages of GET /users, following
// @odata.nextLink; each user's roles are the values of the app roles of
// application appID assigned to them (directly or through a group they
// belong to), as Entra puts them in the roles claim.
func (g *msgraph) Users(ctx context.Context) iter.Seq2[User, error] {
	return func(yield func(User, error) bool) {
		sp, roleNames, err := g.appRoles(ctx)
		if err != nil {
			yield(User{}, err)
			return
		}
		next := fmt.Sprintf("%s/users?$select=id,userPrincipalName,mail,displayName,accountEnabled&$top=%d", g.base, g.pageSize)
		for next != "" {
			var page graphPage[graphUser]
			if err := g.c.get(ctx, "list users", next, &page); err != nil {
				yield(User{}, err)
				return
			}
			users := make([]User, len(page.Value))
			for i, u := range page.Value {
				users[i] = User{Subject: u.ID, Username: u.UserPrincipalName, Email: u.Mail, Name: u.DisplayName, Active: u.AccountEnabled}
			}
			more := yieldPage(ctx, users, func(ctx context.Context, id string) ([]string, error) {
				var roles []string
				err := g.each(ctx, "list app roles of user "+id, g.base+"/users/"+url.PathEscape(id)+"/appRoleAssignments",
					func(a graphAssignment) {
						if name, ok := roleNames[a.AppRoleID]; ok && a.ResourceID == sp {
							roles = append(roles, name)
						}
					})
				return roles, err
			}, yield)
			if !more {
				return
			}
			if next, err = g.nextLink(page.NextLink); err != nil {
				yield(User{}, err)
				return
			}
		}
	}
}

// each calls fn with every item of the collection at link, page by page.
func (g *msgraph) each(ctx context.Context, op, link string, fn func(graphAssignment)) error {
	for link != "" {
		var page graphPage[graphAssignment]
		if err := g.c.get(ctx, op, link, &page); err != nil {
			return err
		}
		for _, a := range page.Value {
			fn(a)
		}
		var err error
		if link, err = g.nextLink(page.NextLink); err != nil {
			return err
		}
	}
	return nil
}

// nextLink checks that a next link points at the Graph endpoint we were
// configured with: the bearer token is sent there.
func (g *msgraph) nextLink(link string) (string, error) {
	if link == "" {
		return "", nil
	}
	u, err := url.Parse(link)
	base, _ := url.Parse(g.base)
	if err != nil || u.Scheme != base.Scheme || u.Host != base.Host {
		return "", fmt.Errorf("msgraph: refusing to follow @odata.nextLink %q outside DIRECTORY_URL", link)
	}
	return link, nil
}

// appRoles returns the object id of application appID's service principal
// and the values of its enabled app roles by role id.
func (g *msgraph) appRoles(ctx context.Context) (string, map[string]string, error) {
	var sp struct {
		ID       string `json:"id"`
		AppRoles []struct {
			ID        string `json:"id"`
			Value     string `json:"value"`
			IsEnabled bool   `json:"isEnabled"`
		} `json:"appRoles"`
	}
	link := g.base + "/servicePrincipals(appId='" + url.PathEscape(g.appID) + "')?$select=id,appRoles"
	if err := g.c.get(ctx, "find the service principal of application "+g.appID, link, &sp); err != nil {
		return "", nil, err
	}
	names := make(map[string]string, len(sp.AppRoles))
	for _, r := range sp.AppRoles {
		if r.IsEnabled && r.Value != "" {
			names[r.ID] = r.Value
		}
	}
	return sp.ID, names, nil
}
