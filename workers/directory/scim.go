package directory

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"net/http"
	"strings"
)

// scim lists users of a SCIM 2.0 service provider (RFC 7644) with a bearer token.
type scim struct {
	c    *client
	base string
	// subject is the attribute that equals the token subject: id,
	// externalId or userName.
	subject  string
	pageSize int
}

// Name implements Provider.
func (s *scim) Name() string { return "scim" }

type scimUser struct {
	ID          string `json:"id"`
	ExternalID  string `json:"externalId"`
	UserName    string `json:"userName"`
	DisplayName string `json:"displayName"`
	Name        struct {
		Formatted  string `json:"formatted"`
		GivenName  string `json:"givenName"`
		FamilyName string `json:"familyName"`
	} `json:"name"`
	Emails []struct {
		Value   string `json:"value"`
		Primary bool   `json:"primary"`
	} `json:"emails"`
	// Active is absent on servers that do not disable users: active.
	Active *bool       `json:"active"`
	Roles  []scimValue `json:"roles"`
	Groups []scimValue `json:"groups"`
}

type scimValue struct {
	Value   string `json:"value"`
	Display string `json:"display"`
}

type scimList struct {
	TotalResults int        `json:"totalResults"`
	Resources    []scimUser `json:"Resources"`
}

// Users implements Provider: pages of GET /Users with startIndex and count
// until totalResults are listed. A server may answer fewer than count per
// page; the next page starts after what it sent.
func (s *scim) Users(ctx context.Context) iter.Seq2[User, error] {
	return func(yield func(User, error) bool) {
		for start := 1; ; {
			var page scimList
			err := s.c.get(ctx, "list users", fmt.Sprintf("%s/Users?startIndex=%d&count=%d", s.base, start, s.pageSize), &page)
			var e *Error
			if errors.As(err, &e) && e.Status == http.StatusUnauthorized {
				e.Message += " (check DIRECTORY_TOKEN)"
			}
			if err != nil {
				yield(User{}, err)
				return
			}
			for _, r := range page.Resources {
				if !yield(s.user(r), nil) {
					return
				}
			}
			start += len(page.Resources)
			if len(page.Resources) == 0 || start > page.TotalResults {
				return
			}
		}
	}
}

// user maps a SCIM user: roles are the values of its roles and the
// display names of its groups.
func (s *scim) user(r scimUser) User {
	u := User{Username: r.UserName, Name: r.DisplayName, Active: r.Active == nil || *r.Active}
	switch s.subject {
	case "externalId":
		u.Subject = r.ExternalID
	case "userName":
		u.Subject = r.UserName
	default:
		u.Subject = r.ID
	}
	if u.Name == "" {
		u.Name = r.Name.Formatted
	}
	if u.Name == "" {
		u.Name = strings.TrimSpace(r.Name.GivenName + " " + r.Name.FamilyName)
	}
	for _, e := range r.Emails {
		if u.Email == "" || e.Primary {
			u.Email = e.Value
		}
	}
	var roles []string
	for _, v := range r.Roles {
		roles = append(roles, v.Value)
	}
	for _, g := range r.Groups {
		roles = append(roles, g.Display)
	}
	u.Roles = normalize(roles)
	return u
}
