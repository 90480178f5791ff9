package db

import (
	"context"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/auditd/auditd/errcode"
	"github.com/auditd/auditd/role"
)

// Statuses of a calibration session.
const (
	CalibrationOpen   = "open"
	CalibrationClosed = "closed"
)

// EventCalibrationUpdated is the event type of a change of a calibration
// session (started, an analyst submitted, closed, calibrated, applied);
// its data is a CalibrationUpdate.
const EventCalibrationUpdated = "calibration.updated"

// CalibrationRef names a calibration session.
type CalibrationRef struct {
	ID   string
	Name string
}

// CalibrationSession is a calibration session with its counts, as its
// calibration.updated events carry it (stored JSON).
type CalibrationSession struct {
	ID            string     `json:"id"`
	Name          string     `json:"name"`
	CreatedBy     string     `json:"created_by"`
	CreatedByName string     `json:"created_by_name"`
	DueAt         *time.Time `json:"due_at,omitempty"`
	Status        string     `json:"status"`
	CreatedAt     time.Time  `json:"created_at"`
	ClosedAt      *time.Time `json:"closed_at,omitempty"`
	ClosedBy      string     `json:"closed_by,omitempty"`
	// Alpha and PercentAgreement are the session's overall figures, kept
	// when it closed.
	Alpha            *float64 `json:"alpha"`
	PercentAgreement *float64 `json:"percent_agreement"`
	Tasks            int      `json:"tasks"`
	Analysts         int      `json:"analysts"`
	Submitted        int      `json:"submitted"`
}

// CalibrationUpdate is what a calibration.updated event carries: the
// session's summary and what happened. It carries no answer.
type CalibrationUpdate struct {
	Session CalibrationSession `json:"session"`
	// Change is started, submitted, closed, calibrated or applied.
	Change string `json:"change"`
}

const calibrationSessionColumns = `s.id, s.name, s.created_by, COALESCE(NULLIF(u.name, ''), NULLIF(u.username, ''), s.created_by),
	s.due_at, s.status, s.created_at, s.closed_at, COALESCE(s.closed_by, ''), s.alpha, s.percent_agreement,
	(SELECT count(*) FROM calibration_session_tasks t WHERE t.session_id = s.id),
	(SELECT count(*) FROM calibration_session_analysts a WHERE a.session_id = s.id),
	(SELECT count(*) FROM calibration_session_analysts a WHERE a.session_id = s.id AND a.submitted_at IS NOT NULL)`

const calibrationSessionFrom = ` FROM calibration_sessions s LEFT JOIN users u ON u.id = s.created_by`

func scanCalibrationSession(row pgx.Row) (CalibrationSession, error) {
	var s CalibrationSession
	err := row.Scan(&s.ID, &s.Name, &s.CreatedBy, &s.CreatedByName, &s.DueAt, &s.Status, &s.CreatedAt, &s.ClosedAt,
		&s.ClosedBy, &s.Alpha, &s.PercentAgreement, &s.Tasks, &s.Analysts, &s.Submitted)
	return s, err
}

// calibrationMissing is what a session that does not exist, or that the
// caller is not in, is: the same NotFound.
func calibrationMissing(err error) error {
	return one(err, "no calibration session of yours has this id")
}

// CalibrationSessionNew is a session to create.
type CalibrationSessionNew struct {
	Name      string
	CreatedBy string
	DueAt     *time.Time
	Tasks     []CalibrationTaskNew
	// Analysts are user ids.
	Analysts []string
}

// CalibrationSessionCreate stores session n with its interactions, their
// criteria and its analysts, and returns it. Call it in the transaction
// that writes its events.
func CalibrationSessionCreate(ctx context.Context, tx pgx.Tx, n CalibrationSessionNew) (CalibrationSession, error) {
	var id string
	if err := tx.QueryRow(ctx, `INSERT INTO calibration_sessions (name, created_by, due_at) VALUES ($1, $2, $3) RETURNING id`,
		n.Name, n.CreatedBy, n.DueAt).Scan(&id); err != nil {
		return CalibrationSession{}, err
	}
	if err := calibrationTasksInsert(ctx, tx, id, n.Tasks); err != nil {
		return CalibrationSession{}, err
	}
	if _, err := tx.Exec(ctx, `INSERT INTO calibration_session_analysts (session_id, user_id)
		SELECT $1, unnest($2::text[])`, id, n.Analysts); err != nil {
		return CalibrationSession{}, err
	}
	return CalibrationSessionGet(ctx, tx, id)
}

