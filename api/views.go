package api

import (
	"context"
	"net/http"
	"strings"
	"time"
	"unicode"

	"github.com/danielgtaylor/huma/v2"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/auditd/auditd/db"
	"github.com/auditd/auditd/role"
)

// maxViews is the most saved views a user may keep.
const maxViews = 50

// viewsResource is each user's saved views of the task list: its filters
// and sort under a name, theirs alone.
type viewsResource struct {
	pool *pgxpool.Pool
	// query reads a view's query by the rules of GET /tasks.
	query *taskQuery
}

func (v *viewsResource) register(api huma.API) {
	v.query = newTaskQuery(api.OpenAPI().Components.Schemas, "a view", false)
	tag := []string{"views"}
	mine := " Each user sees and changes only their own views; another user's view answers 404 exactly like a missing one."

	op := operation(http.MethodGet, "/views", "list-views", "List your saved views of the task list", role.None)
	op.Description += " The caller's views, by name." + mine
	op.Tags = tag
	huma.Register(api, op, v.list)

	op = operation(http.MethodPost, "/views", "create-view", "Save a view of the task list", role.None, http.StatusBadRequest, http.StatusConflict)
	op.Description += " `query` is the task list's query string (as `GET /tasks` and the dashboard's address take it), " +
		"checked by the rules of `GET /tasks` and stricter: an unknown or repeated parameter is refused, and so are " +
		"`cursor`, `skip` and `limit`, which place a page rather than choose tasks. It is stored canonically: the " +
		"parameters in the list's order, empty ones and defaults left out. `name` is trimmed, 1 to 80 characters " +
		"without control characters, unique among the caller's views ignoring case (409 CONFLICT otherwise). " +
		"A user keeps at most 50 views (409 CONFLICT beyond)." + mine
	op.DefaultStatus = http.StatusCreated
	op.Tags = tag
	huma.Register(api, op, v.create)

	op = operation(http.MethodGet, "/views/{id}", "get-view", "Get one of your saved views", role.None,
		http.StatusBadRequest, http.StatusNotFound)
	op.Description += mine
	op.Tags = tag
	huma.Register(api, op, v.get)

	op = operation(http.MethodPatch, "/views/{id}", "update-view", "Rename a saved view or replace its query", role.None,
		http.StatusBadRequest, http.StatusNotFound, http.StatusConflict)
	op.Description += " Send `name`, `query` or both; each is checked as when the view is saved." + mine
	op.Tags = tag
	huma.Register(api, op, v.update)

	op = operation(http.MethodDelete, "/views/{id}", "delete-view", "Delete a saved view", role.None,
		http.StatusBadRequest, http.StatusNotFound)
	op.Description += " Answers the view as it was." + mine
	op.Tags = tag
	huma.Register(api, op, v.delete)
}

// SavedView is a task list's query a user keeps under a name.
type SavedView struct {
	ID        string    `json:"id" format:"uuid"`
	Name      string    `json:"name" doc:"The view's name, unique among the user's views ignoring case"`
	Query     string    `json:"query" doc:"The task list's query string, canonical: its parameters in the list's order, defaults left out" example:"status=audited&operator=ana&sort=score&order=asc"`
	CreatedAt time.Time `json:"created_at"`
	UpdatedAt time.Time `json:"updated_at"`
}

// savedViewOf is v as the API shows it.
func savedViewOf(v db.SavedView) SavedView {
	return SavedView{ID: v.ID, Name: v.Name, Query: v.Query, CreatedAt: v.CreatedAt, UpdatedAt: v.UpdatedAt}
}

// ViewList is the caller's saved views.
type ViewList struct {
	Items []SavedView `json:"items" doc:"The caller's views, by name"`
	Max   int         `json:"max" doc:"The most views a user may keep"`
}

func (v *viewsResource) list(ctx context.Context, _ *struct{}) (*Output[ViewList], error) {
	views, err := db.SavedViewList(ctx, v.pool, principal(ctx).User.ID)
	if err != nil {
		return nil, err
	}
	items := make([]SavedView, len(views))
	for i, view := range views {
		items[i] = savedViewOf(view)
	}
	return ok(ViewList{Items: items, Max: maxViews}), nil
}

