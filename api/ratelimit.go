package api

import (
	"context"
	"fmt"
	"math"
	"net"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/danielgtaylor/huma/v2"

	"github.com/auditd/auditd/db"
)

// RateLimits bound what one user, or one client address without a valid
// token, may send per minute, in token buckets that hold a minute's worth: a
// burst of up to the limit, then a steady rate of limit per minute.
type RateLimits struct {
	// Reads bounds each user's GET requests (RATE_LIMIT_READS). Defaults
	// to 3000.
	Reads int
	// Writes bounds each user's POST, PUT, PATCH and DELETE requests other
	// than uploads (RATE_LIMIT_WRITES). Defaults to 600.
	Writes int
	// Uploads bounds each user's POST /tasks/upload requests and previews
	// of a scorecard, which audit as an upload does (RATE_LIMIT_UPLOADS).
	// Defaults to 60.
	Uploads int
	// Anonymous bounds, per client address, the requests to public
	// operations and the requests whose authentication fails
	// (RATE_LIMIT_ANONYMOUS). Defaults to 300.
	Anonymous int
}

func (l RateLimits) withDefaults() RateLimits {
	for _, f := range []struct {
		v   *int
		def int
	}{{&l.Reads, 3000}, {&l.Writes, 600}, {&l.Uploads, 60}, {&l.Anonymous, 300}} {
		if *f.v == 0 {
			*f.v = f.def
		}
	}
	return l
}

// Operation metadata for the limiter.
const (
	// metaUpload marks the operations the upload limit applies to:
	// uploads, and what audits as an upload does (a scorecard's preview).
	metaUpload = "auditd-upload"
	// metaUnlimited marks the probes (/health, /ready): a load balancer
	// checking through the same address as a client that fails to
	// authenticate must never see them refused.
	metaUnlimited = "auditd-unlimited"
)

// bucketKind is what a bucket counts.
type bucketKind int

const (
	reads bucketKind = iota
	writes
	uploads
	anonymous
)

// limit is the kind's limit a minute and how the error names what it counts.
func (l RateLimits) limit(k bucketKind) (int, string) {
	switch k {
	case reads:
		return l.Reads, "reads: the limit is %d a minute per user"
	case writes:
		return l.Writes, "writes: the limit is %d a minute per user"
	case uploads:
		return l.Uploads, "uploads: the limit is %d a minute per user"
	default:
		return l.Anonymous, "requests without a valid token from your address: the limit is %d a minute"
	}
}

// limiter takes requests from buckets kept in the database (db.RateTake),
// so that a limit holds across every API process on it, not once per
// process. To keep that cheap, a process takes a hundredth of a limit at a
// time (a lease) and spends it locally: a round trip per 30 reads at the
// default limits. A lease's leftovers are spent for the other processes and
// kept for a minute at most, so with P processes a limit holds within P %
// either way. Limits under 200 a minute are taken one by one, exactly.
type limiter struct {
	limits RateLimits
	pool   db.DBTX
	now    func() time.Time

	mu      sync.Mutex
	leases  map[bucketKey]*lease
	pruneAt int
}

type bucketKey struct {
	key  string // a user id, or a client address
	kind bucketKind
}

// lease is what a process has taken from a bucket and not spent yet.
type lease struct {
	left int
	used time.Time
	// fetching is closed when the request taking more for the lease from
	// the database is done; nil when none is. One request at a time takes
	// more, so that many at once do not each take a lease's worth.
	fetching chan struct{}
}

// minPrune is the number of leases below which none is dropped.
const minPrune = 4096

func newLimiter(l RateLimits, pool db.DBTX) *limiter {
	return &limiter{limits: l.withDefaults(), pool: pool, now: time.Now, leases: map[bucketKey]*lease{}, pruneAt: minPrune}
}

// refusal is a request over its limit.
type refusal struct {
	err        *Error
	retryAfter int // seconds
}

// write answers 429 RATE_LIMITED with Retry-After.
func (f *refusal) write(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Retry-After", strconv.Itoa(f.retryAfter))
	writeError(w, r, f.err)
}

