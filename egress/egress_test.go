package egress

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestTransportRefusesPrivateAddresses: a host name passes the URL's check
// (whatever it resolves to is checked when dialled), and the transport
// refuses a connection to loopback.
func TestTransportRefusesPrivateAddresses(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}))
	defer srv.Close()
	p := Policy{Setting: "X_ALLOW_PRIVATE"}
	link := strings.Replace(srv.URL, "127.0.0.1", "loopback.example.test", 1)
	require.NoError(t, p.CheckURL(link), "a name is checked when dialled")
	client := &http.Client{Transport: p.Transport(time.Second)}
	_, err := client.Get(srv.URL)
	require.ErrorIs(t, err, ErrPrivate)
	require.ErrorContains(t, err, "X_ALLOW_PRIVATE is not set")

	allowed := Policy{AllowPrivate: true, Setting: "X_ALLOW_PRIVATE"}
	require.NoError(t, allowed.CheckURL(srv.URL))
	res, err := (&http.Client{Transport: allowed.Transport(time.Second)}).Get(srv.URL)
	require.NoError(t, err)
	res.Body.Close()
	require.False(t, errors.Is(err, ErrPrivate))
}

func TestPublic(t *testing.T) {
	t.Parallel()
	for addr, public := range map[string]bool{
		"8.8.8.8": true, "2606:4700::1111": true, "127.0.0.1": false, "10.1.2.3": false, "172.16.0.1": false,
		"192.168.1.1": false, "169.254.169.254": false, "100.64.0.1": false, "::1": false, "fe80::1": false,
		"fc00::1": false, "0.0.0.0": false, "::ffff:127.0.0.1": false, "224.0.0.1": false,
	} {
		require.Equal(t, public, Public(netip.MustParseAddr(addr)), addr)
	}
}
