// Package db holds the Postgres pool, the schema migrations runner and every
// SQL query of the service. Handlers and workers never write SQL themselves.
package db

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"slices"
	"strings"
	"time"

	"github.com/jackc/pgerrcode"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/auditd/auditd/errcode"
)

// DBTX is what queries need: a pool, a connection or a transaction.
type DBTX interface {
	Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error)
	Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
}

// Open connects a pool to url and checks that the database answers. A new
// connection that takes longer than connectTimeout fails (unless the URL
// sets connect_timeout). It returns an error naming DATABASE_URL when the
// URL cannot be parsed. Its sessions run without JIT compilation (unless
// the URL sets jit): the service's queries are short, and compiling one
// whose estimated cost passes jit_above_cost took longer (about 100 ms)
// than running it.
func Open(ctx context.Context, url string, connectTimeout time.Duration) (*pgxpool.Pool, error) {
	cfg, err := pgxpool.ParseConfig(url)
	if err != nil {
		return nil, fmt.Errorf("DATABASE_URL: %w", err)
	}
	if cfg.ConnConfig.ConnectTimeout == 0 {
		cfg.ConnConfig.ConnectTimeout = connectTimeout
	}
	if _, set := cfg.ConnConfig.RuntimeParams["jit"]; !set {
		cfg.ConnConfig.RuntimeParams["jit"] = "off"
	}
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("connect to database: %w", err)
	}
	if err := pool.Ping(ctx); err != nil {
		pool.Close()
		return nil, fmt.Errorf("connect to database: %w", err)
	}
	return pool, nil
}

// texts collects the rows of a one-column text query, passing on the
// query's error.
func texts(rows pgx.Rows, err error) ([]string, error) {
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, pgx.RowTo[string])
}

// keySet collects the rows of a one-column text query into a set.
func keySet(rows pgx.Rows, err error) (map[string]bool, error) {
	found, err := texts(rows, err)
	if err != nil {
		return nil, err
	}
	out := make(map[string]bool, len(found))
	for _, k := range found {
		out[k] = true
	}
	return out, nil
}

// nonNil returns s, or an empty slice for nil: stored as an empty array
// (SQL or JSON) rather than NULL.
func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

// likeEscaper makes a string match itself literally in a LIKE pattern
// (backslash is the default escape character).
var likeEscaper = strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`)

// one maps pgx.ErrNoRows, a row that does not exist, to a NotFound error
// whose message says what is missing as format and args say it; it is the
// only place that does.
func one(err error, format string, args ...any) error {
	if errors.Is(err, pgx.ErrNoRows) {
		return errcode.New(errcode.NotFound, format, args...)
	}
	return err
}

// unique turns a unique violation into a Conflict error saying message,
// the only place that does; other errors pass through.
func unique(err error, message string) error {
	if pg, ok := errors.AsType[*pgconn.PgError](err); ok && pg.Code == pgerrcode.UniqueViolation {
		return errcode.Wrap(errcode.Conflict, err, message)
	}
	return err
}

// Unavailable reports whether err means the database could not be reached:
// no connection, a broken one, or a server shutting down, starting up or
// restarting (SQLSTATE class 08, 57P01–57P03). Such an error is worth
// retrying shortly; it says nothing about the request.
func Unavailable(err error) bool {
	if pgErr, ok := errors.AsType[*pgconn.PgError](err); ok {
		return pgerrcode.IsConnectionException(pgErr.Code) || slices.Contains(
			[]string{pgerrcode.AdminShutdown, pgerrcode.CrashShutdown, pgerrcode.CannotConnectNow}, pgErr.Code)
	}
	var connectErr *pgconn.ConnectError
	var netErr net.Error
	return errors.As(err, &connectErr) || errors.As(err, &netErr) || errors.Is(err, io.ErrUnexpectedEOF) ||
		errors.Is(err, context.DeadlineExceeded) || pgconn.SafeToRetry(err) || pgconn.Timeout(err)
}
