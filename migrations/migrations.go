// Package migrations embeds the application's SQL schema migrations.
//
// Files are named NNNNN_description.sql and use goose annotations
// (-- +goose Up / -- +goose Down). River's own tables are migrated separately
// by rivermigrate; see db.Migrate.
package migrations

import "embed"

// FS holds every migration file of the application schema.
//
//go:embed *.sql
var FS embed.FS
