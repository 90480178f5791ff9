package directory

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Error is a request the directory answered with an error status.
type Error struct {
	// Provider is keycloak, msgraph or scim.
	Provider string
	// Op says what was asked for, e.g. "list users".
	Op string
	// Status is the HTTP status of the answer.
	Status int
	// Message is the directory's own explanation, or the status text.
	Message string
}

// Error implements error.
func (e *Error) Error() string {
	return fmt.Sprintf("%s: %s: HTTP %d: %s", e.Provider, e.Op, e.Status, e.Message)
}

// RetryableError is a request the directory refused for now (HTTP 429 or
// 503) and asked to repeat after RetryAfter.
type RetryableError struct {
	// Err is the refusal.
	Err *Error
	// RetryAfter is how long the directory asked to wait (its Retry-After
	// header; 30s when it sent none; at most an hour).
	RetryAfter time.Duration
}

// Error implements error.
func (e *RetryableError) Error() string {
	return fmt.Sprintf("%s (retry after %s)", e.Err, e.RetryAfter)
}

// Unwrap returns the refusal.
func (e *RetryableError) Unwrap() error { return e.Err }

const (
	// maxInlineWait is the longest Retry-After waited out within a sync;
	// longer ones end the attempt with a RetryableError so the job is
	// snoozed instead of holding a worker.
	maxInlineWait = 10 * time.Second
	// maxInlineRetries bounds how often one request is repeated after
	// short Retry-After answers.
	maxInlineRetries = 3
	// defaultRetryAfter applies to a 429 or 503 without Retry-After.
	defaultRetryAfter = 30 * time.Second
	// maxRetryAfter caps what a directory may ask for.
	maxRetryAfter = time.Hour
	// maxBody bounds a page of JSON; maxErrorBody an error answer.
	maxBody      = 64 << 20
	maxErrorBody = 64 << 10
)

// client makes the HTTP requests of one provider.
type client struct {
	provider string
	http     *http.Client
	tokens   tokenSource
}

// tokenSource gives the bearer token of the directory's API.
type tokenSource interface {
	// token returns a valid token, from the cache while it has not expired.
	token(ctx context.Context) (string, error)
	// invalidate drops tok from the cache after the API refused it, and
	// reports whether another token can be had.
	invalidate(tok string) bool
}

// get fetches url into v with the bearer token. When the API refuses the
// token (401), as when it expired early or was revoked mid-sync, it gets a
// new token and tries once more.
func (c *client) get(ctx context.Context, op, url string, v any) error {
	for retried := false; ; retried = true {
		tok, err := c.tokens.token(ctx)
		if err != nil {
			return err
		}
		err = c.do(ctx, op, func(ctx context.Context) (*http.Request, error) {
			req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
			if err == nil {
				req.Header.Set("Authorization", "Bearer "+tok)
				req.Header.Set("Accept", "application/json, application/scim+json")
			}
			return req, err
		}, v)
		var e *Error
		if !retried && errors.As(err, &e) && e.Status == http.StatusUnauthorized && c.tokens.invalidate(tok) {
			continue
		}
		return err
	}
}

// do sends the request build makes and decodes a successful JSON answer
// into v. It waits out short Retry-After answers to 429 and 503 and
// returns a *RetryableError for longer ones, an *Error for other error
// statuses.
func (c *client) do(ctx context.Context, op string, build func(context.Context) (*http.Request, error), v any) error {
	for attempt := 0; ; attempt++ {
		req, err := build(ctx)
		if err != nil {
			return fmt.Errorf("%s: %s: %w", c.provider, op, err)
		}
		req.Header.Set("User-Agent", "auditd-directory-sync")
		res, err := c.http.Do(req)
		if err != nil {
			return fmt.Errorf("%s: %s: %w", c.provider, op, err)
		}
		if res.StatusCode >= 200 && res.StatusCode < 300 {
			err := json.NewDecoder(io.LimitReader(res.Body, maxBody)).Decode(v)
			res.Body.Close()
			if err != nil {
				return fmt.Errorf("%s: %s: malformed answer: %w", c.provider, op, err)
			}
			return nil
		}
		body, _ := io.ReadAll(io.LimitReader(res.Body, maxErrorBody))
		res.Body.Close()
		e := &Error{Provider: c.provider, Op: op, Status: res.StatusCode, Message: message(body, res.StatusCode)}
		if res.StatusCode != http.StatusTooManyRequests && res.StatusCode != http.StatusServiceUnavailable {
			return e
		}
		wait := retryAfter(res.Header.Get("Retry-After"), time.Now())
		if wait > maxInlineWait || attempt >= maxInlineRetries {
			return &RetryableError{Err: e, RetryAfter: wait}
		}
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return ctx.Err()
		case <-t.C:
		}
	}
}

