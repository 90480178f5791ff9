package db

import (
	"context"
	"errors"

	"github.com/jackc/pgx/v5"
)

// DevSigningKeyEnsure stores pem as the development issuer's key named id
// unless one is stored already, and returns the stored one. Concurrent
// callers all get the same key.
func DevSigningKeyEnsure(ctx context.Context, q DBTX, id, pem string) (string, error) {
	// A concurrent insert committed after this statement's snapshot is
	// invisible to its SELECT, so a second statement sees it.
	var stored string
	var err error
	for range 2 {
		err = q.QueryRow(ctx, `
		WITH ins AS (
			INSERT INTO dev_signing_keys (id, private_key_pem) VALUES ($1, $2)
			ON CONFLICT (id) DO NOTHING
			RETURNING private_key_pem
		)
		SELECT private_key_pem FROM ins
		UNION ALL
		SELECT private_key_pem FROM dev_signing_keys WHERE id = $1
		LIMIT 1`, id, pem).Scan(&stored)
		if !errors.Is(err, pgx.ErrNoRows) {
			break
		}
	}
	return stored, err
}
