// Package egress decides which addresses the service's own outbound
// requests may reach (webhook deliveries, recordings fetched by URL): an
// absolute http or https URL, and only the internet at large unless the
// configuration allows loopback, private and link-local addresses. A host
// name is checked when the URL is given, and each address it resolves to
// again when it is dialled, so that a name that resolves to this machine
// later (DNS rebinding) is refused too.
package egress

import (
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strings"
	"syscall"
	"time"

	"github.com/auditd/auditd/errcode"
)

// Policy is what one kind of outbound request may reach.
type Policy struct {
	// AllowPrivate lets it reach loopback, private and link-local
	// addresses.
	AllowPrivate bool
	// Setting is the configuration variable that sets AllowPrivate, named
	// in refusals (WEBHOOK_ALLOW_PRIVATE).
	Setting string
}

// CheckURL checks raw: absolute, http or https, with a host, no user
// information nor fragment, and, unless p.AllowPrivate, not naming this
// machine or a loopback, private, link-local or unspecified address. It
// returns an Invalid error saying what is wrong.
func (p Policy) CheckURL(raw string) error {
	u, err := url.Parse(raw)
	switch {
	case err != nil:
		return errcode.New(errcode.Invalid, "the URL cannot be read: %v", err)
	case u.Scheme != "http" && u.Scheme != "https":
		return errcode.New(errcode.Invalid, "the URL must be http or https, not %q", u.Scheme)
	case u.Host == "" || u.Hostname() == "":
		return errcode.New(errcode.Invalid, "the URL has no host")
	case u.User != nil:
		return errcode.New(errcode.Invalid, "the URL may not hold a user name or password")
	case u.Fragment != "":
		return errcode.New(errcode.Invalid, "the URL may not hold a fragment (#…)")
	}
	if p.AllowPrivate {
		return nil
	}
	host := strings.ToLower(u.Hostname())
	if host == "localhost" || strings.HasSuffix(host, ".localhost") {
		return errcode.New(errcode.Invalid, "the URL's host %s is this machine; set %s=true to allow it", host, p.Setting)
	}
	if ip, err := netip.ParseAddr(host); err == nil && !Public(ip) {
		return errcode.New(errcode.Invalid, "the URL's address %s is loopback, private or link-local; set %s=true to allow it", ip, p.Setting)
	}
	return nil
}

// Public reports whether ip is an address of the internet at large.
func Public(ip netip.Addr) bool {
	ip = ip.Unmap()
	return !(ip.IsLoopback() || ip.IsPrivate() || ip.IsLinkLocalUnicast() || ip.IsLinkLocalMulticast() ||
		ip.IsUnspecified() || ip.IsMulticast() || ip.IsInterfaceLocalMulticast() ||
		netip.MustParsePrefix("100.64.0.0/10").Contains(ip)) // carrier-grade NAT
}

// ErrPrivate is a connection refused because its address is not public.
var ErrPrivate = errors.New("the address is loopback, private or link-local")

// Transport returns an HTTP transport that connects within timeout, uses
// no proxy, and, unless p.AllowPrivate, dials no address that is not
// public, whatever a host name resolves to.
func (p Policy) Transport(timeout time.Duration) *http.Transport {
	dialer := &net.Dialer{Timeout: timeout}
	if !p.AllowPrivate {
		dialer.Control = func(_, address string, _ syscall.RawConn) error {
			ap, err := netip.ParseAddrPort(address)
			if err != nil || !Public(ap.Addr()) {
				return fmt.Errorf("%w (%s is not set)", ErrPrivate, p.Setting)
			}
			return nil
		}
	}
	return &http.Transport{DialContext: dialer.DialContext, TLSHandshakeTimeout: timeout,
		ResponseHeaderTimeout: timeout, MaxIdleConnsPerHost: 4, IdleConnTimeout: time.Minute}
}
