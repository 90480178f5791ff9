package directory_test

import (
	"context"
	"errors"
	"net"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/auditd/auditd/workers/directory"
)

// fixture is one provider's fake directory and the configuration that
// points a Provider at it.
type fixture struct {
	fake *fakeServer
	cfg  directory.Config
	// usersPath is the path of the user pages; pages is how many a full
	// listing requests.
	usersPath string
	pages     int
	// subjects are the users a full listing yields, in order.
	subjects []string
	// refreshable is whether a refused token can be replaced (client
	// credentials) rather than being fixed (SCIM).
	refreshable bool
	// errBody is the provider's answer to a failed request, and errText
	// what the error must quote from it.
	errBody, errText string
}

func (fx fixture) provider(t *testing.T) directory.Provider {
	p, err := directory.New(fx.cfg)
	require.NoError(t, err)
	require.Equal(t, fx.cfg.Provider, p.Name())
	return p
}

var fixtures = map[string]func(*testing.T) fixture{
	"keycloak": keycloakFixture,
	"msgraph":  graphFixture,
	"scim":     scimFixture,
}

// TestFailurePaths runs every provider through the same troubles, injected
// into its second page of users.
func TestFailurePaths(t *testing.T) {
	t.Parallel()
	for name, newFixture := range fixtures {
		t.Run(name, func(t *testing.T) {
			t.Parallel()

			t.Run("token expires mid-sync", func(t *testing.T) {
				t.Parallel()
				fx := newFixture(t)
				fx.fake.inject(fault{path: fx.usersPath, nth: 2, expire: true})
				users, err := collect(context.Background(), fx.provider(t))
				if !fx.refreshable {
					var e *directory.Error
					require.ErrorAs(t, err, &e)
					require.Equal(t, http.StatusUnauthorized, e.Status)
					require.Contains(t, e.Message, "DIRECTORY_TOKEN")
					require.Equal(t, fx.subjects[:2], subjects(users))
					return
				}
				require.NoError(t, err)
				require.Equal(t, fx.subjects, subjects(users))
				require.Equal(t, 2, fx.fake.tokensIssued(), "one new token, fetched once, after the refusal")
				require.Equal(t, fx.pages+1, fx.fake.hitsOf(fx.usersPath), "the refused page is asked again, once")
			})

			t.Run("refused again with a new token", func(t *testing.T) {
				t.Parallel()
				fx := newFixture(t)
				unauthorized := `{"error":"HTTP 401 Unauthorized"}`
				fx.fake.inject(fault{path: fx.usersPath, nth: 2, status: http.StatusUnauthorized, body: unauthorized},
					fault{path: fx.usersPath, nth: 3, status: http.StatusUnauthorized, body: unauthorized})
				_, err := collect(context.Background(), fx.provider(t))
				var e *directory.Error
				require.ErrorAs(t, err, &e)
				require.Equal(t, http.StatusUnauthorized, e.Status)
				if fx.refreshable {
					require.Equal(t, 3, fx.fake.hitsOf(fx.usersPath))
				} else {
					require.Equal(t, 2, fx.fake.hitsOf(fx.usersPath))
				}
			})

			t.Run("short Retry-After is waited out", func(t *testing.T) {
				t.Parallel()
				fx := newFixture(t)
				fx.fake.inject(fault{path: fx.usersPath, nth: 2, status: http.StatusTooManyRequests,
					header: map[string]string{"Retry-After": "0"}, body: `{"error":"too many requests"}`})
				users, err := collect(context.Background(), fx.provider(t))
				require.NoError(t, err)
				require.Equal(t, fx.subjects, subjects(users))
				require.Equal(t, fx.pages+1, fx.fake.hitsOf(fx.usersPath))
			})

			t.Run("long Retry-After ends the attempt", func(t *testing.T) {
				t.Parallel()
				fx := newFixture(t)
				fx.fake.inject(fault{path: fx.usersPath, nth: 2, status: http.StatusTooManyRequests,
					header: map[string]string{"Retry-After": "120"}, body: fx.errBody})
				users, err := collect(context.Background(), fx.provider(t))
				var re *directory.RetryableError
				require.ErrorAs(t, err, &re)
				require.Equal(t, 120*time.Second, re.RetryAfter)
				require.Equal(t, http.StatusTooManyRequests, re.Err.Status)
				require.Equal(t, fx.subjects[:2], subjects(users))
			})

			t.Run("throttled past the inline retries", func(t *testing.T) {
				t.Parallel()
				fx := newFixture(t)
				for nth := 2; nth <= 5; nth++ {
					fx.fake.inject(fault{path: fx.usersPath, nth: nth, status: http.StatusTooManyRequests,
						header: map[string]string{"Retry-After": "0"}})
				}
				_, err := collect(context.Background(), fx.provider(t))
				var re *directory.RetryableError
				require.ErrorAs(t, err, &re)
				require.Equal(t, time.Duration(0), re.RetryAfter)
				require.Equal(t, 5, fx.fake.hitsOf(fx.usersPath), "the first ask and three more")
			})

			t.Run("503 without Retry-After", func(t *testing.T) {
				t.Parallel()
				fx := newFixture(t)
				fx.fake.inject(fault{path: fx.usersPath, nth: 2, status: http.StatusServiceUnavailable, body: "<html>down</html>"})
				_, err := collect(context.Background(), fx.provider(t))
				var re *directory.RetryableError
				require.ErrorAs(t, err, &re)
				require.Equal(t, 30*time.Second, re.RetryAfter)
				require.Equal(t, "Service Unavailable", re.Err.Message)
			})

			t.Run("500 quotes the provider", func(t *testing.T) {
				t.Parallel()
				fx := newFixture(t)
				fx.fake.inject(fault{path: fx.usersPath, nth: 2, status: http.StatusInternalServerError, body: fx.errBody})
				users, err := collect(context.Background(), fx.provider(t))
				var e *directory.Error
				require.ErrorAs(t, err, &e)
				var re *directory.RetryableError
				require.False(t, errors.As(err, &re))
				require.Equal(t, http.StatusInternalServerError, e.Status)
				require.Equal(t, fx.cfg.Provider, e.Provider)
				require.Contains(t, e.Message, fx.errText)
				require.Contains(t, err.Error(), "list users")
				require.Equal(t, fx.subjects[:2], subjects(users))
			})

			t.Run("malformed page", func(t *testing.T) {
				t.Parallel()
				fx := newFixture(t)
				fx.fake.inject(fault{path: fx.usersPath, nth: 1, status: http.StatusOK, body: `{"value": [`})
				_, err := collect(context.Background(), fx.provider(t))
				require.ErrorContains(t, err, "malformed answer")
			})

			t.Run("request timeout", func(t *testing.T) {
				t.Parallel()
				fx := newFixture(t)
				fx.cfg.RequestTimeout = 100 * time.Millisecond
				fx.fake.inject(fault{path: fx.usersPath, nth: 2, hang: true})
				users, err := collect(context.Background(), fx.provider(t))
				var ne net.Error
				require.ErrorAs(t, err, &ne)
				require.True(t, ne.Timeout())
				require.Equal(t, fx.subjects[:2], subjects(users))
			})

			t.Run("cancelled", func(t *testing.T) {
				t.Parallel()
				fx := newFixture(t)
				ctx, cancel := context.WithCancel(context.Background())
				defer cancel()
				var got []string
				var err error
				for u, e := range fx.provider(t).Users(ctx) {
					if e != nil {
						err = e
						break
					}
					got = append(got, u.Subject)
					cancel()
				}
				require.ErrorIs(t, err, context.Canceled)
				require.Equal(t, fx.subjects[:2], got, "the page in hand is delivered, the next is not fetched")
			})
		})
	}
}

func TestNewUnknownProvider(t *testing.T) {
	t.Parallel()
	_, err := directory.New(directory.Config{Provider: "ldap"})
	require.ErrorContains(t, err, `"ldap"`)
}
