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
// list to be read from what it found, in any order, and to be read span by
// span in creation or score order, until restore is called.
func SetSearchExactly(n int) (restore func()) {
	exactly, spans := searchExactly, searchSpans
	searchExactly, searchSpans = n, n
	return func() { searchExactly, searchSpans = exactly, spans }
}

// SetSearchSpans sets how many tasks a search by words in creation or score
// order may find for its list to be read from what it found rather than
// span by span, and how many a span may hold, until restore is called.
func SetSearchSpans(n int) (restore func()) {
	spans := searchSpans
	searchSpans = n
	return func() { searchSpans = spans }
}
