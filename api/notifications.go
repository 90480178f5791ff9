package api

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/danielgtaylor/huma/v2"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/auditd/auditd/db"
	"github.com/auditd/auditd/errcode"
	"github.com/auditd/auditd/l10n"
	"github.com/auditd/auditd/role"
)

type notificationsResource struct {
	pool *pgxpool.Pool
}

func (n *notificationsResource) register(api huma.API) {
	tag := []string{"notifications"}
	op := operation(http.MethodGet, "/notifications", "list-notifications", "List notifications", role.None, http.StatusBadRequest)
	op.Description += " The caller's own notifications and the global ones, newest first. " +
		"`user_id` of another user needs the admin role."
	op.Tags = tag
	huma.Register(api, op, n.list)

	op = operation(http.MethodPost, "/notifications", "create-notification", "Create a notification", role.None,
		http.StatusBadRequest)
	op.Description += " When `is_global` is not true, `user_id` must name an existing user. " +
		"Global notifications and notifications for other users need the admin role."
	op.DefaultStatus = http.StatusCreated
	op.Tags = tag
	huma.Register(api, op, n.create)

	op = operation(http.MethodPatch, "/notifications/{id}", "mark-notification-read", "Mark a notification as read",
		role.None, http.StatusBadRequest, http.StatusNotFound)
	op.Description += " The body is optional; `{\"read\": false}` marks it unread again. " +
		"Read state is per user, also for global notifications."
	op.Tags = tag
	huma.Register(api, op, n.markRead)

	op = operation(http.MethodDelete, "/notifications/{id}", "delete-notification", "Delete a notification",
		role.None, http.StatusBadRequest, http.StatusNotFound)
	op.Description += " Your own; any user's as admin; a global one only as admin."
	op.Tags = tag
	huma.Register(api, op, n.delete)

	op = operation(http.MethodDelete, "/notifications", "delete-user-notifications", "Delete all notifications of a user",
		role.None, http.StatusBadRequest)
	op.Description += " Irreversible. `user_id` comes from the query or a JSON body; your own, or any user's as admin. " +
		"Global notifications are not deleted."
	op.Tags = tag
	huma.Register(api, op, n.deleteAll)
}

// NotificationView is a notification as the API returns it, seen by one
// user; its events carry the same (db.NotificationView).
type NotificationView struct {
	ID        string     `json:"id" format:"uuid"`
	UserID    *string    `json:"user_id" doc:"The owner's id; null for a global notification"`
	IsGlobal  bool       `json:"is_global"`
	Text      string     `json:"text,omitempty"`
	Variant   string     `json:"variant,omitempty" enum:"success,info,warning,error"`
	Kind      string     `json:"kind,omitempty" enum:"evaluation" doc:"What the notification is about, when a client may offer actions on it: evaluation tells an agent their task's evaluation (task_uuid) was validated, which they may acknowledge or dispute"`
	Link      string     `json:"link,omitempty" doc:"Where a client can open what the notification is about"`
	TaskUUID  *string    `json:"task_uuid,omitempty" format:"uuid"`
	Read      bool       `json:"read" doc:"Whether the viewing user has read it"`
	ReadAt    *time.Time `json:"read_at,omitempty"`
	CreatedAt time.Time  `json:"created_at,omitzero"`
}

// notificationViewOf is n as the API shows it to the user who reads it.
func notificationViewOf(n db.Notification) NotificationView { return NotificationView(n.View()) }

// NotificationPage is one page of notifications.
type NotificationPage struct {
	Items  []NotificationView `json:"items"`
	Total  int                `json:"total" doc:"Notifications matching the filter"`
	Unread int                `json:"unread" doc:"Unread notifications matching the filter"`
	Skip   int                `json:"skip"`
	Limit  int                `json:"limit"`
}

type listNotificationsInput struct {
	Skip   int    `query:"skip" minimum:"0" default:"0" doc:"Pagination offset"`
	Limit  int    `query:"limit" minimum:"1" maximum:"500" default:"100" doc:"Pagination limit"`
	UserID string `query:"user_id" maxLength:"255" doc:"Whose notifications (default: yours; another user's needs admin)"`
	Unread bool   `query:"unread" doc:"Only unread ones"`
}