// take spends one request from key's bucket of kind k, from the process's
// lease when it has one, or refuses it. When the database cannot answer,
// the request is let through and logged: the operation itself then meets
// the same database, and a limiter must not refuse what it cannot count.
func (l *limiter) take(ctx context.Context, key string, k bucketKind) *refusal {
	n, what := l.limits.limit(k)
	bk, now := bucketKey{key, k}, l.now()
	for {
		le, done, wait := l.spend(bk, now)
		switch {
		case le == nil:
			return nil
		case wait != nil:
			select {
			case <-wait:
				continue
			case <-ctx.Done():
				return nil // the request is gone anyway
			}
		}
		granted, retry, err := db.RateTake(ctx, l.pool, key, int16(k), now, time.Minute/time.Duration(n), time.Minute, max(1, n/100))
		l.fetched(le, done, now, granted)
		switch {
		case err != nil:
			logger(ctx).Warn("rate limit not checked", "error", err)
			return nil
		case granted > 0:
			return nil
		}
		seconds := int(math.Ceil(retry.Seconds()))
		return &refusal{retryAfter: seconds, err: Errorf(CodeRateLimited, fmt.Sprintf("too many "+what+"; retry in %d s", n, seconds)).
			WithDetails(map[string]any{"limit_per_minute": n, "retry_after_seconds": seconds})}
	}
}

// spend spends one request from bk's lease and returns nil when it can.
// Otherwise it returns the lease and either wait, closed when the request
// taking more for it is done, or done, to close (fetched) once the caller
// has taken more itself. What a lease has left after a minute unused is
// dropped (the shared bucket has refilled since), and so are such leases
// as they pile up.
func (l *limiter) spend(bk bucketKey, now time.Time) (le *lease, done chan struct{}, wait <-chan struct{}) {
	l.mu.Lock()
	defer l.mu.Unlock()
	le = l.leases[bk]
	if le == nil {
		if len(l.leases) >= l.pruneAt {
			for k, old := range l.leases {
				if old.fetching == nil && (now.Sub(old.used) >= time.Minute || old.left == 0) {
					delete(l.leases, k)
				}
			}
			l.pruneAt = max(minPrune, 2*len(l.leases))
		}
		le = &lease{}
		l.leases[bk] = le
	}
	if now.Sub(le.used) >= time.Minute {
		le.left = 0
	}
	switch {
	case le.left > 0:
		le.left--
		le.used = now
		return nil, nil, nil
	case le.fetching != nil:
		return le, nil, le.fetching
	}
	le.fetching = make(chan struct{})
	return le, le.fetching, nil
}

// fetched adds to le what the caller took for it, the first of which the
// caller spends, and lets the requests waiting for it go on.
func (l *limiter) fetched(le *lease, done chan struct{}, now time.Time, granted int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if granted > 0 {
		le.left += granted - 1
		le.used = now
	}
	le.fetching = nil
	close(done)
}

// middleware answers 429 RATE_LIMITED, with Retry-After in whole seconds, to
// a signed-in user's request beyond their limit and to a public operation's
// beyond its client address's. It runs after the auth middleware, which
// charges failed authentications to the address (failedAuth).
func (l *limiter) middleware(hctx huma.Context, next func(huma.Context)) {
	op := hctx.Operation()
	if unlimited, _ := op.Metadata[metaUnlimited].(bool); unlimited {
		next(hctx)
		return
	}
	r, w := unwrap(hctx)
	var f *refusal
	if p, signedIn := hctx.Context().Value(principalKey).(Principal); signedIn {
		kind := reads
		switch op.Method {
		case http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete:
			kind = writes
			if upload, _ := op.Metadata[metaUpload].(bool); upload {
				kind = uploads
			}
		}
		f = l.take(r.Context(), p.User.ID, kind)
	} else {
		f = l.take(r.Context(), clientAddress(r), anonymous)
	}
	if f == nil {
		next(hctx)
		return
	}
	f.write(w, r)
}

// failedAuth charges a failed authentication to the request's client
// address and returns the 429 to answer instead once the address is over
// its limit.
func (l *limiter) failedAuth(r *http.Request) *refusal {
	return l.take(r.Context(), clientAddress(r), anonymous)
}

// clientAddress is the address a request came from (behind a reverse proxy,
// the proxy's: every client through it shares its limit).
func clientAddress(r *http.Request) string {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		return r.RemoteAddr
	}
	return host
}