type createViewInput struct {
	Body struct {
		Name  string `json:"name" minLength:"1" maxLength:"80" doc:"The view's name: trimmed, 1 to 80 characters, no control characters; unique among your views ignoring case" example:"Failed this week"`
		Query string `json:"query" maxLength:"10000" doc:"The task list's query string; empty for the whole list, newest first" example:"status=audited&operator=ana&sort=score&order=asc"`
	}
}

// checkName checks the name of a thing of kind what (a view, a webhook
// subscription), sent in body.name, and returns it trimmed.
func checkName(what, name string) (string, error) {
	trimmed := strings.TrimSpace(name)
	switch {
	case trimmed == "":
		return "", Errorf(CodeValidation, "a "+what+"'s name cannot be blank").WithDetail("body.name", "blank once trimmed", nil)
	case strings.ContainsFunc(trimmed, unicode.IsControl):
		return "", Errorf(CodeValidation, "a "+what+"'s name cannot hold a control character (a tab, a line break…)").
			WithDetail("body.name", "holds a control character", nil)
	}
	return trimmed, nil
}

func (v *viewsResource) create(ctx context.Context, in *createViewInput) (*Output[SavedView], error) {
	name, err := checkName("view", in.Body.Name)
	if err != nil {
		return nil, err
	}
	_, query, err := v.query.canonical(ctx, v.pool, "body.query", in.Body.Query)
	if err != nil {
		return nil, err
	}
	var created db.SavedView
	err = pgx.BeginFunc(ctx, v.pool, func(tx pgx.Tx) (err error) {
		created, err = db.SavedViewCreate(ctx, tx, principal(ctx).User.ID, name, query, maxViews)
		return err
	})
	if err != nil {
		return nil, err
	}
	return ok(savedViewOf(created)), nil
}

type viewIDInput struct {
	ID string `path:"id" format:"uuid" doc:"The view's id"`
}

func (v *viewsResource) get(ctx context.Context, in *viewIDInput) (*Output[SavedView], error) {
	view, err := db.SavedViewGet(ctx, v.pool, principal(ctx).User.ID, in.ID)
	if err != nil {
		return nil, err
	}
	return ok(savedViewOf(view)), nil
}

type updateViewInput struct {
	ID   string `path:"id" format:"uuid" doc:"The view's id"`
	Body struct {
		Name  *string `json:"name,omitempty" minLength:"1" maxLength:"80" doc:"A new name, checked as when saved"`
		Query *string `json:"query,omitempty" maxLength:"10000" doc:"A new query string of the task list, checked as when saved"`
	}
}

func (v *viewsResource) update(ctx context.Context, in *updateViewInput) (*Output[SavedView], error) {
	// Someone else's view, or none, is NOT_FOUND whatever the body.
	if _, err := db.SavedViewGet(ctx, v.pool, principal(ctx).User.ID, in.ID); err != nil {
		return nil, err
	}
	b := in.Body
	if b.Name == nil && b.Query == nil {
		return nil, Errorf(CodeMissingFields, "send name, query or both").
			WithDetails([]*huma.ErrorDetail{{Location: "body.name", Message: "name or query is required"},
				{Location: "body.query", Message: "name or query is required"}})
	}
	if b.Name != nil {
		name, err := checkName("view", *b.Name)
		if err != nil {
			return nil, err
		}
		b.Name = &name
	}
	if b.Query != nil {
		_, query, err := v.query.canonical(ctx, v.pool, "body.query", *b.Query)
		if err != nil {
			return nil, err
		}
		b.Query = &query
	}
	view, err := db.SavedViewUpdate(ctx, v.pool, principal(ctx).User.ID, in.ID, b.Name, b.Query)
	if err != nil {
		return nil, err
	}
	return ok(savedViewOf(view)), nil
}

func (v *viewsResource) delete(ctx context.Context, in *viewIDInput) (*Output[SavedView], error) {
	view, err := db.SavedViewDelete(ctx, v.pool, principal(ctx).User.ID, in.ID)
	if err != nil {
		return nil, err
	}
	return ok(savedViewOf(view)), nil
}
