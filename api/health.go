package api

import (
	"context"
	"net/http"
	"sync/atomic"

	"github.com/danielgtaylor/huma/v2"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/auditd/auditd/db"
)

type healthResource struct {
	pool *pgxpool.Pool
	// migrated is set once migrations were seen current: they only move forward.
	migrated atomic.Bool
}

// Status is the body of /health and /ready.
type Status struct {
	Status string `json:"status" example:"ok"`
}

func (h *healthResource) register(api huma.API) {
	huma.Register(api, huma.Operation{
		OperationID: "get-health", Method: http.MethodGet, Path: "/health",
		Summary: "Liveness", Description: "Answers while the process runs; it does not touch the database. Never rate-limited.",
		Tags: []string{"operations"}, Metadata: map[string]any{metaUnlimited: true}, Security: public,
	}, func(ctx context.Context, _ *struct{}) (*Output[Status], error) {
		return ok(Status{Status: "ok"}), nil
	})
	huma.Register(api, huma.Operation{
		OperationID: "get-ready", Method: http.MethodGet, Path: "/ready",
		Summary:     "Readiness",
		Description: "Answers 200 when the database is reachable and its schema is current, else 503 SERVICE_UNAVAILABLE. Never rate-limited.",
		Tags:        []string{"operations"},
		Errors:      []int{http.StatusServiceUnavailable},
		Metadata:    map[string]any{metaUnlimited: true},
		Security:    public,
	}, h.ready)
}

func (h *healthResource) ready(ctx context.Context, _ *struct{}) (*Output[Status], error) {
	if err := h.pool.Ping(ctx); err != nil {
		logger(ctx).WarnContext(ctx, "not ready: database unreachable", "error", err)
		return nil, Errorf(CodeServiceUnavailable, "the database is unreachable")
	}
	if !h.migrated.Load() {
		pending, err := db.MigrationsPending(ctx, h.pool)
		if err != nil {
			logger(ctx).WarnContext(ctx, "not ready: cannot read migrations", "error", err)
			return nil, Errorf(CodeServiceUnavailable, "the database schema cannot be read; run `auditd migrate`")
		}
		if pending {
			return nil, Errorf(CodeServiceUnavailable, "the database schema is not current; run `auditd migrate`")
		}
		h.migrated.Store(true)
	}
	return ok(Status{Status: "ok"}), nil
}
