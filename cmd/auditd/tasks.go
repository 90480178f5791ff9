package main

import (
	"cmp"
	"context"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"text/tabwriter"
	"time"
)

// taskRow is a task as `auditd tasks` lists it.
type taskRow struct {
	UUID       string    `json:"uuid"`
	Kind       string    `json:"kind"`
	Status     string    `json:"status"`
	FileName   string    `json:"file_name"`
	Campaign   string    `json:"campaign"`
	OperatorID string    `json:"operator_id"`
	Error      string    `json:"error"`
	CreatedAt  time.Time `json:"created_at"`
}

// filterFlags adds the task list's filters to fs, by query parameter.
func filterFlags(fs *flag.FlagSet) map[string]*string {
	return map[string]*string{
		"status":           fs.String("status", "", "only this status: queued, transcribing, transcribed, auditing, audited, validated, failed"),
		"kind":             fs.String("kind", "", "only call or chat"),
		"campaign":         fs.String("campaign", "", "only this campaign"),
		"operator":         fs.String("operator", "", "only this agent (user id or username)"),
		"validated_by":     fs.String("validated-by", "", "only tasks this user validated (user id or username)"),
		"language":         fs.String("language", "", "only this language (es: every Spanish; es-MX)"),
		"from":             fs.String("from", "", "created at or after (RFC 3339 or YYYY-MM-DD)"),
		"to":               fs.String("to", "", "created before (RFC 3339 or YYYY-MM-DD)"),
		"q":                fs.String("q", "", `words said or written: "a phrase", prefix*, OR, -word`),
		"file_name":        fs.String("file-name", "", "file name contains"),
		"passed":           fs.String("passed", "", "only audits that passed (true) or not (false)"),
		"needs_review":     fs.String("needs-review", "", "only audits with items to review (true) or none (false)"),
		"min_score":        fs.String("min-score", "", "only audits scoring at least this"),
		"max_score":        fs.String("max-score", "", "only audits scoring at most this"),
		"failed_criterion": fs.String("failed-criterion", "", "only audits that found this criterion (its id) not met"),
		"assignee":         fs.String("assignee", "", "only tasks assigned to this analyst (user id or username)"),
	}
}

// query is the query string of the flags set.
func query(params map[string]*string) url.Values {
	q := url.Values{}
	for k, v := range params {
		if *v != "" {
			q.Set(k, *v)
		}
	}
	return q
}

// tasksCommand lists tasks through the API as a table.
func tasksCommand(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("tasks", flag.ContinueOnError)
	fs.SetOutput(stderr)
	server, token := clientFlags(fs, getenv)
	params := filterFlags(fs)
	params["sort"] = fs.String("sort", "created_at", "created_at, file_name or score")
	params["order"] = fs.String("order", "desc", "asc or desc")
	params["cursor"] = fs.String("cursor", "", "continue after a previous page")
	limit := fs.Int("limit", 50, "tasks per page (1..500)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	c, err := newAPIClient(*server, *token)
	if err != nil {
		return err
	}
	q := query(params)
	q.Set("limit", fmt.Sprint(*limit))
	var page struct {
		Tasks []taskRow `json:"tasks"`
		Total int64     `json:"total"`
		Next  string    `json:"next"`
	}
	if err := c.call(ctx, http.MethodGet, "/tasks?"+q.Encode(), &page); err != nil {
		return err
	}
	tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "UUID\tKIND\tSTATUS\tCAMPAIGN\tOPERATOR\tCREATED\tFILE")
	for _, t := range page.Tasks {
		status := t.Status
		if t.Error != "" {
			status += " (" + t.Error + ")"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\n", t.UUID, t.Kind, status, t.Campaign,
			cmp.Or(t.OperatorID, "-"), t.CreatedAt.Local().Format("2006-01-02 15:04"), t.FileName)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintf(stderr, "%d of %d tasks\n", len(page.Tasks), page.Total)
	if page.Next != "" {
		fmt.Fprintf(stderr, "more: auditd tasks --cursor %s (with the same filters)\n", page.Next)
	}
	return nil
}