// actingOn returns whose notifications a request concerns, refusing another
// user's unless the caller is an admin.
func actingOn(ctx context.Context, userID string) (string, error) {
	p := principal(ctx)
	if userID == "" || userID == p.User.ID {
		return p.User.ID, nil
	}
	if !p.Is(role.Admin) {
		return "", Errorf(CodeForbidden, "only admins may act on another user's notifications")
	}
	return userID, nil
}

func (n *notificationsResource) list(ctx context.Context, in *listNotificationsInput) (*Output[NotificationPage], error) {
	who, err := actingOn(ctx, in.UserID)
	if err != nil {
		return nil, err
	}
	v, err := viewerOf(ctx, n.pool)
	if err != nil {
		return nil, err
	}
	items, total, unread, err := db.NotificationList(ctx, n.pool, db.NotificationFilter{
		UserID: who, Viewer: v, UnreadOnly: in.Unread, Skip: in.Skip, Limit: in.Limit})
	if err != nil {
		return nil, err
	}
	page := NotificationPage{Items: make([]NotificationView, len(items)), Total: total, Unread: unread, Skip: in.Skip, Limit: in.Limit}
	for i, it := range items {
		page.Items[i] = notificationViewOf(it)
	}
	return ok(page), nil
}

type createNotificationInput struct {
	Body struct {
		Text     string  `json:"text" minLength:"1" maxLength:"2000" doc:"Message text"`
		Variant  string  `json:"variant" enum:"success,info,warning,error"`
		UserID   string  `json:"user_id,omitempty" maxLength:"255" doc:"The owner; required unless is_global is true"`
		IsGlobal bool    `json:"is_global,omitempty" doc:"For everyone (admin only)"`
		Link     string  `json:"link,omitempty" maxLength:"2000" doc:"Where a client can open what it is about: a path of the dashboard (/tasks/…) or an http(s) address; anything else (javascript:, data:, //host) is refused"`
		TaskUUID *string `json:"task_uuid,omitempty" format:"uuid"`
	}
}

func (n *notificationsResource) create(ctx context.Context, in *createNotificationInput) (*Output[NotificationView], error) {
	b := in.Body
	p := principal(ctx)
	switch {
	case b.IsGlobal && b.UserID != "":
		return nil, Errorf(CodeValidation, "a global notification has no user_id; send one or the other").
			WithDetail("body.user_id", "must be empty when is_global is true", b.UserID)
	case b.IsGlobal && !p.Is(role.Admin):
		return nil, Errorf(CodeForbidden, "only admins may create global notifications")
	case !b.IsGlobal && b.UserID == "":
		return nil, Errorf(CodeMissingFields, "user_id is required unless is_global is true").
			WithDetail("body.user_id", "required when is_global is not true", nil)
	}
	if b.Link != "" && !safeLink(b.Link) {
		return nil, invalidBody("link", "must be a path of the dashboard such as /tasks/… or an http(s) address", b.Link)
	}
	if !b.IsGlobal {
		if _, err := actingOn(ctx, b.UserID); err != nil {
			return nil, err
		}
		u, err := db.UserGet(ctx, n.pool, b.UserID)
		switch {
		case errcode.Is(err, errcode.NotFound):
			return nil, Errorf(CodeValidation, fmt.Sprintf("no user has id %q", b.UserID)).
				WithDetail("body.user_id", "no such user", b.UserID)
		case err != nil:
			return nil, err
		case !u.Active:
			return nil, invalidBody("user_id", fmt.Sprintf("names %s, who is deactivated and is sent nothing", u.ID), b.UserID)
		}
	}
	var created db.Notification
	err := pgx.BeginFunc(ctx, n.pool, func(tx pgx.Tx) (err error) {
		created, err = db.NotificationCreate(ctx, tx, db.NotificationNew{UserID: b.UserID, Text: l10n.Plain(b.Text),
			Variant: b.Variant, Link: b.Link, TaskUUID: b.TaskUUID, CreatedBy: p.User.ID})
		return err
	})
	if err != nil {
		return nil, err
	}
	return ok(notificationViewOf(created)), nil
}

type notificationIDInput struct {
	ID string `path:"id" format:"uuid" doc:"The notification's id"`
}

