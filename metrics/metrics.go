// Package metrics exposes the service's Prometheus metrics: HTTP requests,
// River jobs, queue depth and whatever gauges other parts register. Each
// process has its own registry; nothing is global.
package metrics

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"strconv"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"

	"github.com/auditd/auditd/db"
)

// Metrics holds one process's collectors.
type Metrics struct {
	reg          *prometheus.Registry
	httpRequests *prometheus.CounterVec
	httpDuration *prometheus.HistogramVec
	jobs         *prometheus.CounterVec
	jobDuration  *prometheus.HistogramVec
	// UploadBytes counts bytes of uploaded files stored.
	UploadBytes prometheus.Counter
}

// New returns a registry with the Go runtime and process collectors and
// the service's own metrics.
func New() *Metrics {
	reg := prometheus.NewRegistry()
	reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	m := &Metrics{
		reg: reg,
		httpRequests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "auditd_http_requests_total", Help: "HTTP requests by route, method and status.",
		}, []string{"route", "method", "status"}),
		httpDuration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "auditd_http_request_duration_seconds", Help: "HTTP request latency by route and method.",
			Buckets: prometheus.DefBuckets,
		}, []string{"route", "method"}),
		jobs: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "auditd_jobs_total", Help: "Jobs worked by kind and outcome (completed, snoozed, cancelled, error).",
		}, []string{"kind", "outcome"}),
		jobDuration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "auditd_job_duration_seconds", Help: "Time spent working jobs, by kind.",
			Buckets: []float64{.005, .01, .05, .1, .25, .5, 1, 2.5, 5, 10, 30, 60, 180, 600},
		}, []string{"kind"}),
		UploadBytes: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "auditd_upload_bytes_total", Help: "Bytes of uploaded files stored.",
		}),
	}
	reg.MustRegister(m.httpRequests, m.httpDuration, m.jobs, m.jobDuration, m.UploadBytes)
	return m
}

// Handler serves the registry in the Prometheus text format.
func (m *Metrics) Handler() http.Handler {
	return promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{})
}

// ObserveHTTP records one finished request; route is the route pattern, so
// the label set stays bounded.
func (m *Metrics) ObserveHTTP(route, method string, status int, d time.Duration) {
	if route == "" {
		route = "unmatched"
	}
	m.httpRequests.WithLabelValues(route, method, strconv.Itoa(status)).Inc()
	m.httpDuration.WithLabelValues(route, method).Observe(d.Seconds())
}

// Gauge registers a gauge whose value fn reports at each scrape.
func (m *Metrics) Gauge(name, help string, fn func() float64) {
	m.reg.MustRegister(prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: name, Help: help}, fn))
}

// RiverMiddleware counts and times every job a worker process works.
func (m *Metrics) RiverMiddleware() rivertype.Middleware {
	return &jobMiddleware{m: m}
}

type jobMiddleware struct {
	river.MiddlewareDefaults
	m *Metrics
}

func (j *jobMiddleware) Work(ctx context.Context, job *rivertype.JobRow, doInner func(context.Context) error) error {
	start := time.Now()
	err := doInner(ctx)
	outcome := "completed"
	var snooze *rivertype.JobSnoozeError
	var cancel *rivertype.JobCancelError
	switch {
	case err == nil:
	case errors.As(err, &snooze):
		outcome = "snoozed"
	case errors.As(err, &cancel):
		outcome = "cancelled"
	default:
		outcome = "error"
	}
	j.m.jobs.WithLabelValues(job.Kind, outcome).Inc()
	j.m.jobDuration.WithLabelValues(job.Kind).Observe(time.Since(start).Seconds())
	return err
}

// WatchQueues reports, at each scrape, River's jobs by queue and state that
// are not finalized (the queue depth), read from the database.
func (m *Metrics) WatchQueues(pool *pgxpool.Pool, log *slog.Logger) {
	if log == nil {
		log = slog.Default()
	}
	m.reg.MustRegister(&queueCollector{pool: pool, log: log,
		desc: prometheus.NewDesc("auditd_queue_jobs", "Jobs not yet finalized, by queue and state.", []string{"queue", "state"}, nil)})
}

type queueCollector struct {
	pool *pgxpool.Pool
	log  *slog.Logger
	desc *prometheus.Desc
}

func (q *queueCollector) Describe(ch chan<- *prometheus.Desc) { ch <- q.desc }

func (q *queueCollector) Collect(ch chan<- prometheus.Metric) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	counts, err := db.JobsUnfinished(ctx, q.pool)
	if err != nil {
		q.log.Warn("queue depth unavailable", "error", err)
		return
	}
	for _, c := range counts {
		ch <- prometheus.MustNewConstMetric(q.desc, prometheus.GaugeValue, float64(c.Count), c.Queue, c.State)
	}
}
