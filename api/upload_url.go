package api

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"mime"
	"net/http"
	"net/url"
	"path"
	"slices"
	"strings"

	"github.com/danielgtaylor/huma/v2"

	"github.com/auditd/auditd/egress"
	"github.com/auditd/auditd/errcode"
	"github.com/auditd/auditd/intake"
)

// Bounds of an upload by URL.
const (
	// maxURLBody caps the JSON body of an upload by URL.
	maxURLBody = 16 << 10
	// maxRedirects caps the redirects a fetch follows.
	maxRedirects = 5
)

// fetchPolicy is what an upload by URL may reach.
func (t *tasksResource) fetchPolicy() egress.Policy {
	return egress.Policy{AllowPrivate: t.fetchPrivate, Setting: "UPLOAD_URL_ALLOW_PRIVATE"}
}

// documentURLUpload adds the JSON body of an upload by URL to the upload's
// request body in the OpenAPI document.
func (t *tasksResource) documentURLUpload(api huma.API) {
	form := api.OpenAPI().Paths["/tasks/upload"].Post.RequestBody.Content["multipart/form-data"].Schema
	props := map[string]*huma.Schema{
		"url": {Type: "string", Format: "uri", Description: "Where to fetch the recording or chat transcript: http or https (a " +
			"signed link). Not a loopback, private or link-local address unless UPLOAD_URL_ALLOW_PRIVATE=true; at most " +
			fmt.Sprint(maxRedirects) + " redirects, each checked alike; the file's size limit and UPLOAD_TIMEOUT apply."},
		"file_name": {Type: "string", MaxLength: new(255), Description: "The task's file name; defaults to the answer's " +
			"Content-Disposition file name, else the URL path's last element."},
	}
	for _, f := range uploadFields {
		props[f] = form.Properties[f]
	}
	api.OpenAPI().Paths["/tasks/upload"].Post.RequestBody.Content["application/json"] = &huma.MediaType{
		Schema: &huma.Schema{Type: "object", Required: []string{"url"}, Properties: props, AdditionalProperties: false}}
}

