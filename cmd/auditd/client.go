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
)

// apiClient calls the public API of an auditd server, as any other client
// would.
type apiClient struct {
	server string
	token  string
	http   *http.Client
}

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
	// No overall timeout: a large upload takes as long as it takes; the
	// command's context cancels it.
	return &apiClient{server: strings.TrimRight(server, "/"), token: token, http: &http.Client{}}, nil
}

// call sends a request without a body to path (with its query) and decodes
// the details of a success envelope into out.
func (c *apiClient) call(ctx context.Context, method, path string, out any) error {
	req, err := http.NewRequestWithContext(ctx, method, c.server+path, nil)
	if err != nil {
		return err
	}
	return c.do(req, out)
}

// do sends req and decodes the details of a success envelope into out.
func (c *apiClient) do(req *http.Request, out any) error {
	req.Header.Set("Authorization", "Bearer "+c.token)
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
	return errors.New(e.Code + ": " + e.Message)
}

// download copies the body of a GET of path to w as it arrives.
func (c *apiClient) download(ctx context.Context, path string, w io.Writer) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, c.server+path, nil)
	if err != nil {
		return err
	}
	req.Header.Set("Authorization", "Bearer "+c.token)
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
