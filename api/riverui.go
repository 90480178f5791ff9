package api

import (
	"context"
	"crypto/rand"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/danielgtaylor/huma/v2"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/auditd/auditd/db"
	"github.com/auditd/auditd/errcode"
	"github.com/auditd/auditd/role"
)

// RiverUIPrefix is where River UI is served, when it is.
const RiverUIPrefix = "/riverui"

// riverUICookie holds a River UI session; its path is RiverUIPrefix.
const riverUICookie = "auditd_riverui"

// maxRiverUISession caps a session however long its token lives.
const maxRiverUISession = 8 * time.Hour

// riverUICSP is River UI's Content-Security-Policy: its scripts and styles
// are its own files, its React components set style attributes, and it
// calls only its own API.
const riverUICSP = "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; " +
	"font-src 'self' data:; connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"

// riverUI serves River UI under RiverUIPrefix to admins: with their bearer
// token (API clients), or with the session cookie the dashboard's "Open
// River UI" exchanges it for (browsers). State-changing requests from
// another site are refused, and its pages get their own policy.
type riverUI struct {
	ui     http.Handler
	auth   *Authenticator
	pool   *pgxpool.Pool
	secure bool
}

func (u *riverUI) mount(s *Server) {
	s.mux.Get(RiverUIPrefix, func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, RiverUIPrefix+"/", http.StatusMovedPermanently)
	})
	cop := http.NewCrossOriginProtection()
	cop.SetDenyHandler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		writeError(w, r, Errorf(CodeForbidden, "a cross-site request to River UI is refused"))
	}))
	s.mux.Handle(RiverUIPrefix+"/*", cop.Handler(u))
}

// ServeHTTP authenticates the request and hands it to River UI.
func (u *riverUI) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	p, e := u.caller(ctx, r)
	if e == nil && !p.Is(role.Admin) {
		e = Errorf(CodeForbidden, "River UI needs the admin role")
	}
	if e != nil {
		if e.GetStatus() == http.StatusUnauthorized && page(r) {
			// A browser with no session: to the dashboard's Background
			// jobs, which signs in, opens a session and comes back here.
			http.Redirect(w, r, "/app/admin/jobs?"+url.Values{"riverui": {r.URL.RequestURI()}}.Encode(), http.StatusSeeOther)
			return
		}
		writeError(w, r, e)
		return
	}
	h := w.Header()
	h.Set("Content-Security-Policy", riverUICSP)
	h.Set("X-Frame-Options", "DENY")
	h.Set("Referrer-Policy", "no-referrer")
	u.ui.ServeHTTP(w, r)
}

// caller is the admin behind a request: its bearer token, else its session
// cookie.
func (u *riverUI) caller(ctx context.Context, r *http.Request) (Principal, *Error) {
	if r.Header.Get("Authorization") != "" {
		return u.auth.authenticate(ctx, r, false)
	}
	c, err := r.Cookie(riverUICookie)
	if err != nil || c.Value == "" {
		return Principal{}, Errorf(CodeMissingAuthHeader, "sign in: open River UI from the dashboard's Background jobs page, or send \"Authorization: Bearer <access token>\"")
	}
	user, expires, err := db.UISessionUser(ctx, u.pool, c.Value)
	if errcode.Is(err, errcode.NotFound) {
		return Principal{}, Errorf(CodeUnauthorized, "the River UI session has ended; open River UI from the dashboard again")
	}
	if err != nil {
		return Principal{}, translate(ctx, err)
	}
	return Principal{User: user, Role: role.Highest(user.Roles), Expiry: expires}, nil
}

// page reports whether r is a browser asking for a page (not River UI's API).
func page(r *http.Request) bool {
	return r.Method == http.MethodGet && !strings.HasPrefix(r.URL.Path, RiverUIPrefix+"/api/") &&
		strings.Contains(r.Header.Get("Accept"), "text/html")
}

// RiverUISession is an opened River UI session.
type RiverUISession struct {
	URL       string    `json:"url" doc:"Where River UI is: open it in the same browser"`
	ExpiresAt time.Time `json:"expires_at" doc:"When the session ends: the access token's expiry, at most 8 hours"`
}

type riverUISessionOutput struct {
	SetCookie http.Cookie `header:"Set-Cookie"`
	Body      Envelope[RiverUISession]
}

type endSessionOutput struct {
	SetCookie http.Cookie `header:"Set-Cookie"`
}

func (u *riverUI) register(api huma.API) {
	op := operation(http.MethodPost, "/admin/riverui/session", "open-riverui", "Open River UI in this browser", role.Admin,
		http.StatusNotFound)
	op.Description += " Exchanges the access token for a River UI session: an HttpOnly, SameSite=Strict cookie for " +
		RiverUIPrefix + "/ only, bound to the user, ending with the token, on sign-out (DELETE) or when the user is deactivated."
	op.Tags = []string{"admin"}
	huma.Register(api, op, u.open)
	op = operation(http.MethodDelete, "/admin/riverui/session", "close-riverui", "End this user's River UI sessions", role.None)
	op.Description += " The dashboard calls it on sign-out."
	op.DefaultStatus = http.StatusNoContent
	op.Tags = []string{"admin"}
	huma.Register(api, op, u.close)
}

// riverUIOff answers POST /admin/riverui/session when River UI is off.
func riverUIOff() *Error {
	return Errorf(CodeNotFound, "River UI is off on this server (RIVER_UI=false); use GET /admin/jobs")
}

func (u *riverUI) open(ctx context.Context, _ *struct{}) (*riverUISessionOutput, error) {
	if u.ui == nil {
		return nil, riverUIOff()
	}
	p := principal(ctx)
	expires := time.Now().Add(maxRiverUISession)
	if p.Expiry.Before(expires) {
		expires = p.Expiry
	}
	token := rand.Text() + rand.Text() // 256 random bits
	if err := db.UISessionCreate(ctx, u.pool, token, p.User.ID, expires); err != nil {
		return nil, err
	}
	out := &riverUISessionOutput{SetCookie: u.cookie(token, expires)}
	out.Body = Envelope[RiverUISession]{Success: true, Code: "OK", Details: RiverUISession{URL: RiverUIPrefix + "/", ExpiresAt: expires.UTC()}}
	return out, nil
}

func (u *riverUI) close(ctx context.Context, _ *struct{}) (*endSessionOutput, error) {
	if err := db.UISessionsEnd(ctx, u.pool, principal(ctx).User.ID); err != nil {
		return nil, err
	}
	return &endSessionOutput{SetCookie: u.cookie("", time.Unix(0, 0))}, nil
}

// cookie is the session cookie holding token until expires (a past time
// deletes it).
func (u *riverUI) cookie(token string, expires time.Time) http.Cookie {
	return http.Cookie{Name: riverUICookie, Value: token, Path: RiverUIPrefix + "/", Expires: expires,
		HttpOnly: true, Secure: u.secure, SameSite: http.SameSiteStrictMode}
}