// retryAfter reads a Retry-After header: seconds or an HTTP date.
func retryAfter(h string, now time.Time) time.Duration {
	d := defaultRetryAfter
	if s, err := strconv.Atoi(strings.TrimSpace(h)); err == nil {
		d = time.Duration(s) * time.Second
	} else if t, err := http.ParseTime(h); err == nil {
		d = t.Sub(now)
	}
	return min(max(d, 0), maxRetryAfter)
}

// message extracts a directory's explanation from an error answer: OAuth
// token endpoints send error and error_description, Keycloak's admin API
// errorMessage or error, Graph error.code and error.message, SCIM detail.
func message(body []byte, status int) string {
	var m struct {
		Error            json.RawMessage `json:"error"`
		ErrorDescription string          `json:"error_description"`
		ErrorMessage     string          `json:"errorMessage"`
		Detail           string          `json:"detail"`
		Message          string          `json:"message"`
	}
	if json.Unmarshal(body, &m) == nil {
		var code string
		var graph struct{ Code, Message string }
		if json.Unmarshal(m.Error, &code) != nil && json.Unmarshal(m.Error, &graph) == nil {
			code, m.Message = graph.Code, graph.Message
		}
		var parts []string
		for _, s := range []string{code, m.ErrorDescription, m.ErrorMessage, m.Detail, m.Message} {
			if s != "" {
				parts = append(parts, s)
			}
		}
		if len(parts) > 0 {
			return strings.Join(parts, ": ")
		}
	}
	if s := strings.TrimSpace(string(body)); s != "" && len(s) <= 300 && !strings.HasPrefix(s, "<") {
		return s
	}
	return http.StatusText(status)
}

// clientCredentials gets tokens with the OAuth 2.0 client-credentials
// grant and caches each until shortly before it expires.
type clientCredentials struct {
	client          *client
	url, id, secret string
	scope           string

	mu     sync.Mutex
	cached string
	expiry time.Time
}

func (s *clientCredentials) token(ctx context.Context) (string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	now := time.Now()
	if s.cached != "" && now.Before(s.expiry) {
		return s.cached, nil
	}
	form := url.Values{"grant_type": {"client_credentials"}, "client_id": {s.id}, "client_secret": {s.secret}}
	if s.scope != "" {
		form.Set("scope", s.scope)
	}
	var res struct {
		AccessToken string `json:"access_token"`
		ExpiresIn   int64  `json:"expires_in"`
	}
	err := s.client.do(ctx, "get a token", func(ctx context.Context) (*http.Request, error) {
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, s.url, strings.NewReader(form.Encode()))
		if err == nil {
			req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
			req.Header.Set("Accept", "application/json")
		}
		return req, err
	}, &res)
	var e *Error
	if errors.As(err, &e) && (e.Status == http.StatusBadRequest || e.Status == http.StatusUnauthorized) {
		e.Message += " (check DIRECTORY_CLIENT_ID and DIRECTORY_CLIENT_SECRET)"
	}
	if err != nil {
		return "", err
	}
	if res.AccessToken == "" {
		return "", fmt.Errorf("%s: get a token: the token endpoint answered without an access_token", s.client.provider)
	}
	// Renew a little early, so a token does not expire between this check
	// and the request that carries it.
	life := time.Duration(res.ExpiresIn) * time.Second
	s.cached, s.expiry = res.AccessToken, now.Add(life-min(30*time.Second, life/2))
	return s.cached, nil
}

func (s *clientCredentials) invalidate(tok string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cached == tok {
		s.cached = ""
	}
	return true
}

// staticToken is a bearer token configured once (SCIM): it cannot be renewed.
type staticToken string

func (s staticToken) token(context.Context) (string, error) { return string(s), nil }

func (s staticToken) invalidate(string) bool { return false }