// visible returns the notification id as the caller may act on it, with the
// user whose read state it concerns. Another user's notification is
// NOT_FOUND to a non-admin, exactly like a missing one.
func (n *notificationsResource) visible(ctx context.Context, id string) (db.Notification, string, error) {
	p := principal(ctx)
	v, err := viewerOf(ctx, n.pool)
	if err != nil {
		return db.Notification{}, "", err
	}
	note, err := db.NotificationGet(ctx, n.pool, id, v)
	switch {
	case errcode.Is(err, errcode.NotFound):
	case err != nil:
		return db.Notification{}, "", err
	case note.IsGlobal() || note.UserID == p.User.ID:
		return note, p.User.ID, nil
	case p.Is(role.Admin):
		return note, note.UserID, nil
	}
	return db.Notification{}, "", Errorf(CodeNotFound, "no notification has this id")
}

type markReadInput struct {
	ID   string `path:"id" format:"uuid" doc:"The notification's id"`
	Body *struct {
		Read *bool `json:"read,omitempty" doc:"true (default) marks read, false unread"`
	}
}

func (n *notificationsResource) markRead(ctx context.Context, in *markReadInput) (*Output[NotificationView], error) {
	note, reader, err := n.visible(ctx, in.ID)
	if err != nil {
		return nil, err
	}
	read := in.Body == nil || in.Body.Read == nil || *in.Body.Read
	err = pgx.BeginFunc(ctx, n.pool, func(tx pgx.Tx) (err error) {
		note, err = db.NotificationSetRead(ctx, tx, note.ID, reader, read)
		return err
	})
	if err != nil {
		return nil, err
	}
	return ok(notificationViewOf(note)), nil
}

// Deleted reports what a delete removed.
type Deleted struct {
	ID      string `json:"id,omitempty"`
	UserID  string `json:"user_id,omitempty"`
	Deleted int64  `json:"deleted" doc:"How many notifications were deleted"`
}

func (n *notificationsResource) delete(ctx context.Context, in *notificationIDInput) (*Output[Deleted], error) {
	note, _, err := n.visible(ctx, in.ID)
	if err != nil {
		return nil, err
	}
	if note.IsGlobal() && !principal(ctx).Is(role.Admin) {
		return nil, Errorf(CodeForbidden, "only admins may delete a global notification; mark it read instead")
	}
	err = pgx.BeginFunc(ctx, n.pool, func(tx pgx.Tx) error { return db.NotificationDelete(ctx, tx, note) })
	if err != nil {
		return nil, err
	}
	return ok(Deleted{ID: note.ID, Deleted: 1}), nil
}

type deleteAllInput struct {
	UserID string `query:"user_id" maxLength:"255" doc:"The user whose notifications are deleted (or send it in the body)"`
	Body   *struct {
		UserID string `json:"user_id,omitempty" maxLength:"255"`
	}
}

func (n *notificationsResource) deleteAll(ctx context.Context, in *deleteAllInput) (*Output[Deleted], error) {
	userID := in.UserID
	if in.Body != nil && in.Body.UserID != "" {
		if userID != "" && userID != in.Body.UserID {
			return nil, Errorf(CodeValidation, "user_id differs between the query and the body; send it once")
		}
		userID = in.Body.UserID
	}
	if userID == "" {
		return nil, Errorf(CodeMissingFields, "user_id is required, in the query or a JSON body").
			WithDetail("query.user_id", "required", nil)
	}
	who, err := actingOn(ctx, userID)
	if err != nil {
		return nil, err
	}
	var deleted int64
	err = pgx.BeginFunc(ctx, n.pool, func(tx pgx.Tx) (err error) {
		deleted, err = db.NotificationDeleteAllOf(ctx, tx, who)
		return err
	})
	if err != nil {
		return nil, err
	}
	return ok(Deleted{UserID: who, Deleted: deleted}), nil
}

// safeLink reports whether link is one a client may open: a path (not
// //host or /\host, which browsers take for another site) or an absolute
// http(s) address with a host, without hidden characters.
func safeLink(link string) bool {
	if !plainText(link) || strings.ContainsAny(link, " \\") {
		return false
	}
	if strings.HasPrefix(link, "/") {
		return !strings.HasPrefix(link, "//")
	}
	u, err := url.Parse(link)
	return err == nil && (u.Scheme == "http" || u.Scheme == "https") && u.Host != ""
}
