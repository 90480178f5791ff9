package db_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/auditd/auditd/db"
	"github.com/auditd/auditd/db/dbtest"
	"github.com/auditd/auditd/scoring"
)

// TestMigrateUpgradesTheUneditedDefaultScorecard: a database seeded by an
// older build gets today's default as a new version of the default
// campaign's scorecard, only where nobody published one, and only once.
func TestMigrateUpgradesTheUneditedDefaultScorecard(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := dbtest.Pool(t)
	old := []scoring.Criterion{{ID: "greeting", Category: "OPENING", Question: "¿Saludó?", Weight: 10,
		AppliesTo: scoring.Both, Rule: json.RawMessage(`{"any": ["hola"]}`)}}
	raw, err := json.Marshal(old)
	require.NoError(t, err)
	// As an older build seeded it.
	_, err = pool.Exec(ctx, `UPDATE scorecards SET criteria = $1 FROM campaigns c
		WHERE c.id = scorecards.campaign_id AND c.name = 'default'`, raw)
	require.NoError(t, err)
	// A campaign whose supervisor published the old default as version 2.
	var edited string
	require.NoError(t, pool.QueryRow(ctx, `INSERT INTO campaigns (name, language) VALUES ('edited', 'en') RETURNING id`).Scan(&edited))
	_, err = pool.Exec(ctx, `INSERT INTO scorecards (campaign_id, version, criteria, published_by)
		VALUES ($1, 1, $2, 'system'), ($1, 2, $2, 'ana')`, edited, raw)
	require.NoError(t, err)
	// A campaign created without a scorecard gets one in its language.
	var fresh string
	require.NoError(t, pool.QueryRow(ctx, `INSERT INTO campaigns (name, language) VALUES ('fresh', 'en') RETURNING id`).Scan(&fresh))

	for range 2 { // the second run changes nothing
		require.NoError(t, db.Migrate(ctx, pool))
	}

	var def string
	require.NoError(t, pool.QueryRow(ctx, `SELECT id FROM campaigns WHERE name = 'default'`).Scan(&def))
	spanish, err := scoring.DefaultScorecard("es")
	require.NoError(t, err)
	english, err := scoring.DefaultScorecard("en")
	require.NoError(t, err)
	versions := func(id string) []db.ScorecardInfo {
		vs, err := db.ScorecardVersions(ctx, pool, id)
		require.NoError(t, err)
		return vs
	}
	current := func(id string) db.Scorecard {
		c, err := db.ScorecardCurrent(ctx, pool, id)
		require.NoError(t, err)
		return c
	}
	require.Len(t, versions(def), 2)
	require.Equal(t, "system", current(def).PublishedBy)
	require.Equal(t, spanish.Criteria[0].Question, current(def).Criteria[0].Question)
	require.Len(t, current(def).Criteria, len(spanish.Criteria))

	require.Len(t, versions(edited), 2, "an edited scorecard is kept")
	require.Equal(t, "¿Saludó?", current(edited).Criteria[0].Question)

	require.Len(t, versions(fresh), 1)
	require.Equal(t, english.Criteria[0].Question, current(fresh).Criteria[0].Question)

	// A later build with another default upgrades a scorecard the system
	// upgraded before, again as a new version.
	_, err = pool.Exec(ctx, `UPDATE scorecards SET criteria = $1 WHERE campaign_id = $2 AND version = 2`, raw, def)
	require.NoError(t, err)
	require.NoError(t, db.Migrate(ctx, pool))
	require.Len(t, versions(def), 3)
	require.Equal(t, "system", current(def).PublishedBy)
	require.Equal(t, spanish.Criteria[0].Question, current(def).Criteria[0].Question)
	require.Len(t, versions(edited), 2)
}
