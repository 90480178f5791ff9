package api

import (
	"context"
	"net/http"
	"time"

	"github.com/danielgtaylor/huma/v2"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/auditd/auditd/db"
	"github.com/auditd/auditd/errcode"
	"github.com/auditd/auditd/role"
)

type usersResource struct {
	pool *pgxpool.Pool
}

// UserInfo is a user as the API shows it. Its id is the identity
// provider's subject, usable wherever a user_id is asked.
type UserInfo struct {
	ID            string     `json:"id" doc:"The identity provider's subject for this user; the user_id everywhere else"`
	Username      string     `json:"username"`
	Email         string     `json:"email"`
	Name          string     `json:"name"`
	Roles         []string   `json:"roles" doc:"Roles from the latest token, or from the directory when it synced the user since"`
	Role          string     `json:"role" doc:"The highest known role: admin, supervisor, quality, operator, or none" enum:"admin,supervisor,quality,operator,none"`
	Active        bool       `json:"active" doc:"False once an admin deactivates the user, or the directory disables them or no longer lists them; their tokens are then refused"`
	DeactivatedAt *time.Time `json:"deactivated_at,omitempty" doc:"When an admin deactivated the user (POST /admin/users/{id}/deactivation); absent otherwise"`
	DeactivatedBy string     `json:"deactivated_by,omitempty" doc:"The admin who deactivated the user; absent otherwise"`
	CreatedAt     time.Time  `json:"created_at"`
	UpdatedAt     time.Time  `json:"updated_at"`
	LastSeenAt    *time.Time `json:"last_seen_at,omitempty" doc:"Absent until the user signs in"`
	SyncedAt      *time.Time `json:"synced_at,omitempty" doc:"When directory sync last listed the user; absent if it never did"`
	Locale        string     `json:"locale" doc:"The language the service writes the user's notifications in (BCP 47): the token's locale claim, unless the user chose one (locale_chosen); empty for English"`
	LocaleChosen  bool       `json:"locale_chosen" doc:"The user chose the locale (PATCH /users/me); tokens no longer change it"`
}

func userInfo(u db.User) UserInfo {
	return UserInfo{
		ID: u.ID, Username: u.Username, Email: u.Email, Name: u.Name, Roles: u.Roles, Role: role.Highest(u.Roles).String(),
		Active: u.Active, CreatedAt: u.CreatedAt, UpdatedAt: u.UpdatedAt, LastSeenAt: u.LastSeenAt, SyncedAt: u.SyncedAt,
		Locale: u.Locale, LocaleChosen: u.LocaleChosen, DeactivatedAt: u.DeactivatedAt, DeactivatedBy: u.DeactivatedBy,
	}
}

// Profile is the current user.
type Profile struct {
	UserInfo
	// UnreadNotifications counts the user's unread own and global notifications.
	UnreadNotifications int `json:"unread_notifications"`
}

func (u *usersResource) register(api huma.API) {
	op := operation(http.MethodGet, "/users/me", "get-current-user", "Get the current user's profile", role.None)
	op.Description += " The user is created on the first authenticated request and updated when the token's claims change."
	op.Tags = []string{"users"}
	huma.Register(api, op, u.me)

	op = operation(http.MethodPatch, "/users/me", "update-current-user", "Choose the language of the current user's notifications", role.None,
		http.StatusBadRequest)
	op.Description += " The dashboard sends the language the user chose; notifications written from then on are in it, " +
		"whatever the token's locale claim says."
	op.Tags = []string{"users"}
	huma.Register(api, op, u.update)
}

// ProfileUpdate is what a user may change of their own profile.
type ProfileUpdate struct {
	Body struct {
		Locale string `json:"locale" enum:"en,es" doc:"The language of the user's notifications"`
	}
}

func (u *usersResource) update(ctx context.Context, in *ProfileUpdate) (*Output[Profile], error) {
	p := principal(ctx)
	user, err := db.UserSetLocale(ctx, u.pool, p.User.ID, in.Body.Locale)
	if err != nil {
		return nil, err
	}
	unread, err := db.NotificationUnreadCount(ctx, u.pool, p.User.ID)
	if err != nil {
		return nil, err
	}
	return ok(Profile{UserInfo: userInfo(user), UnreadNotifications: unread}), nil
}

func (u *usersResource) me(ctx context.Context, _ *struct{}) (*Output[Profile], error) {
	p := principal(ctx)
	unread, err := db.NotificationUnreadCount(ctx, u.pool, p.User.ID)
	if err != nil {
		return nil, err
	}
	return ok(Profile{UserInfo: userInfo(p.User), UnreadNotifications: unread}), nil
}

// resolveOperator resolves ref, the operator field at location (such as
// query.operator), with db.UserResolve: a username several users share
// when case is ignored is a 400 listing their ids.
func resolveOperator(ctx context.Context, pool *pgxpool.Pool, ref, location string) (string, error) {
	id, err := db.UserResolve(ctx, pool, ref)
	if errcode.Is(err, errcode.Invalid) {
		msg := errcode.Message(err)
		return "", Errorf(CodeValidation, msg).WithDetail(location, msg, ref)
	}
	if err != nil {
		return "", err
	}
	return id, nil
}
