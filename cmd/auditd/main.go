// Command auditd is the audit service: API processes (serve), worker
// processes (work), both at once (all), schema migrations (migrate) and
// development tokens (token).
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/auditd/auditd/api"
	"github.com/auditd/auditd/config"
	"github.com/auditd/auditd/db"
)

const usage = `usage: auditd <command> [flags]

commands:
  serve     serve the HTTP API (inserts jobs, never works them)
  work      work background jobs
  all       migrate, then serve the API and work jobs in one process
  migrate   apply the database migrations (application schema and River)
  token     mint an access token from the development issuer (AUTH_DEV=true)
  upload    upload recordings and chat transcripts through the API, with progress bars
  tasks     list tasks through the API as a table
  export    export tasks with their audits through the API as CSV or XLSX
  jobs      list, show, retry or cancel background jobs through the admin API
  openapi   print the API's OpenAPI document (what GET /openapi.json serves)

Configuration comes from the environment; see docs/configuration.md.
`

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Getenv, os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "auditd:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		fmt.Fprint(stdout, usage)
		return nil
	}
	err := dispatch(ctx, args[0], args[1:], getenv, stdout, stderr)
	if errors.Is(err, flag.ErrHelp) {
		return nil // -h asked for a command's flags, which its flag set printed
	}
	return err
}

func dispatch(ctx context.Context, cmd string, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	switch cmd {
	case "serve", "work", "all":
		fs := flag.NewFlagSet(cmd, flag.ContinueOnError)
		fs.SetOutput(stderr)
		if err := fs.Parse(args); err != nil {
			return err
		}
		cfg, err := config.FromEnv(getenv)
		if err != nil {
			return err
		}
		m := &Main{Config: cfg, Serve: cmd != "work", Work: cmd != "serve", Migrate: cmd == "all", Stderr: stderr}
		return m.Run(ctx)
	case "migrate":
		cfg, err := config.FromEnv(getenv)
		if err != nil {
			return err
		}
		pool, err := db.Open(ctx, cfg.DatabaseURL, cfg.DatabaseTimeout)
		if err != nil {
			return err
		}
		defer pool.Close()
		if err := db.Migrate(ctx, pool); err != nil {
			return err
		}
		fmt.Fprintln(stdout, "migrations applied")
		return nil
	case "token":
		return tokenCommand(ctx, args, getenv, stdout, stderr)
	case "openapi":
		return openapiCommand(stdout)
	case "upload":
		return uploadCommand(ctx, args, getenv, stdout, stderr)
	case "jobs":
		return jobsCommand(ctx, args, getenv, stdout, stderr)
	case "tasks":
		return tasksCommand(ctx, args, getenv, stdout, stderr)
	case "export":
		return exportCommand(ctx, args, getenv, stdout, stderr)
	}
	return fmt.Errorf("unknown command %q\n%s", cmd, usage)
}

// openapiCommand prints the OpenAPI document as the API serves it, with no
// database: the dashboard's API types are generated from it at build time.
func openapiCommand(stdout io.Writer) error {
	rec := httptest.NewRecorder()
	api.New(api.Options{Logger: slog.New(slog.DiscardHandler)}).ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/openapi.json", nil))
	if rec.Code != http.StatusOK {
		return fmt.Errorf("openapi: %d %s", rec.Code, rec.Body)
	}
	_, err := stdout.Write(rec.Body.Bytes())
	return err
}

func tokenCommand(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("token", flag.ContinueOnError)
	fs.SetOutput(stderr)
	user := fs.String("user", "dev", "username (preferred_username)")
	sub := fs.String("sub", "", "subject (user id); defaults to the username")
	roles := fs.String("roles", "admin", "comma-separated roles: admin, supervisor, quality, operator")
	email := fs.String("email", "", "e-mail address; defaults to USER@example.test")
	name := fs.String("name", "", "display name; defaults to the username")
	ttl := fs.Duration("ttl", 12*time.Hour, "validity")
	if err := fs.Parse(args); err != nil {
		return err
	}
	cfg, err := config.FromEnv(getenv)
	if err != nil {
		return err
	}
	if !cfg.AuthDev {
		return errors.New("AUTH_DEV: `auditd token` mints tokens of the development issuer, which runs only with AUTH_DEV=true; with a real identity provider, get tokens from it")
	}
	if *ttl <= 0 {
		return errors.New("-ttl must be positive")
	}
	pool, err := db.Open(ctx, cfg.DatabaseURL, cfg.DatabaseTimeout)
	if err != nil {
		return err
	}
	defer pool.Close()
	issuer, err := api.NewDevIssuer(ctx, pool, cfg.DevIssuerURL(), cfg.OIDCAudience)
	if err != nil {
		return err
	}
	claims := api.DevClaims{Subject: *sub, Username: *user, Email: *email, Name: *name, TTL: *ttl}
	for r := range strings.SplitSeq(*roles, ",") {
		if r = strings.TrimSpace(r); r != "" {
			claims.Roles = append(claims.Roles, r)
		}
	}
	tok, err := issuer.Mint(claims)
	if err != nil {
		return err
	}
	fmt.Fprintln(stdout, tok)
	return nil
}
