package db

import (
	"context"
	"encoding/json"
	"time"
)

// Kinds of read the access record keeps.
const (
	AccessRecording     = "recording"
	AccessTranscript    = "transcript"
	AccessRevision      = "revision"
	AccessValidation    = "validation"
	AccessExport        = "export"
	AccessSubjectExport = "subject_export"
)

// AccessRecord is one read of personal content by a user.
type AccessRecord struct {
	ID       int64
	At       time.Time
	UserID   string
	UserName string
	Kind     string
	TaskUUID string
	// TaskFileName is the task's file name ("" without a task, or once the
	// task is gone).
	TaskFileName string
	// Detail holds an export's filter and rows, a data export's subject.
	Detail    map[string]any
	ClientIP  string
	UserAgent string
}

// AccessRecordInsert records r (its ID and At are set by the database)
// and returns its id.
func AccessRecordInsert(ctx context.Context, q DBTX, r AccessRecord) (int64, error) {
	detail, err := json.Marshal(nonNilMap(r.Detail))
	if err != nil {
		return 0, err
	}
	var id int64
	err = q.QueryRow(ctx, `INSERT INTO access_records (user_id, kind, task_uuid, detail, client_ip, user_agent)
		VALUES ($1, $2, NULLIF($3, '')::uuid, $4, $5, $6) RETURNING id`,
		r.UserID, r.Kind, r.TaskUUID, detail, r.ClientIP, r.UserAgent).Scan(&id)
	return id, err
}

func nonNilMap(m map[string]any) map[string]any {
	if m == nil {
		return map[string]any{}
	}
	return m
}

// AccessRecordSetDetail replaces record id's detail (an export's rows,
// known once it is written).
func AccessRecordSetDetail(ctx context.Context, q DBTX, id int64, detail map[string]any) error {
	raw, err := json.Marshal(nonNilMap(detail))
	if err != nil {
		return err
	}
	_, err = q.Exec(ctx, `UPDATE access_records SET detail = $2 WHERE id = $1`, id, raw)
	return err
}

// AccessFilter selects access records; zero fields select everything.
type AccessFilter struct {
	// UserID: reads by this user.
	UserID string
	// TaskUUID: reads of this task.
	TaskUUID string
	// Kind: reads of this kind.
	Kind string
	// From, To: reads at or after From, before To.
	From, To *time.Time
	// Before: records with a smaller id (the page after a cursor).
	Before int64
}

// AccessRecordList returns up to limit records f selects, newest first.
func AccessRecordList(ctx context.Context, q DBTX, f AccessFilter, limit int) ([]AccessRecord, error) {
	var out []AccessRecord
	err := AccessRecordEach(ctx, q, f, limit, func(r AccessRecord) error {
		out = append(out, r)
		return nil
	})
	return out, err
}

// AccessRecordEach calls fn with each record f selects, newest first, at
// most limit (0: all of them).
func AccessRecordEach(ctx context.Context, q DBTX, f AccessFilter, limit int, fn func(AccessRecord) error) error {
	var lim *int
	if limit > 0 {
		lim = &limit
	}
	rows, err := q.Query(ctx, `
		SELECT a.id, a.at, a.user_id, COALESCE(u.username, ''), a.kind, COALESCE(a.task_uuid::text, ''), COALESCE(t.file_name, ''),
			a.detail, a.client_ip, a.user_agent
		FROM access_records a LEFT JOIN users u ON u.id = a.user_id LEFT JOIN tasks t ON t.uuid = a.task_uuid
		WHERE ($1::text IS NULL OR a.user_id = $1) AND ($2::uuid IS NULL OR a.task_uuid = $2)
			AND ($3::text IS NULL OR a.kind = $3) AND ($4::timestamptz IS NULL OR a.at >= $4)
			AND ($5::timestamptz IS NULL OR a.at < $5) AND ($6::bigint = 0 OR a.id < $6)
		ORDER BY a.id DESC LIMIT $7`,
		nullIfEmpty(f.UserID), nullIfEmpty(f.TaskUUID), nullIfEmpty(f.Kind), f.From, f.To, f.Before, lim)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var r AccessRecord
		if err := rows.Scan(&r.ID, &r.At, &r.UserID, &r.UserName, &r.Kind, &r.TaskUUID, &r.TaskFileName, &r.Detail, &r.ClientIP, &r.UserAgent); err != nil {
			return err
		}
		if err := fn(r); err != nil {
			return err
		}
	}
	return rows.Err()
}

func nullIfEmpty(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}
