package api

import (
	"context"
	"net/http"
	"time"

	"github.com/danielgtaylor/huma/v2"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/auditd/auditd/db"
	"github.com/auditd/auditd/errcode"
	"github.com/auditd/auditd/l10n"
	"github.com/auditd/auditd/role"
)

type usersResource struct {
	pool *pgxpool.Pool
	// zone is DEFAULT_TIME_ZONE, the zone of a user who has none.
	zone *time.Location
}

// UserInfo is a user as the API shows it. Its id is the identity
// provider's subject, usable wherever a user_id is asked.
type UserInfo struct {
	ID             string     `json:"id" doc:"The identity provider's subject for this user; the user_id everywhere else"`
	Username       string     `json:"username"`
	Email          string     `json:"email"`
	Name           string     `json:"name"`
	Roles          []string   `json:"roles" doc:"Roles from the latest token, or from the directory when it synced the user since"`
	Role           string     `json:"role" doc:"The highest known role: admin, supervisor, quality, operator, or none" enum:"admin,supervisor,quality,operator,none"`
	Active         bool       `json:"active" doc:"False once an admin deactivates the user, or the directory disables them or no longer lists them; their tokens are then refused"`
	DeactivatedAt  *time.Time `json:"deactivated_at,omitempty" doc:"When an admin deactivated the user (POST /admin/users/{id}/deactivation); absent otherwise"`
	DeactivatedBy  string     `json:"deactivated_by,omitempty" doc:"The admin who deactivated the user; absent otherwise"`
	CreatedAt      time.Time  `json:"created_at"`
	UpdatedAt      time.Time  `json:"updated_at"`
	LastSeenAt     *time.Time `json:"last_seen_at,omitempty" doc:"Absent until the user signs in"`
	SyncedAt       *time.Time `json:"synced_at,omitempty" doc:"When directory sync last listed the user; absent if it never did"`
	Locale         string     `json:"locale" doc:"The language the service writes the user's notifications in (BCP 47): the token's locale claim, unless the user chose one (locale_chosen); empty for English"`
	LocaleChosen   bool       `json:"locale_chosen" doc:"The user chose the locale (PATCH /users/me); tokens no longer change it"`
	TimeZone       string     `json:"time_zone" doc:"The IANA time zone the service writes the user's times in (e-mails): the token's zoneinfo claim, unless the user chose one (time_zone_chosen); empty for the configured default (DEFAULT_TIME_ZONE)"`
	TimeZoneChosen bool       `json:"time_zone_chosen" doc:"The user chose the time zone (PATCH /users/me); tokens no longer change it"`
}

func userInfo(u db.User) UserInfo {
	return UserInfo{
		ID: u.ID, Username: u.Username, Email: u.Email, Name: u.Name, Roles: u.Roles, Role: role.Highest(u.Roles).String(),
		Active: u.Active, CreatedAt: u.CreatedAt, UpdatedAt: u.UpdatedAt, LastSeenAt: u.LastSeenAt, SyncedAt: u.SyncedAt,
		Locale: u.Locale, LocaleChosen: u.LocaleChosen, TimeZone: u.TimeZone, TimeZoneChosen: u.TimeZoneChosen, DeactivatedAt: u.DeactivatedAt, DeactivatedBy: u.DeactivatedBy,
	}
}

// Profile is the current user.
type Profile struct {
	UserInfo
	// UnreadNotifications counts the user's unread own and global notifications.
	UnreadNotifications int `json:"unread_notifications"`
	// DefaultTimeZone is the zone of a user without one.
	DefaultTimeZone string `json:"default_time_zone" doc:"The zone the service writes the user's times in while time_zone is empty (DEFAULT_TIME_ZONE)"`
}

func (u *usersResource) register(api huma.API) {
	op := operation(http.MethodGet, "/users/me", "get-current-user", "Get the current user's profile", role.None)
	op.Description += " The user is created on the first authenticated request and updated when the token's claims change."
	op.Tags = []string{"users"}
	huma.Register(api, op, u.me)

	op = operation(http.MethodPatch, "/users/me", "update-current-user", "Choose the language and time zone of what the service writes the current user",
		role.None, http.StatusBadRequest)
	op.Description += " The dashboard sends the language the user chose; notifications and e-mails written from then on are in it, " +
		"whatever the token's locale claim says. Likewise time_zone (an IANA name such as Europe/Madrid; anything else is 400 VALIDATION_ERROR " +
		"with the field located) sets the zone of the times their e-mails show, whatever the token's zoneinfo claim says. " +
		"A field left out is left as it is; at least one is required."
	op.Tags = []string{"users"}
	huma.Register(api, op, u.update)
}

// ProfileUpdate is what a user may change of their own profile.
type ProfileUpdate struct {
	Body struct {
		Locale   string `json:"locale,omitempty" enum:"en,es" doc:"The language of the user's notifications and e-mails"`
		TimeZone string `json:"time_zone,omitempty" maxLength:"64" doc:"The IANA time zone of the times in the user's e-mails" example:"Europe/Madrid"`
	}
}

func (u *usersResource) update(ctx context.Context, in *ProfileUpdate) (*Output[Profile], error) {
	b := in.Body
	if b.Locale == "" && b.TimeZone == "" {
		return nil, Errorf(CodeMissingFields, "send locale, time_zone or both").WithDetail("body", "locale or time_zone is required", nil)
	}
	if b.TimeZone != "" {
		if _, err := l10n.Zone(b.TimeZone); err != nil {
			return nil, invalidBody("time_zone", "must be an IANA time zone such as UTC or Europe/Madrid", b.TimeZone)
		}
	}
	user, err := db.UserChoose(ctx, u.pool, principal(ctx).User.ID, db.UserChoice{Locale: b.Locale, TimeZone: b.TimeZone})
	if err != nil {
		return nil, err
	}
	return u.profile(ctx, user)
}

func (u *usersResource) me(ctx context.Context, _ *struct{}) (*Output[Profile], error) {
	return u.profile(ctx, principal(ctx).User)
}

// profile is user's Profile.
func (u *usersResource) profile(ctx context.Context, user db.User) (*Output[Profile], error) {
	unread, err := db.NotificationUnreadCount(ctx, u.pool, user.ID)
	if err != nil {
		return nil, err
	}
	return ok(Profile{UserInfo: userInfo(user), UnreadNotifications: unread, DefaultTimeZone: u.zone.String()}), nil
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
