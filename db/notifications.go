package db

import (
	"context"
	"errors"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/auditd/auditd/errcode"
	"github.com/auditd/auditd/l10n"
	"github.com/auditd/auditd/role"
	"github.com/auditd/auditd/visibility"
)

// Notification is a message for one user, or for everyone when global, as
// one user sees it (ReadAt is that user's read state).
type Notification struct {
	ID string
	// UserID is the owner; "" for a global one.
	UserID string
	// Text is as written for the owner, in their language.
	Text    string
	Variant string
	// Kind is what the notification is about, for the clients that offer
	// its actions: NotificationEvaluation, or "".
	Kind      string
	Link      string
	TaskUUID  *string
	CreatedBy string
	CreatedAt time.Time
	ReadAt    *time.Time
}

// NotificationEvaluation is the Kind of the notification that tells an
// agent their task's evaluation was validated: they may acknowledge or
// dispute it (its TaskUUID).
const NotificationEvaluation = "evaluation"

// IsGlobal reports whether n is for everyone.
func (n Notification) IsGlobal() bool { return n.UserID == "" }

// audience is who may see events about n.
func (n Notification) audience() Audience {
	if n.IsGlobal() {
		return Everyone()
	}
	return Audience{UserID: n.UserID}
}

// NotificationNew is a notification to create.
type NotificationNew struct {
	// UserID is the owner; "" makes it global.
	UserID string
	// Text is written in the owner's language (English for a global one).
	Text    l10n.Text
	Variant string
	// Kind is NotificationEvaluation or "".
	Kind      string
	Link      string
	TaskUUID  *string
	CreatedBy string
}

// Event types of notifications.
const (
	EventNotificationCreated = "notification.created"
	EventNotificationUpdated = "notification.updated"
	EventNotificationDeleted = "notification.deleted"
	EventNotificationCleared = "notification.cleared"
)

// NotificationView is a notification as its events carry it (stored JSON)
// and the API returns it (api.NotificationView), seen by one user.
type NotificationView struct {
	ID        string     `json:"id"`
	UserID    *string    `json:"user_id"`
	IsGlobal  bool       `json:"is_global"`
	Text      string     `json:"text,omitempty"`
	Variant   string     `json:"variant,omitempty"`
	Kind      string     `json:"kind,omitempty"`
	Link      string     `json:"link,omitempty"`
	TaskUUID  *string    `json:"task_uuid,omitempty"`
	Read      bool       `json:"read"`
	ReadAt    *time.Time `json:"read_at,omitempty"`
	CreatedAt time.Time  `json:"created_at,omitzero"`
}

// View returns n as the API and its events show it.
func (n Notification) View() NotificationView {
	e := NotificationView{ID: n.ID, IsGlobal: n.IsGlobal(), Text: n.Text, Variant: n.Variant, Kind: n.Kind, Link: n.Link,
		TaskUUID: n.TaskUUID, Read: n.ReadAt != nil, ReadAt: n.ReadAt, CreatedAt: n.CreatedAt}
	if !n.IsGlobal() {
		e.UserID = &n.UserID
	}
	return e
}

// notificationColumns reads a notification as the user $1 sees it.
const notificationColumns = `n.id, COALESCE(n.user_id, ''), n.text, n.variant, COALESCE(n.kind, ''), COALESCE(n.link, ''), n.task_uuid,
	COALESCE(n.created_by, ''), n.created_at, r.read_at`

const notificationFrom = ` FROM notifications n
	LEFT JOIN notification_reads r ON r.notification_id = n.id AND r.user_id = $1`

func scanNotification(row pgx.Row) (Notification, error) {
	var n Notification
	err := row.Scan(&n.ID, &n.UserID, &n.Text, &n.Variant, &n.Kind, &n.Link, &n.TaskUUID, &n.CreatedBy, &n.CreatedAt, &n.ReadAt)
	return n, err
}

// NotificationCreate inserts n and its notification.created event. The
// whole of it is one transaction: tx. Every part of the service that tells
// a user something goes through here, so this is where a deactivated user
// is told nothing: for them it stores nothing and returns the zero
// Notification (no ID).
func NotificationCreate(ctx context.Context, tx pgx.Tx, n NotificationNew) (Notification, error) {
	var uid *string
	if n.UserID != "" {
		uid = &n.UserID
	}
	var link, createdBy, kind *string
	if n.Link != "" {
		link = &n.Link
	}
	if n.Kind != "" {
		kind = &n.Kind
	}
	if n.CreatedBy != "" {
		createdBy = &n.CreatedBy
	}
	// The text in each language; the owner's is chosen in the same
	// statement (users' locales are stored as canonical BCP 47 tags), in
	// English for a global notification or a language without a catalog.
	created, err := scanNotification(tx.QueryRow(ctx, `
		INSERT INTO notifications AS n (user_id, text, variant, link, task_uuid, created_by, kind)
		SELECT $1, COALESCE($2::jsonb ->> (SELECT split_part(u.locale, '-', 1) FROM users u WHERE u.id = $1),
			$2::jsonb ->> 'en'), $3, $4, $5, $6, $7
		WHERE NOT `+userInactive("$1::text")+`
		RETURNING n.id, COALESCE(n.user_id, ''), n.text, n.variant, COALESCE(n.kind, ''), COALESCE(n.link, ''), n.task_uuid,
			COALESCE(n.created_by, ''), n.created_at, NULL::timestamptz`,
		uid, n.Text.Translations(), n.Variant, link, n.TaskUUID, createdBy, kind))
	if errors.Is(err, pgx.ErrNoRows) {
		return Notification{}, nil
	}
	if err != nil {
		return Notification{}, err
	}
	if err := EventInsert(ctx, tx, EventNotificationCreated, created.audience(), created.View()); err != nil {
		return Notification{}, err
	}
	return created, nil
}

