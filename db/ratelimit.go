package db

import (
	"context"
	"time"
)

// RateTake takes up to want requests from the bucket of key and kind at
// time t, shared by every process on the database: each request adds step
// to the bucket, which holds burst (a limit of n a minute is step = 1 min /
// n, burst = 1 min). It returns how many it granted, as many as the bucket
// had room for; when it had none, 0 and how long until it would have, and
// then nothing is spent.
func RateTake(ctx context.Context, q DBTX, key string, kind int16, t time.Time, step, burst time.Duration, want int) (int, time.Duration, error) {
	var (
		granted int
		wait    float64
	)
	err := q.QueryRow(ctx, `SELECT granted, wait FROM rate_take($1, $2, $3, $4, $5, $6)`,
		key, kind, t, step.Seconds(), burst.Seconds(), want).Scan(&granted, &wait)
	return granted, time.Duration(wait * float64(time.Second)), err
}

// RateBucketsPrune deletes the buckets full again at t (as good as none)
// and returns how many.
func RateBucketsPrune(ctx context.Context, q DBTX, t time.Time) (int64, error) {
	tag, err := q.Exec(ctx, `DELETE FROM rate_buckets WHERE tat <= $1`, t)
	return tag.RowsAffected(), err
}
