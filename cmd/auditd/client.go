package main

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/hashicorp/go-retryablehttp"
)

// apiClient calls the public API of an auditd server, as any other client
// would: a request refused for its rate (429) is sent again when the
// server's Retry-After says, and one that met a server error (5xx) or a
// broken connection again after a growing pause, a few times.
type apiClient struct {
	server string
	token  string
	http   *retryablehttp.Client
	// retrying, when set, is told of each request about to be sent again.
	retrying func(line string)
}

// Retry bounds: 429s are retried while the server keeps saying when (an
// upload of a day's folder waits its turn), other failures serverFailures
// times.
const (
	retryMax       = 1000
	serverFailures = 5
)

// failuresKey keys, in a request's context, the count of its failures
// that were not a 429.
type failuresKey struct{}

// clientFlags adds --server and --token to fs, defaulting to AUDITD_URL and
// AUDITD_TOKEN.
func clientFlags(fs *flag.FlagSet, getenv func(string) string) (server, token *string) {
	server = fs.String("server", cmp.Or(getenv("AUDITD_URL"), "http://127.0.0.1:8080"), "the auditd API (default: $AUDITD_URL)")
	token = fs.String("token", getenv("AUDITD_TOKEN"), "access token (default: $AUDITD_TOKEN)")
	return server, token
}

func newAPIClient(server, token string) (*apiClient, error) {
	if token == "" {
		return nil, errors.New("an access token is needed: --token or AUDITD_TOKEN (with AUTH_DEV=true, `auditd token --roles quality` makes one)")
	}
	u, err := url.Parse(server)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("--server: %q is not an http(s) URL", server)
	}
	c := &apiClient{server: strings.TrimRight(server, "/"), token: token}
	c.http = &retryablehttp.Client{
		// No overall timeout: a large upload takes as long as it takes;
		// the command's context cancels it.
		HTTPClient:   &http.Client{},
		RetryWaitMin: time.Second,
		RetryWaitMax: 30 * time.Second,
		RetryMax:     retryMax,
		CheckRetry:   checkRetry,
		Backoff: func(lo, hi time.Duration, attempt int, res *http.Response) time.Duration {
			wait := retryablehttp.DefaultBackoff(lo, hi, attempt, res)
			if c.retrying != nil && res != nil {
				c.retrying(fmt.Sprintf("retrying  %s %s in %s: %s", res.Request.Method, res.Request.URL.Path, wait, res.Status))
			} else if c.retrying != nil {
				c.retrying(fmt.Sprintf("retrying in %s: the connection failed", wait))
			}
			return wait
		},
		// The last answer is reported as any other (its code and message).
		ErrorHandler: retryablehttp.PassthroughErrorHandler,
	}
	return c, nil
}

// checkRetry retries a 429 (the backoff waits what its Retry-After says),
// and a server error or a failed connection serverFailures times.
func checkRetry(ctx context.Context, res *http.Response, err error) (bool, error) {
	again, err := retryablehttp.DefaultRetryPolicy(ctx, res, err)
	if !again || (res != nil && res.StatusCode == http.StatusTooManyRequests) {
		return again, err
	}
	n, _ := ctx.Value(failuresKey{}).(*int)
	if n == nil {
		return false, err
	}
	*n++
	return *n <= serverFailures, err
}

// request is a request to path, with body a function giving it anew for
// each attempt (nil for none).
func (c *apiClient) request(ctx context.Context, method, path string, body retryablehttp.ReaderFunc) (*retryablehttp.Request, error) {
	ctx = context.WithValue(ctx, failuresKey{}, new(int))
	var raw any
	if body != nil {
		raw = body
	}
	req, err := retryablehttp.NewRequestWithContext(ctx, method, c.server+path, raw)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Authorization", "Bearer "+c.token)
	return req, nil
}

// call sends a request without a body to path (with its query) and decodes
// the details of a success envelope into out.
func (c *apiClient) call(ctx context.Context, method, path string, out any) error {
	req, err := c.request(ctx, method, path, nil)
	if err != nil {
		return err
	}
	return c.do(req, out)
}

// do sends req and decodes the details of a success envelope into out.
func (c *apiClient) do(req *retryablehttp.Request, out any) error {
	req.Header.Set("Accept", "application/json")
	res, err := c.http.Do(req)
	if err != nil {
		return err
	}
	defer res.Body.Close()
	body, err := io.ReadAll(io.LimitReader(res.Body, 16<<20))
	if err != nil {
		return err
	}
	if res.StatusCode >= 400 {
		return apiError(res, body)
	}
	var env struct {
		Details json.RawMessage `json:"details"`
	}
	if err := json.Unmarshal(body, &env); err != nil {
		return fmt.Errorf("unexpected response (%s): %w", res.Status, err)
	}
	return json.Unmarshal(env.Details, out)
}

// apiError is an error answer as the command reports it: the error model's
// code and message, or the status and body of anything else.
func apiError(res *http.Response, body []byte) error {
	var e struct {
		Code    string `json:"code"`
		Message string `json:"message"`
	}
	if json.Unmarshal(body, &e) != nil || e.Code == "" {
		e.Code, e.Message = res.Status, strings.TrimSpace(string(body))
	}
	return &answerError{status: res.StatusCode, text: e.Code + ": " + e.Message}
}

// answerError is an error answer (apiError), with its status.
type answerError struct {
	status int
	text   string
}

func (e *answerError) Error() string { return e.text }

// download copies the body of a GET of path to w as it arrives.
func (c *apiClient) download(ctx context.Context, path string, w io.Writer) error {
	req, err := c.request(ctx, http.MethodGet, path, nil)
	if err != nil {
		return err
	}
	res, err := c.http.Do(req)
	if err != nil {
		return err
	}
	defer res.Body.Close()
	if res.StatusCode >= 400 {
		body, err := io.ReadAll(io.LimitReader(res.Body, 1<<20))
		if err != nil {
			return err
		}
		return apiError(res, body)
	}
	if _, err := io.Copy(w, res.Body); err != nil {
		return fmt.Errorf("the download stopped before its end (the server's log says why): %w", err)
	}
	return nil
}