// NotificationGet returns notification id as v sees it (its read state),
// whoever owns it, or a NotFound error, also for a notification about a
// task whose audit is hidden from v (notificationShown).
func NotificationGet(ctx context.Context, q DBTX, id string, v visibility.Viewer) (Notification, error) {
	n, err := scanNotification(q.QueryRow(ctx, `SELECT `+notificationColumns+notificationFrom+` WHERE n.id = $2`+
		notificationShown(v), v.User, id))
	return n, one(err, "no notification %s", id)
}

// notificationShown is the condition, to add to a WHERE clause over
// notifications n, that keeps from v the notifications about a task whose
// audit is hidden from them: they tell its result ("… was audited: 50.00").
func notificationShown(v visibility.Viewer) string {
	if !v.HidesAny() {
		return ""
	}
	return ` AND NOT EXISTS (SELECT 1 FROM tasks t WHERE t.uuid = n.task_uuid AND ` + v.AuditHiddenSQL("t") + `)`
}

// NotificationFilter selects the notifications a user sees: their own and
// the global ones, in Viewer's view (the zero Viewer hides nothing).
type NotificationFilter struct {
	UserID     string
	Viewer     visibility.Viewer
	UnreadOnly bool
	Skip       int
	Limit      int
}

// NotificationList returns one page of the notifications f selects, newest
// first, with the total count and the unread count of the whole selection.
func NotificationList(ctx context.Context, q DBTX, f NotificationFilter) (items []Notification, total, unread int, err error) {
	where := ` WHERE (n.user_id = $1 OR n.user_id IS NULL) AND (NOT $2 OR r.read_at IS NULL)` + notificationShown(f.Viewer)
	err = q.QueryRow(ctx, `SELECT count(*), count(*) FILTER (WHERE r.read_at IS NULL)`+notificationFrom+where,
		f.UserID, f.UnreadOnly).Scan(&total, &unread)
	if err != nil {
		return nil, 0, 0, err
	}
	rows, err := q.Query(ctx, `SELECT `+notificationColumns+notificationFrom+where+
		` ORDER BY n.created_at DESC, n.id DESC OFFSET $3 LIMIT $4`, f.UserID, f.UnreadOnly, f.Skip, f.Limit)
	if err != nil {
		return nil, 0, 0, err
	}
	items, err = pgx.CollectRows(rows, func(row pgx.CollectableRow) (Notification, error) { return scanNotification(row) })
	return items, total, unread, err
}

// NotificationUnreadCount counts the notifications user id has not read.
func NotificationUnreadCount(ctx context.Context, q DBTX, id string) (int, error) {
	var n int
	err := q.QueryRow(ctx, `SELECT count(*)`+notificationFrom+
		` WHERE (n.user_id = $1 OR n.user_id IS NULL) AND r.read_at IS NULL`, id).Scan(&n)
	return n, err
}

// NotificationSetRead marks notification id read (or unread) for user
// reader and writes a notification.updated event for that user. It returns
// the notification as reader now sees it, or a NotFound error.
func NotificationSetRead(ctx context.Context, tx pgx.Tx, id, reader string, read bool) (Notification, error) {
	var err error
	if read {
		_, err = tx.Exec(ctx, `INSERT INTO notification_reads (notification_id, user_id) VALUES ($1, $2)
			ON CONFLICT DO NOTHING`, id, reader)
	} else {
		_, err = tx.Exec(ctx, `DELETE FROM notification_reads WHERE notification_id = $1 AND user_id = $2`, id, reader)
	}
	if err != nil {
		return Notification{}, err
	}
	// Read back with the reader's read state; the caller found it in
	// what the reader may see.
	n, err := NotificationGet(ctx, tx, id, visibility.Viewer{User: reader, Role: role.Admin})
	if err != nil {
		return Notification{}, err
	}
	err = EventInsert(ctx, tx, EventNotificationUpdated, Audience{UserID: reader}, n.View())
	return n, err
}

// NotificationDelete deletes notification n and writes its
// notification.deleted event.
func NotificationDelete(ctx context.Context, tx pgx.Tx, n Notification) error {
	tag, err := tx.Exec(ctx, `DELETE FROM notifications WHERE id = $1`, n.ID)
	if err != nil {
		return err
	}
	if tag.RowsAffected() == 0 {
		return errcode.New(errcode.NotFound, "no notification %s", n.ID)
	}
	err = EventInsert(ctx, tx, EventNotificationDeleted, n.audience(), NotificationView{ID: n.ID, UserID: n.View().UserID, IsGlobal: n.IsGlobal()})
	return err
}

// NotificationDeleteAllOf deletes every notification owned by user id (not
// the global ones) and writes one notification.cleared event. It returns
// how many it deleted.
func NotificationDeleteAllOf(ctx context.Context, tx pgx.Tx, id string) (int64, error) {
	tag, err := tx.Exec(ctx, `DELETE FROM notifications WHERE user_id = $1`, id)
	if err != nil {
		return 0, err
	}
	err = EventInsert(ctx, tx, EventNotificationCleared, Audience{UserID: id},
		map[string]any{"user_id": id, "deleted": tag.RowsAffected()})
	return tag.RowsAffected(), err
}