// uploadURL is an upload by URL: a JSON body with the link and the upload
// form's fields; the file fetched goes through intake as an uploaded one.
func (t *tasksResource) uploadURL(ctx context.Context, in *streamedInput) (*Output[UploadResult], error) {
	raw, err := io.ReadAll(in.body(maxURLBody, t.timeouts))
	if err != nil {
		if _, ok := errors.AsType[*http.MaxBytesError](err); ok {
			return nil, Errorf(CodePayloadTooLarge, fmt.Sprintf("the JSON body of an upload by URL is larger than %s", size(maxURLBody)))
		}
		if e, ok := timedOut(err, ""); ok {
			return nil, e
		}
		return nil, Errorf(CodeValidation, "the body ended early: send the JSON object whole")
	}
	// The same strictness as every JSON body (strictUnmarshal): a key
	// given twice or differing only in case, a NUL, invalid UTF-8.
	if e, ok := errors.AsType[*jsonError](checkJSON(raw)); ok {
		return nil, Errorf(CodeValidation, "the body is not what an upload by URL reads: "+e.msg).WithDetail(e.at, e.msg, nil)
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(raw, &fields); err != nil || fields == nil {
		return nil, Errorf(CodeValidation, `the body is not a JSON object such as {"url": "https://…", "campaign": "…"}`).
			WithDetail("body", "not a JSON object", nil)
	}
	u := t.newUpload(ctx, 1)
	defer u.upload.Close(ctx)
	var link, name string
	for _, k := range slices.Sorted(maps.Keys(fields)) {
		if k != "url" && k != "file_name" && !slices.Contains(uploadFields, k) {
			return nil, Errorf(CodeValidation, fmt.Sprintf("unknown field %q; the fields are url, file_name, %s", k, strings.Join(uploadFields, ", "))).
				WithDetail("body."+k, "unexpected property", nil)
		}
		var v string
		if bytes.Equal(bytes.TrimSpace(fields[k]), []byte("null")) || json.Unmarshal(fields[k], &v) != nil {
			return nil, Errorf(CodeValidation, fmt.Sprintf("the field %q must be a string", k)).WithDetail("body."+k, "must be a string", nil)
		}
		switch {
		case k == "url":
			link = strings.TrimSpace(v)
		case k == "file_name":
			if len(v) > 255 || badText(v) {
				msg := "must be one line of at most 255 bytes"
				return nil, Errorf(CodeValidation, "the field \"file_name\" "+msg).WithDetail("body.file_name", msg, v)
			}
			name = v
		default:
			if err := u.set(ctx, k, []byte(v)); err != nil {
				return nil, err
			}
		}
	}
	if link == "" {
		return nil, Errorf(CodeMissingFields, `no url: send {"url": "https://…"} with the recording's link`).WithDetail("body.url", "required", nil)
	}
	if err := t.fetchPolicy().CheckURL(link); err != nil {
		return nil, Errorf(CodeValidation, errcode.Message(err)).WithDetail("body.url", errcode.Message(err), nil)
	}
	if err := t.fetch(ctx, u.upload, link, name); err != nil {
		return nil, err
	}
	return u.commit(ctx)
}

// fetch fetches link and adds the file to up, called name, or else what the
// answer or the link calls it.
func (t *tasksResource) fetch(ctx context.Context, up *intake.Upload, link, name string) error {
	policy := t.fetchPolicy()
	client := &http.Client{
		Timeout:   t.timeouts.Total,
		Transport: policy.Transport(t.timeouts.Idle),
		CheckRedirect: func(req *http.Request, via []*http.Request) error {
			if len(via) > maxRedirects {
				return fmt.Errorf("it redirected more than %d times", maxRedirects)
			}
			if err := policy.CheckURL(req.URL.String()); err != nil {
				return fmt.Errorf("it redirected to a URL refused: %s", errcode.Message(err))
			}
			return nil
		},
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, link, nil)
	if err != nil {
		return fetchError("cannot be requested", nil)
	}
	req.Header.Set("User-Agent", "auditd-fetch/1")
	res, err := client.Do(req)
	if err != nil {
		return fetchError("could not be fetched", err)
	}
	defer res.Body.Close()
	if res.StatusCode < 200 || res.StatusCode > 299 {
		return fetchError(fmt.Sprintf("answered %s (a signed link may have expired)", res.Status), nil)
	}
	if res.ContentLength > t.limits.MaxFileBytes {
		return Errorf(CodePayloadTooLarge, fmt.Sprintf("the file at the URL is %s, larger than the limit of %s per file",
			size(res.ContentLength), size(t.limits.MaxFileBytes))).WithDetails(map[string]any{"limit_bytes": t.limits.MaxFileBytes})
	}
	if name == "" {
		name = fetchedName(res)
	}
	err = up.Add(ctx, displayName(name), res.Body)
	if re, ok := errors.AsType[*intake.ReadError](err); ok {
		return fetchError("broke off while downloading", re.Err)
	}
	return err
}

// fetchedName is what the answer res calls its file: its
// Content-Disposition's file name, else the last element of the URL's
// path (after redirects).
func fetchedName(res *http.Response) string {
	if _, params, err := mime.ParseMediaType(res.Header.Get("Content-Disposition")); err == nil && params["filename"] != "" {
		return params["filename"]
	}
	if p, err := url.PathUnescape(path.Base(res.Request.URL.Path)); err == nil && p != "/" && p != "." {
		return p
	}
	return "upload"
}

// fetchError is a fetch that failed, as the uploader reads it: what
// happened, and why in the network's words (never the URL, which may hold
// a signature).
func fetchError(what string, err error) error {
	msg := "the URL " + what
	if ue, ok := errors.AsType[*url.Error](err); ok {
		err = ue.Err
		if ue.Timeout() {
			msg = "the URL did not answer in time"
			err = nil
		}
	}
	if err != nil {
		msg += ": " + err.Error()
	}
	return Errorf(CodeValidation, msg).WithDetail("body.url", msg, nil)
}
