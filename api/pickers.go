package api

import (
	"context"
	"fmt"
	"net/http"
	"slices"

	"github.com/danielgtaylor/huma/v2"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/auditd/auditd/db"
	"github.com/auditd/auditd/role"
)

// pickersResource answers the dashboard's pickers: users by name and
// criteria by question, for the filters and forms that take their ids.
type pickersResource struct {
	pool *pgxpool.Pool
}

func (p *pickersResource) register(api huma.API) {
	op := operation(http.MethodGet, "/users/names", "list-user-names", "Find users by name", role.Quality, http.StatusBadRequest)
	op.Description += " Each user's id, username, display name and highest role, by username: what a picker shows to " +
		"choose an agent, a validator or an assignee. `q` keeps the users whose username, e-mail or name contains it " +
		"(ignoring case); `id` (repeated) keeps the users with those ids, to name the ids a filter already holds. " +
		"Nothing else of a user (e-mail, roles, activity) is shown: that is the admins' GET /users."
	op.Tags = []string{"users"}
	huma.Register(api, op, p.userNames)

	op = operation(http.MethodGet, "/criteria", "list-criteria", "List the criteria of the published scorecards", role.Operator,
		http.StatusBadRequest)
	op.Description += " Each criterion of the campaigns' current scorecards once, by its id (a criterion keeps its id across " +
		"versions and campaigns), with its question in `lang` (its translation, else its own words) and the campaigns " +
		"whose scorecard has it; in scorecard order, the campaigns by name. What a picker shows to choose a failed " +
		"criterion by its question."
	op.Tags = []string{"campaigns"}
	huma.Register(api, op, p.criteria)
}

// UserName is what anyone who filters by a user may see of them.
type UserName struct {
	ID       string `json:"id" doc:"The user's id (the identity provider's subject)"`
	Username string `json:"username"`
	Name     string `json:"name" doc:"The display name; empty when the directory has none"`
	Role     string `json:"role" enum:"admin,supervisor,quality,operator,none" doc:"The highest known role"`
	Active   bool   `json:"active" doc:"False once the user is deactivated"`
}

// UserNames is a page of users found by name.
type UserNames struct {
	Items []UserName `json:"items"`
	Total int        `json:"total" doc:"Users matching, beyond those listed when more than limit do"`
}

// maxUserIDs is how many ids GET /users/names names at once.
const maxUserIDs = 50

type userNamesInput struct {
	Q     string   `query:"q" maxLength:"255" doc:"Only users whose username, e-mail or name contains this, ignoring case"`
	ID    []string `query:"id,explode" doc:"Only the users with these ids (repeat the parameter), at most 50"`
	Limit int      `query:"limit" minimum:"1" maximum:"50" default:"20" doc:"How many users at most"`
}

func (p *pickersResource) userNames(ctx context.Context, in *userNamesInput) (*Output[UserNames], error) {
	// Huma does not check maxItems of a query parameter.
	if len(in.ID) > maxUserIDs {
		msg := fmt.Sprintf("at most %d ids", maxUserIDs)
		return nil, Errorf(CodeValidation, msg).WithDetail("query.id", msg, len(in.ID))
	}
	f := db.UserFilter{Query: in.Q, Limit: in.Limit}
	if len(in.ID) > 0 {
		f.IDs = in.ID
	}
	users, total, err := db.UserList(ctx, p.pool, f)
	if err != nil {
		return nil, err
	}
	out := UserNames{Items: make([]UserName, len(users)), Total: total}
	for i, u := range users {
		out.Items[i] = UserName{ID: u.ID, Username: u.Username, Name: u.Name, Role: role.Highest(u.Roles).String(), Active: u.Active}
	}
	return ok(out), nil
}

// CriterionName is a criterion as a picker shows it.
type CriterionName struct {
	ID        string   `json:"id" doc:"The criterion's id: what the task list's failed_criterion filter takes"`
	Category  string   `json:"category"`
	Question  string   `json:"question" doc:"Its question in lang, from the first campaign (by name) whose scorecard has it"`
	Campaigns []string `json:"campaigns" doc:"The names of the campaigns whose current scorecard has it"`
}

type criteriaInput struct {
	Campaign string `query:"campaign" maxLength:"200" doc:"Only the criteria of this campaign's scorecard (its name)"`
	Lang     string `query:"lang" maxLength:"35" doc:"The language of the questions (BCP 47); the caller's locale when absent"`
}

func (p *pickersResource) criteria(ctx context.Context, in *criteriaInput) (*Output[[]CriterionName], error) {
	cards, err := db.ScorecardsCurrent(ctx, p.pool)
	if err != nil {
		return nil, err
	}
	lang := in.Lang
	if lang == "" {
		lang = principal(ctx).User.Locale
	}
	out := []CriterionName{}
	at := map[string]int{}
	for _, card := range cards {
		if in.Campaign != "" && card.Campaign != in.Campaign {
			continue
		}
		for _, c := range card.Criteria {
			i, seen := at[c.ID]
			if !seen {
				at[c.ID] = len(out)
				out = append(out, CriterionName{ID: c.ID, Category: c.Category, Question: c.In(lang).Question})
				i = len(out) - 1
			}
			if !slices.Contains(out[i].Campaigns, card.Campaign) {
				out[i].Campaigns = append(out[i].Campaigns, card.Campaign)
			}
		}
	}
	return ok(out), nil
}