// CalibrationSessionGet returns session id, or a NotFound error.
func CalibrationSessionGet(ctx context.Context, q DBTX, id string) (CalibrationSession, error) {
	s, err := scanCalibrationSession(q.QueryRow(ctx, `SELECT `+calibrationSessionColumns+calibrationSessionFrom+` WHERE s.id = $1`, id))
	return s, calibrationMissing(err)
}

// CalibrationSessionLock locks session id until the transaction ends and
// returns it, or a NotFound error.
func CalibrationSessionLock(ctx context.Context, tx pgx.Tx, id string) (CalibrationSession, error) {
	if _, err := tx.Exec(ctx, `SELECT FROM calibration_sessions WHERE id = $1 FOR UPDATE`, id); err != nil {
		return CalibrationSession{}, err
	}
	return CalibrationSessionGet(ctx, tx, id)
}

// CalibrationSessionFilter selects sessions.
type CalibrationSessionFilter struct {
	// Analyst, when set, keeps the sessions that user is an analyst of.
	Analyst string
	// Status, when set, keeps the sessions in it.
	Status      string
	Skip, Limit int
}

// CalibrationSessionList returns a page of the sessions f selects, newest
// first, and how many it selects.
func CalibrationSessionList(ctx context.Context, q DBTX, f CalibrationSessionFilter) ([]CalibrationSession, int, error) {
	where := ` WHERE ($1 = '' OR EXISTS (SELECT FROM calibration_session_analysts a WHERE a.session_id = s.id AND a.user_id = $1))
		AND ($2 = '' OR s.status = $2)`
	var total int
	if err := q.QueryRow(ctx, `SELECT count(*) FROM calibration_sessions s`+where, f.Analyst, f.Status).Scan(&total); err != nil {
		return nil, 0, err
	}
	rows, err := q.Query(ctx, `SELECT `+calibrationSessionColumns+calibrationSessionFrom+where+`
		ORDER BY s.created_at DESC, s.id OFFSET $3 LIMIT $4`, f.Analyst, f.Status, f.Skip, f.Limit)
	if err != nil {
		return nil, 0, err
	}
	list, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (CalibrationSession, error) { return scanCalibrationSession(row) })
	return list, total, err
}

// CalibrationSessionClose closes open session id (by closedBy, "" when
// the last submission closes it), keeping its overall figures, and
// returns it. A closed session is a Conflict error.
func CalibrationSessionClose(ctx context.Context, tx pgx.Tx, id, closedBy string, alpha, agreement *float64) (CalibrationSession, error) {
	tag, err := tx.Exec(ctx, `UPDATE calibration_sessions SET status = 'closed', closed_at = now(), closed_by = NULLIF($2, ''),
		alpha = $3, percent_agreement = $4 WHERE id = $1 AND status = 'open'`, id, closedBy, alpha, agreement)
	if err != nil {
		return CalibrationSession{}, err
	}
	if tag.RowsAffected() == 0 {
		return CalibrationSession{}, errcode.New(errcode.Conflict, "the calibration session is closed already")
	}
	return CalibrationSessionGet(ctx, tx, id)
}

// CalibrationEventInsert writes the calibration.updated event of session s
// (change says what happened): for supervisors and for each analyst of the
// session below them (analysts, with their roles).
func CalibrationEventInsert(ctx context.Context, q DBTX, s CalibrationSession, change string, analysts []CalibrationAnalyst) error {
	supervisor := role.Supervisor
	data := CalibrationUpdate{Session: s, Change: change}
	events := []EventNew{{Type: EventCalibrationUpdated, Audience: Audience{MinRole: &supervisor}, Data: data}}
	for _, a := range analysts {
		if role.Highest(a.Roles) < role.Supervisor {
			events = append(events, EventNew{Type: EventCalibrationUpdated, Audience: Audience{UserID: a.UserID}, Data: data})
		}
	}
	return EventsInsert(ctx, q, events...)
}
