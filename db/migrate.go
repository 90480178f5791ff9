package db

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/jackc/pgx/v5/stdlib"
	"github.com/pressly/goose/v3"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"
	"github.com/riverqueue/river/rivermigrate"

	"github.com/auditd/auditd/migrations"
)

// migrateLockID is the advisory lock that serialises migrations when several
// processes start at once.
const migrateLockID = 0x61756469 // "audi"

// Migrate applies every pending migration: the application schema (goose,
// embedded SQL) and River's tables (rivermigrate). Running it again is a
// no-op. Concurrent callers wait for each other on an advisory lock.
func Migrate(ctx context.Context, pool *pgxpool.Pool) error {
	conn, err := pool.Acquire(ctx)
	if err != nil {
		return fmt.Errorf("migrate: %w", err)
	}
	defer conn.Release()
	if _, err := conn.Exec(ctx, "SELECT pg_advisory_lock($1)", migrateLockID); err != nil {
		return fmt.Errorf("migrate: lock: %w", err)
	}
	defer conn.Exec(context.WithoutCancel(ctx), "SELECT pg_advisory_unlock($1)", migrateLockID) //nolint:errcheck // released with the session anyway

	river, err := rivermigrate.New(riverpgxv5.New(pool), nil)
	if err != nil {
		return fmt.Errorf("migrate river: %w", err)
	}
	if _, err := river.Migrate(ctx, rivermigrate.DirectionUp, nil); err != nil {
		return fmt.Errorf("migrate river: %w", err)
	}
	app, closeApp, err := appMigrator(pool)
	if err != nil {
		return err
	}
	defer closeApp()
	if _, err := app.Up(ctx); err != nil {
		return fmt.Errorf("migrate schema: %w", err)
	}
	// Data the schema cannot hold literally: the default scorecard lives in
	// package scoring, its one source.
	if err := scorecardSeedDefault(ctx, pool); err != nil {
		return fmt.Errorf("seed the default scorecard: %w", err)
	}
	return nil
}

// MigrationsPending reports whether the database lacks any migration this
// binary knows, of either the application schema or River.
func MigrationsPending(ctx context.Context, pool *pgxpool.Pool) (bool, error) {
	river, err := rivermigrate.New(riverpgxv5.New(pool), nil)
	if err != nil {
		return false, err
	}
	existing, err := river.ExistingVersions(ctx)
	if err != nil {
		return false, err
	}
	if len(existing) < len(river.AllVersions()) {
		return true, nil
	}
	app, closeApp, err := appMigrator(pool)
	if err != nil {
		return false, err
	}
	defer closeApp()
	return app.HasPending(ctx)
}

func appMigrator(pool *pgxpool.Pool) (*goose.Provider, func(), error) {
	sqlDB := stdlib.OpenDBFromPool(pool)
	p, err := goose.NewProvider(goose.DialectPostgres, sqlDB, migrations.FS)
	if err != nil {
		sqlDB.Close()
		return nil, nil, fmt.Errorf("migrate schema: %w", err)
	}
	return p, func() { sqlDB.Close() }, nil
}
