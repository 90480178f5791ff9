package api

import (
	"crypto/subtle"
	"net/http"
	"strings"

	"github.com/auditd/auditd/role"
)

// metricsHandler serves Prometheus metrics to a scraper holding the static
// METRICS_TOKEN, or, without one configured, to an admin.
func metricsHandler(opts Options) http.HandlerFunc {
	serve := opts.Metrics.Handler()
	return func(w http.ResponseWriter, r *http.Request) {
		if opts.MetricsToken != "" {
			got, _ := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
			if subtle.ConstantTimeCompare([]byte(got), []byte(opts.MetricsToken)) != 1 {
				w.Header().Set("WWW-Authenticate", `Bearer realm="metrics"`)
				writeError(w, r, Errorf(CodeUnauthorized, "/metrics needs \"Authorization: Bearer <METRICS_TOKEN>\""))
				return
			}
			serve.ServeHTTP(w, r)
			return
		}
		p, e := opts.Auth.authenticate(r.Context(), r, false)
		if e == nil && !p.Is(role.Admin) {
			e = Errorf(CodeForbidden, "/metrics needs the admin role (or set METRICS_TOKEN for scrapers)")
		}
		if e != nil {
			writeError(w, r, e)
			return
		}
		serve.ServeHTTP(w, r)
	}
}
