package api

import (
	"fmt"
	"math"
	"net/http"
	"strconv"
	"sync"

	"github.com/danielgtaylor/huma/v2"
	"golang.org/x/time/rate"
)

// RateLimits bound what one user may send, per minute, in token buckets
// that hold a minute's worth: a burst of up to the limit, then a steady
// rate of limit per minute.
type RateLimits struct {
	// Writes bounds each user's POST, PUT, PATCH and DELETE requests other
	// than uploads (RATE_LIMIT_WRITES). Defaults to 600.
	Writes int
	// Uploads bounds each user's POST /tasks/upload requests
	// (RATE_LIMIT_UPLOADS). Defaults to 60.
	Uploads int
}

func (l RateLimits) withDefaults() RateLimits {
	if l.Writes == 0 {
		l.Writes = 600
	}
	if l.Uploads == 0 {
		l.Uploads = 60
	}
	return l
}

// metaUpload marks the operations the upload limit applies to.
const metaUpload = "auditd-upload"

// limiter holds every user's buckets. They live as long as the process
// (users are the directory's, a bounded set) and are per process: with
// several API processes a user gets each process's limit.
type limiter struct {
	limits RateLimits

	mu      sync.Mutex
	buckets map[bucketKey]*rate.Limiter
}

type bucketKey struct {
	user   string
	upload bool
}

func newLimiter(l RateLimits) *limiter {
	return &limiter{limits: l.withDefaults(), buckets: map[bucketKey]*rate.Limiter{}}
}

// bucket returns the user's bucket for uploads or for other writes.
func (l *limiter) bucket(user string, upload bool) *rate.Limiter {
	l.mu.Lock()
	defer l.mu.Unlock()
	k := bucketKey{user, upload}
	b, ok := l.buckets[k]
	if !ok {
		n := l.limits.Writes
		if upload {
			n = l.limits.Uploads
		}
		b = rate.NewLimiter(rate.Limit(float64(n)/60), n)
		l.buckets[k] = b
	}
	return b
}

// middleware answers 429 RATE_LIMITED, with Retry-After in whole seconds,
// to a signed-in user's write beyond their limit. It runs after the auth
// middleware: requests that are refused before it do not count.
func (l *limiter) middleware(hctx huma.Context, next func(huma.Context)) {
	op := hctx.Operation()
	p, signedIn := hctx.Context().Value(principalKey).(Principal)
	switch op.Method {
	case http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete:
	default:
		signedIn = false
	}
	if !signedIn {
		next(hctx)
		return
	}
	upload, _ := op.Metadata[metaUpload].(bool)
	res := l.bucket(p.User.ID, upload).Reserve()
	delay := res.Delay()
	if delay == 0 {
		next(hctx)
		return
	}
	res.Cancel()
	what, limit := "writes", l.limits.Writes
	if upload {
		what, limit = "uploads", l.limits.Uploads
	}
	r, w := unwrap(hctx)
	seconds := int(math.Ceil(delay.Seconds()))
	w.Header().Set("Retry-After", strconv.Itoa(seconds))
	writeError(w, r, Errorf(CodeRateLimited, fmt.Sprintf("too many %s: the limit is %d a minute per user; retry in %d s", what, limit, seconds)).
		WithDetails(map[string]any{"limit_per_minute": limit, "retry_after_seconds": seconds}))
}
