package webhook

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"time"

	"github.com/auditd/auditd/db"
	"github.com/auditd/auditd/egress"
	"github.com/auditd/auditd/errcode"
)

// The headers of a delivery.
const (
	// HeaderSignature is "t=<unix seconds>,v1=<hex HMAC-SHA256 of t.body>",
	// with a second v1 while a rotated secret's overlap lasts.
	HeaderSignature = "X-Auditd-Signature"
	// HeaderEvent is the event type.
	HeaderEvent = "X-Auditd-Event"
	// HeaderDelivery is the delivery's id, the same on every attempt.
	HeaderDelivery = "X-Auditd-Delivery"
)

// Timeout bounds one attempt: connecting, sending and the answer's headers.
const Timeout = 10 * time.Second

// NewSecret returns a new signing secret: 32 random bytes, hex, after "whsec_".
func NewSecret() string {
	b := make([]byte, 32)
	_, _ = rand.Read(b) // crypto/rand.Read never fails (Go 1.24+)
	return "whsec_" + hex.EncodeToString(b)
}

// SecretOverlap is how long after a rotation deliveries are signed with
// the previous secret too, so that a receiver may change its secret at any
// time within it without refusing a delivery.
const SecretOverlap = 24 * time.Hour

// Sign returns the X-Auditd-Signature of body sent at t: one v1 signature
// per secret, in their order (the current secret first), as Stripe lists
// them while a secret is rolled.
func Sign(t time.Time, body []byte, secrets ...string) string {
	ts := strconv.FormatInt(t.Unix(), 10)
	out := "t=" + ts
	for _, secret := range secrets {
		mac := hmac.New(sha256.New, []byte(secret))
		mac.Write([]byte(ts + "."))
		mac.Write(body)
		out += ",v1=" + hex.EncodeToString(mac.Sum(nil))
	}
	return out
}

// Secrets returns the secrets a delivery to sub made at now is signed
// with: its current one, and its previous one until its overlap ends.
func Secrets(sub db.WebhookSubscription, now time.Time) []string {
	if sub.PreviousSecret != "" && sub.PreviousUntil != nil && now.Before(*sub.PreviousUntil) {
		return []string{sub.Secret, sub.PreviousSecret}
	}
	return []string{sub.Secret}
}

// policy is what deliveries may reach.
func policy(allowPrivate bool) egress.Policy {
	return egress.Policy{AllowPrivate: allowPrivate, Setting: "WEBHOOK_ALLOW_PRIVATE"}
}

// CheckURL checks a subscription's URL: absolute, http or https, no user
// information, and, unless allowPrivate, not a loopback, private,
// link-local or unspecified address (a host name is checked again each
// time it is resolved, when delivering). It returns an Invalid error whose
// problem is located at body.url, where a request gives it.
func CheckURL(raw string, allowPrivate bool) error {
	msg := ""
	if u, err := url.Parse(raw); err == nil && u.User != nil {
		msg = "the URL may not hold a user name or password; the signature authenticates the sender"
	} else if err := policy(allowPrivate).CheckURL(raw); err != nil {
		msg = errcode.Message(err)
	}
	if msg != "" {
		return errcode.New(errcode.Invalid, "%s", msg).WithProblems(errcode.Problem{Location: "body.url", Message: msg, Value: raw})
	}
	return nil
}

// NewClient returns the HTTP client of deliveries: Timeout per attempt, no
// proxy, no redirect to another host (at most 3 to the same one), and,
// unless allowPrivate, no connection to an address that is not public,
// whatever a host name resolves to when it is dialled.
func NewClient(allowPrivate bool) *http.Client {
	return &http.Client{
		Timeout:   Timeout,
		Transport: policy(allowPrivate).Transport(Timeout),
		CheckRedirect: func(req *http.Request, via []*http.Request) error {
			if req.URL.Host != via[0].URL.Host {
				return fmt.Errorf("redirected to another host (%s); not followed", req.URL.Host)
			}
			if len(via) > 3 {
				return errors.New("redirected more than 3 times")
			}
			return nil
		},
	}
}

// Request is one attempt's request.
type Request struct {
	URL, Event, DeliveryID string
	// Secrets sign it (Secrets).
	Secrets []string
	Body    []byte
}

// Result is how an attempt went: the receiver's status (0 when none came)
// and why it failed ("" when it answered 2xx).
type Result struct {
	StatusCode int
	Error      string
	Duration   time.Duration
}

// OK reports whether the receiver answered 2xx.
func (r Result) OK() bool { return r.Error == "" }

// Send makes one attempt of r with client, signed at now.
func Send(ctx context.Context, client *http.Client, r Request, now time.Time) Result {
	start := time.Now()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, r.URL, bytes.NewReader(r.Body))
	if err != nil {
		return Result{Error: err.Error()}
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", "auditd-webhook/1")
	req.Header.Set(HeaderSignature, Sign(now, r.Body, r.Secrets...))
	req.Header.Set(HeaderEvent, r.Event)
	req.Header.Set(HeaderDelivery, r.DeliveryID)
	res, err := client.Do(req)
	if err != nil {
		// Without the URL, which may hold a secret (Slack's do).
		if ue, ok := errors.AsType[*url.Error](err); ok {
			err = ue.Err
		}
		return Result{Error: err.Error(), Duration: time.Since(start)}
	}
	defer res.Body.Close()
	_, _ = io.Copy(io.Discard, io.LimitReader(res.Body, 64<<10)) // lets the connection be reused
	out := Result{StatusCode: res.StatusCode, Duration: time.Since(start)}
	if res.StatusCode < 200 || res.StatusCode > 299 {
		out.Error = "the receiver answered " + res.Status
	}
	return out
}
