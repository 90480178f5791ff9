package db

import (
	"cmp"
	"context"
	"slices"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/auditd/auditd/visibility"
)

// AnalystsFilter selects the analysts' work a report counts: the analyst
// revisions and the validations made in [From, To), of the tasks of
// CampaignID when it is set.
type AnalystsFilter struct {
	From, To   time.Time
	CampaignID string
	// Viewer is whose report it is: the work on a task whose audit is
	// hidden from them (visibility.Viewer.AuditHidden: an analyst
	// calibrating it blind) counts as none, for it tells that the audit was
	// edited or validated. The zero Viewer hides nothing.
	Viewer visibility.Viewer
}

// Analysts is what the analysts did in a period: each one's work, most
// audits reviewed first, and everyone's together (an audit two analysts
// reviewed counts once in Reviewed, twice in the median).
type Analysts struct {
	Analysts []AnalystWork
	Total    Productivity
}

// AnalystWork is one analyst's work: their user id, display name (else
// username) and productivity.
type AnalystWork struct {
	AnalystID string
	Name      string
	Productivity
}

// Productivity counts audits reviewed (distinct tasks with an analyst
// revision), edits (analyst revisions) and validations, and how long
// audits waited for their review.
//
// An analyst's review of an audit starts when the task was first audited
// (its audited_at) and ends at the analyst's first action on it: their
// first revision of it or their validation of it, whichever came first.
// It counts in the period where that first action lies.
type Productivity struct {
	Reviewed    int64
	Edits       int64
	Validations int64
	// MedianReviewSeconds is the median of the reviews whose first action
	// lies in the period (the mean of the two middle ones for an even
	// count); nil when none does. Timed is how many reviews it is taken
	// over.
	MedianReviewSeconds *float64
	Timed               int64
}

// StatsAnalysts counts what each analyst did in f's period, from the log
// of their revisions and validations (analyst_actions, migration 00025).
func StatsAnalysts(ctx context.Context, q DBTX, f AnalystsFilter) (Analysts, error) {
	args := []any{f.From, f.To}
	where := ""
	if f.CampaignID != "" {
		args = append(args, f.CampaignID)
		where = " AND a.campaign_id = $3::uuid"
	}
	if f.Viewer.HidesAny() {
		where += " AND NOT EXISTS (SELECT 1 FROM tasks t WHERE t.uuid = a.task_uuid AND " + f.Viewer.AuditHiddenSQL("t") + ")"
	}
	// Of an analyst's actions on a task, only the first has a review time.
	rows, err := q.Query(ctx, `
		SELECT GROUPING(a.analyst_id) = 1, COALESCE(a.analyst_id, ''),
			COALESCE((SELECT COALESCE(NULLIF(u.name, ''), NULLIF(u.username, ''), u.id) FROM users u WHERE u.id = a.analyst_id), ''),
			count(DISTINCT a.task_uuid) FILTER (WHERE a.edit), count(*) FILTER (WHERE a.edit), count(*) FILTER (WHERE NOT a.edit),
			percentile_cont(0.5) WITHIN GROUP (ORDER BY a.review_seconds), count(a.review_seconds)
		FROM analyst_actions a
		WHERE a.at >= $1 AND a.at < $2`+where+`
		GROUP BY GROUPING SETS ((a.analyst_id), ())`, args...)
	if err != nil {
		return Analysts{}, err
	}
	out := Analysts{Analysts: []AnalystWork{}}
	var total bool
	var a AnalystWork
	_, err = pgx.ForEachRow(rows, []any{&total, &a.AnalystID, &a.Name, &a.Reviewed, &a.Edits, &a.Validations,
		&a.MedianReviewSeconds, &a.Timed}, func() error {
		if total {
			out.Total = a.Productivity
		} else {
			out.Analysts = append(out.Analysts, a)
		}
		a.MedianReviewSeconds = nil // a new one for the next row
		return nil
	})
	slices.SortFunc(out.Analysts, func(a, b AnalystWork) int {
		return cmp.Or(cmp.Compare(b.Reviewed, a.Reviewed), cmp.Compare(b.Validations, a.Validations),
			cmp.Compare(b.Edits, a.Edits), strings.Compare(a.AnalystID, b.AnalystID))
	})
	return out, err
}
