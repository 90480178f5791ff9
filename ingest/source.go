// Package ingest takes recordings from where a contact centre's platform
// leaves them: an S3-compatible bucket prefix or a directory, polled. Each
// object is claimed in the database before it is read, so that any number
// of worker processes take it once; it goes through intake as an upload
// does (limits, recognition, redaction, the first job in the task's
// transaction), with what its sidecar JSON says of the call; and what
// became of it (taken, skipped and why, failed and why) is recorded in the
// transaction of its task.
package ingest

import (
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"gocloud.dev/aws"
	"gocloud.dev/blob"
	"gocloud.dev/blob/fileblob"
	"gocloud.dev/blob/s3blob"

	"github.com/auditd/auditd/db"
	"github.com/auditd/auditd/errcode"
)

// s3Params are the parameters an s3:// location may carry, and whether
// each is a boolean.
var s3Params = map[string]bool{
	"region": false, "endpoint": false, "profile": false,
	"use_path_style": true, "disable_https": true, "anonymous": true, "fips": true, "dualstack": true,
}

// CheckLocation checks a source's location for its kind and returns it as
// stored: an s3:// URL (bucket, optional prefix, and only the parameters
// an S3-compatible server needs: region, endpoint, use_path_style,
// disable_https, anonymous, profile, fips, dualstack), or the absolute
// path of a directory that exists and can be read. It returns an Invalid
// error saying what is wrong.
func CheckLocation(kind, location string) (string, error) {
	switch kind {
	case db.IngestS3:
		return location, checkS3(location)
	case db.IngestDirectory:
		return checkDirectory(location)
	}
	return "", errcode.New(errcode.Invalid, "the kind must be s3 or directory, not %q", kind)
}

func checkS3(location string) error {
	u, err := url.Parse(location)
	switch {
	case err != nil:
		return errcode.New(errcode.Invalid, "the location cannot be read as a URL: write it as s3://bucket/prefix?region=…")
	case u.Scheme != "s3":
		return errcode.New(errcode.Invalid, "an s3 source's location must start with s3://, not %q", u.Scheme+":")
	case u.Host == "":
		return errcode.New(errcode.Invalid, "the location names no bucket: write it as s3://bucket/prefix?region=…")
	case u.User != nil:
		return errcode.New(errcode.Invalid, "the location may not hold credentials; give access_key_id and secret_access_key instead")
	case u.Fragment != "":
		return errcode.New(errcode.Invalid, "the location may not hold a fragment (#…)")
	}
	q, err := url.ParseQuery(u.RawQuery)
	if err != nil {
		return errcode.New(errcode.Invalid, "the location's parameters cannot be read: %s", u.RawQuery)
	}
	for name, values := range q {
		boolean, known := s3Params[name]
		if !known {
			return errcode.New(errcode.Invalid, "the location's parameter %q is not one of %s", name, strings.Join(slices.Sorted(maps.Keys(s3Params)), ", "))
		}
		if len(values) != 1 {
			return errcode.New(errcode.Invalid, "the location's parameter %q is given %d times", name, len(values))
		}
		if _, err := strconv.ParseBool(values[0]); boolean && err != nil {
			return errcode.New(errcode.Invalid, "the location's parameter %s must be true or false, not %q", name, values[0])
		}
	}
	if e := q.Get("endpoint"); e != "" {
		eu, err := url.Parse(e)
		if err != nil || (eu.Scheme != "http" && eu.Scheme != "https") || eu.Host == "" {
			return errcode.New(errcode.Invalid, "the location's endpoint must be an http or https URL such as https://minio.example:9000, not %q", e)
		}
	}
	return nil
}

func checkDirectory(location string) (string, error) {
	if !filepath.IsAbs(location) {
		return "", errcode.New(errcode.Invalid, "a directory source's location must be an absolute path (such as /srv/recordings), not %q", location)
	}
	dir := filepath.Clean(location)
	fi, err := os.Stat(dir)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return "", errcode.New(errcode.Invalid, "the directory %s does not exist on the worker's machine", dir)
	case err != nil:
		return "", errcode.New(errcode.Invalid, "the directory %s cannot be read: %s", dir, reason(err))
	case !fi.IsDir():
		return "", errcode.New(errcode.Invalid, "%s is a file, not a directory", dir)
	}
	f, err := os.Open(dir)
	if err == nil {
		_, err = f.Readdirnames(1)
		f.Close()
	}
	if err != nil && !errors.Is(err, io.EOF) {
		return "", errcode.New(errcode.Invalid, "the directory %s cannot be read: %s", dir, reason(err))
	}
	return dir, nil
}

// reason is a file system error without the path (which the message
// names already).
func reason(err error) string {
	if pe, ok := errors.AsType[*os.PathError](err); ok {
		err = pe.Err
	}
	return err.Error()
}

// open opens src's bucket and returns it with the prefix to list.
func open(ctx context.Context, src db.IngestSource) (*blob.Bucket, string, error) {
	if src.Kind == db.IngestDirectory {
		b, err := fileblob.OpenBucket(src.Location, &fileblob.Options{Metadata: fileblob.MetadataDontWrite})
		return b, "", err
	}
	u, err := url.Parse(src.Location)
	if err != nil {
		return nil, "", err
	}
	q := u.Query()
	var opts []func(*s3.Options)
	for _, p := range []string{"use_path_style", "disable_https"} {
		v, _ := strconv.ParseBool(q.Get(p)) // checked when stored
		q.Del(p)
		if v {
			opts = append(opts, func(o *s3.Options) {
				o.UsePathStyle = o.UsePathStyle || p == "use_path_style"
				o.EndpointOptions.DisableHTTPS = o.EndpointOptions.DisableHTTPS || p == "disable_https"
			})
		}
	}
	cfg, err := aws.V2ConfigFromURLParams(ctx, q)
	if err != nil {
		return nil, "", fmt.Errorf("the location's parameters: %w", err)
	}
	if src.AccessKeyID != "" {
		cfg.Credentials = credentials.NewStaticCredentialsProvider(src.AccessKeyID, src.SecretAccessKey, "")
	}
	b, err := s3blob.OpenBucket(ctx, s3.NewFromConfig(cfg, opts...), u.Host,
		&s3blob.Options{RequestChecksumCalculation: cfg.RequestChecksumCalculation})
	prefix := strings.TrimPrefix(u.Path, "/")
	if prefix != "" && !strings.HasSuffix(prefix, "/") {
		prefix += "/"
	}
	return b, prefix, err
}
