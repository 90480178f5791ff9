package db

import (
	"context"

	"github.com/jackc/pgx/v5/pgxpool"
)

// MigrateSchemaTo applies the application's migrations up to version and
// no further, leaving the database as an older build left it: tests of a
// migration's backfill write rows in that schema, then Migrate.
func MigrateSchemaTo(ctx context.Context, pool *pgxpool.Pool, version int64) error {
	app, closeApp, err := appMigrator(pool)
	if err != nil {
		return err
	}
	defer closeApp()
	_, err = app.UpTo(ctx, version)
	return err
}

// SetSearchExactly sets how many tasks a search by words may find for its
// list to be read from what it found, until restore is called.
func SetSearchExactly(n int) (restore func()) {
	old := searchExactly
	searchExactly = n
	return func() { searchExactly = old }
}
