package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"text/tabwriter"
	"time"
)

// jobRow is a job as the admin API shows it.
type jobRow struct {
	ID          int64  `json:"id"`
	Kind        string `json:"kind"`
	State       string `json:"state"`
	Queue       string `json:"queue"`
	Attempt     int    `json:"attempt"`
	MaxAttempts int    `json:"max_attempts"`
	Errors      []struct {
		Error string `json:"error"`
	} `json:"errors"`
	CreatedAt time.Time `json:"created_at"`
}

const jobsUsage = `usage: auditd jobs list [--kind K] [--state S] [--queue Q] [--limit N] [--cursor C]
       auditd jobs show|retry|cancel ID`

// jobsCommand inspects and steers background jobs through the admin API.
func jobsCommand(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		return errors.New(jobsUsage)
	}
	verb, args := args[0], args[1:]
	fs := flag.NewFlagSet("jobs "+verb, flag.ContinueOnError)
	fs.SetOutput(stderr)
	server, token := clientFlags(fs, getenv)
	kind := fs.String("kind", "", "only these kinds (comma-separated)")
	state := fs.String("state", "", "only these states (comma-separated): available, running, retryable, scheduled, completed, cancelled, discarded")
	queue := fs.String("queue", "", "only these queues (comma-separated)")
	limit := fs.Int("limit", 50, "jobs per page (1..500)")
	cursor := fs.String("cursor", "", "continue after a previous page")
	if err := fs.Parse(args); err != nil {
		return err
	}
	c, err := newAPIClient(*server, *token)
	if err != nil {
		return err
	}
	switch verb {
	case "list":
		q := url.Values{"limit": {strconv.Itoa(*limit)}}
		for k, v := range map[string]string{"kind": *kind, "state": *state, "queue": *queue, "cursor": *cursor} {
			if v != "" {
				q.Set(k, v)
			}
		}
		var page struct {
			Items []jobRow `json:"items"`
			Next  string   `json:"next"`
		}
		if err := c.call(ctx, http.MethodGet, "/admin/jobs?"+q.Encode(), &page); err != nil {
			return err
		}
		tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "ID\tKIND\tSTATE\tQUEUE\tATTEMPT\tCREATED\tLAST ERROR")
		for _, j := range page.Items {
			last := "-"
			if n := len(j.Errors); n > 0 {
				last = j.Errors[n-1].Error
			}
			fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%d/%d\t%s\t%s\n", j.ID, j.Kind, j.State, j.Queue, j.Attempt, j.MaxAttempts,
				j.CreatedAt.Local().Format("2006-01-02 15:04:05"), last)
		}
		if err := tw.Flush(); err != nil {
			return err
		}
		if page.Next != "" {
			fmt.Fprintf(stderr, "more: auditd jobs list --cursor %s (with the same filters)\n", page.Next)
		}
		return nil
	case "show", "retry", "cancel":
		if fs.NArg() != 1 {
			return errors.New(jobsUsage)
		}
		id, err := strconv.ParseInt(fs.Arg(0), 10, 64)
		if err != nil || id < 1 {
			return fmt.Errorf("%q is not a job id", fs.Arg(0))
		}
		method, path := http.MethodPost, fmt.Sprintf("/admin/jobs/%d/%s", id, verb)
		if verb == "show" {
			method, path = http.MethodGet, fmt.Sprintf("/admin/jobs/%d", id)
		}
		var job json.RawMessage
		if err := c.call(ctx, method, path, &job); err != nil {
			return err
		}
		out, err := json.MarshalIndent(job, "", "  ")
		if err != nil {
			return err
		}
		fmt.Fprintln(stdout, string(out))
		return nil
	}
	return errors.New(jobsUsage)
}
