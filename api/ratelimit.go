package api

import (
	"fmt"
	"math"
	"net"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/danielgtaylor/huma/v2"
	"golang.org/x/time/rate"
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
	// Uploads bounds each user's POST /tasks/upload requests
	// (RATE_LIMIT_UPLOADS). Defaults to 60.
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
	// metaUpload marks the operations the upload limit applies to.
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

// limiter holds the buckets. They live as long as the process and are per
// process: with several API processes a user gets each process's limit.
// Users are the directory's, a bounded set; client addresses are not, so
// full buckets (the same as new ones) are dropped as addresses pile up.
type limiter struct {
	limits RateLimits
	now    func() time.Time

	mu      sync.Mutex
	buckets map[bucketKey]*rate.Limiter
	pruneAt int
}

type bucketKey struct {
	key  string // a user id, or a client address
	kind bucketKind
}

// minPrune is the number of buckets below which none is dropped.
const minPrune = 4096

func newLimiter(l RateLimits) *limiter {
	return &limiter{limits: l.withDefaults(), now: time.Now, buckets: map[bucketKey]*rate.Limiter{}, pruneAt: minPrune}
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

// take spends one request from key's bucket of kind k, or refuses it.
func (l *limiter) take(key string, k bucketKind) *refusal {
	n, what := l.limits.limit(k)
	now := l.now()
	l.mu.Lock()
	b, ok := l.buckets[bucketKey{key, k}]
	if !ok {
		if len(l.buckets) >= l.pruneAt {
			l.prune(now)
		}
		b = rate.NewLimiter(rate.Limit(float64(n)/60), n)
		l.buckets[bucketKey{key, k}] = b
	}
	l.mu.Unlock()
	res := b.ReserveN(now, 1)
	delay := res.DelayFrom(now)
	if delay == 0 {
		return nil
	}
	res.CancelAt(now)
	seconds := int(math.Ceil(delay.Seconds()))
	return &refusal{retryAfter: seconds, err: Errorf(CodeRateLimited, fmt.Sprintf("too many "+what+"; retry in %d s", n, seconds)).
		WithDetails(map[string]any{"limit_per_minute": n, "retry_after_seconds": seconds})}
}

// prune drops the full buckets; the caller holds l.mu.
func (l *limiter) prune(now time.Time) {
	for k, b := range l.buckets {
		if b.TokensAt(now) >= float64(b.Burst()) {
			delete(l.buckets, k)
		}
	}
	l.pruneAt = max(minPrune, 2*len(l.buckets))
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
		f = l.take(p.User.ID, kind)
	} else {
		f = l.take(clientAddress(r), anonymous)
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
	return l.take(clientAddress(r), anonymous)
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
