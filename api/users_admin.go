package api

import (
	"context"
	"net/http"
	"time"

	"github.com/danielgtaylor/huma/v2"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"

	"github.com/auditd/auditd/db"
	"github.com/auditd/auditd/jobs"
	"github.com/auditd/auditd/role"
)

// usersAdminResource is what admins do with users: sync them from the
// directory and list them.
type usersAdminResource struct {
	pool  *pgxpool.Pool
	river *river.Client[pgx.Tx]
	// directory is the configured provider, "" for none.
	directory string
}

func (u *usersAdminResource) register(api huma.API) {
	tag := []string{"users"}
	op := operation(http.MethodPost, "/users/sync", "sync-users", "Sync users from the directory", role.Admin,
		http.StatusConflict)
	op.Description += " Starts a sync of every user of the directory (DIRECTORY_PROVIDER) in the background and answers 202 " +
		"with its job id. While a sync is queued or running, asking again returns that job (`duplicate: true`). " +
		"Users are created or updated by the subject their tokens carry; users the directory disables or no longer " +
		"lists are deactivated, never deleted. You are notified when the sync starts and how it ended. " +
		"409 CONFLICT when no directory is configured."
	op.DefaultStatus = http.StatusAccepted
	op.Tags = tag
	huma.Register(api, op, u.sync)

	op = operation(http.MethodGet, "/users", "list-users", "List users", role.Admin, http.StatusBadRequest)
	op.Description += " Ordered by username; filter by role, active state and a text contained in the username, e-mail or name."
	op.Tags = tag
	huma.Register(api, op, u.list)

	op = operation(http.MethodPost, "/admin/users/{id}/deactivation", "deactivate-user", "Deactivate a user", role.Admin,
		http.StatusNotFound, http.StatusConflict)
	op.Description += " From the next request the user's tokens are 401, their River UI sessions end and their event " +
		"streams close (within 10 s). The user is kept, with who deactivated them and when (the user list shows it); " +
		"a directory sync does not reactivate them. Deactivating a deactivated user changes nothing. An admin cannot " +
		"deactivate themselves (409)."
	op.Tags = tag
	huma.Register(api, op, u.deactivate)

	op = operation(http.MethodDelete, "/admin/users/{id}/deactivation", "reactivate-user", "Reactivate a user", role.Admin,
		http.StatusNotFound)
	op.Description += " Lifts a deactivation, an admin's or a directory sync's: the user's tokens work again."
	op.Tags = tag
	huma.Register(api, op, u.reactivate)
}

type userIDInput struct {
	ID string `path:"id" minLength:"1" maxLength:"255" doc:"The user's id (the identity provider's subject)"`
}

func (u *usersAdminResource) deactivate(ctx context.Context, in *userIDInput) (*Output[UserInfo], error) {
	p := principal(ctx)
	if in.ID == p.User.ID {
		return nil, Errorf(CodeConflict, "you cannot deactivate yourself; ask another admin").
			WithDetail("path.id", "is you", in.ID)
	}
	user, err := db.UserDeactivate(ctx, u.pool, in.ID, p.User.ID, time.Now())
	if err != nil {
		return nil, err
	}
	return ok(userInfo(user)), nil
}

func (u *usersAdminResource) reactivate(ctx context.Context, in *userIDInput) (*Output[UserInfo], error) {
	user, err := db.UserReactivate(ctx, u.pool, in.ID, time.Now())
	if err != nil {
		return nil, err
	}
	return ok(userInfo(user)), nil
}

// SyncAccepted is the job a sync request started or joined.
type SyncAccepted struct {
	JobID     int64  `json:"job_id" doc:"The sync_users job; inspect it as any job"`
	Duplicate bool   `json:"duplicate" doc:"True when a sync was already queued or running and this is it"`
	Provider  string `json:"provider" doc:"The directory synced" enum:"keycloak,msgraph,scim"`
}

func (u *usersAdminResource) sync(ctx context.Context, _ *struct{}) (*Output[SyncAccepted], error) {
	if u.directory == "" {
		return nil, Errorf(CodeConflict, "no directory is configured to sync users from: set DIRECTORY_PROVIDER "+
			"(keycloak, msgraph or scim) and its DIRECTORY_* settings")
	}
	caller := principal(ctx).User.ID
	var res *rivertype.JobInsertResult
	err := pgx.BeginFunc(ctx, u.pool, func(tx pgx.Tx) (err error) {
		if res, err = u.river.InsertTx(ctx, tx, jobs.SyncUsersArgs{RequestedBy: caller}, nil); err != nil {
			return err
		}
		// Whoever asks is told the outcome, also when they joined a
		// sync someone else started.
		return db.UserSyncRequestAdd(ctx, tx, res.Job.ID, caller)
	})
	if err != nil {
		return nil, err
	}
	return accepted(SyncAccepted{JobID: res.Job.ID, Duplicate: res.UniqueSkippedAsDuplicate, Provider: u.directory}), nil
}

// UserPage is one page of users.
type UserPage struct {
	Items []UserInfo `json:"items"`
	Total int        `json:"total" doc:"Users matching the filter"`
	Skip  int        `json:"skip"`
	Limit int        `json:"limit"`
}

type listUsersInput struct {
	Skip   int    `query:"skip" minimum:"0" default:"0" doc:"Pagination offset"`
	Limit  int    `query:"limit" minimum:"1" maximum:"500" default:"100" doc:"Pagination limit"`
	Role   string `query:"role" maxLength:"255" doc:"Only users whose roles include this one, e.g. quality"`
	Active string `query:"active" enum:"true,false" doc:"Only active (true) or deactivated (false) users"`
	Q      string `query:"q" maxLength:"255" doc:"Only users whose username, e-mail or name contains this, ignoring case"`
}

func (u *usersAdminResource) list(ctx context.Context, in *listUsersInput) (*Output[UserPage], error) {
	f := db.UserFilter{Role: in.Role, Query: in.Q, Skip: in.Skip, Limit: in.Limit}
	if in.Active != "" {
		active := in.Active == "true"
		f.Active = &active
	}
	users, total, err := db.UserList(ctx, u.pool, f)
	if err != nil {
		return nil, err
	}
	page := UserPage{Items: make([]UserInfo, len(users)), Total: total, Skip: in.Skip, Limit: in.Limit}
	for i, user := range users {
		page.Items[i] = userInfo(user)
	}
	return ok(page), nil
}
