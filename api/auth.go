package api

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/mail"
	"slices"
	"strings"
	"sync"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/coreos/go-oidc/v3/oidc"
	"github.com/danielgtaylor/huma/v2"
	jose "github.com/go-jose/go-jose/v4"
	"golang.org/x/text/language"

	"github.com/auditd/auditd/db"
	"github.com/auditd/auditd/l10n"
	"github.com/auditd/auditd/role"
)

// Principal is the authenticated caller of a request.
type Principal struct {
	User db.User
	Role role.Role
	// Expiry is when the request's token expires.
	Expiry time.Time
}

// Is reports whether the caller holds at least role r.
func (p Principal) Is(r role.Role) bool { return p.Role >= r }

// principal returns the caller of an authenticated operation.
func principal(ctx context.Context) Principal {
	p, _ := ctx.Value(principalKey).(Principal)
	return p
}

// AuthConfig configures token verification.
type AuthConfig struct {
	// IssuerURL is the OIDC issuer; its discovery document and JWKS are fetched from it.
	IssuerURL string
	// Audience must appear in every token's aud claim.
	Audience string
	// SubjectClaim, UsernameClaim and RolesClaim are dotted claim paths.
	SubjectClaim, UsernameClaim, RolesClaim string
}

// discoveryRetry bounds how often a failed issuer discovery is retried.
const discoveryRetry = 5 * time.Second

// Authenticator verifies bearer tokens with go-oidc against the issuer's
// discovery document and JWKS (keys rotated at the issuer are fetched when a
// token names an unknown key, at most once per keyRefetch: keySet) and
// provisions the caller's user just in time.
type Authenticator struct {
	cfg  AuthConfig
	pool db.DBTX
	now  func() time.Time

	mu          sync.Mutex
	verifier    *oidc.IDTokenVerifier
	lastAttempt time.Time
}

// NewAuthenticator returns an Authenticator for cfg. Discovery happens on the
// first request (and is retried while the issuer is unreachable), so the
// service starts even when the identity provider is briefly down.
func NewAuthenticator(cfg AuthConfig, pool db.DBTX) *Authenticator {
	return &Authenticator{cfg: cfg, pool: pool, now: time.Now}
}

func (a *Authenticator) getVerifier(ctx context.Context) (*oidc.IDTokenVerifier, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.verifier != nil {
		return a.verifier, nil
	}
	if now := a.now(); now.Sub(a.lastAttempt) < discoveryRetry {
		return nil, errors.New("identity provider discovery failed recently")
	} else {
		a.lastAttempt = now
	}
	provider, err := oidc.NewProvider(ctx, a.cfg.IssuerURL)
	if err != nil {
		return nil, err
	}
	var meta struct {
		JWKSURL string   `json:"jwks_uri"`
		Algs    []string `json:"id_token_signing_alg_values_supported"`
	}
	if err := provider.Claims(&meta); err != nil || meta.JWKSURL == "" {
		return nil, fmt.Errorf("the issuer's discovery document names no jwks_uri (%v)", err)
	}
	var algs []string
	for _, alg := range meta.Algs {
		if slices.Contains(signingAlgs, jose.SignatureAlgorithm(alg)) {
			algs = append(algs, alg)
		}
	}
	a.verifier = oidc.NewVerifier(a.cfg.IssuerURL, newKeySet(meta.JWKSURL, a.now),
		&oidc.Config{ClientID: a.cfg.Audience, SupportedSigningAlgs: algs})
	return a.verifier, nil
}

// authenticate checks the request's credentials and returns the caller.
// queryToken allows the token as an access_token query parameter (for
// EventSource, which cannot send headers).
func (a *Authenticator) authenticate(ctx context.Context, r *http.Request, queryToken bool) (Principal, *Error) {
	raw := ""
	if h := r.Header.Get("Authorization"); h != "" {
		scheme, token, ok := strings.Cut(h, " ")
		if !ok || !strings.EqualFold(scheme, "Bearer") || strings.TrimSpace(token) == "" {
			return Principal{}, Errorf(CodeUnauthorized, "the Authorization header must be \"Bearer <access token>\"")
		}
		raw = strings.TrimSpace(token)
	} else if queryToken {
		raw = r.URL.Query().Get("access_token")
	}
	if raw == "" {
		return Principal{}, Errorf(CodeMissingAuthHeader, "the Authorization header is missing; send \"Authorization: Bearer <access token>\"")
	}
	verifier, err := a.getVerifier(ctx)
	if err != nil {
		logger(ctx).WarnContext(ctx, "identity provider unavailable", "issuer", a.cfg.IssuerURL, "error", err)
		return Principal{}, Errorf(CodeServiceUnavailable, "the identity provider cannot be reached to verify tokens; try again shortly")
	}
	tok, err := verifier.Verify(ctx, raw)
	if err != nil {
		logger(ctx).InfoContext(ctx, "token rejected", "error", err)
		return Principal{}, Errorf(CodeUnauthorized, "the access token is invalid or expired")
	}
	var claims map[string]any
	if err := tok.Claims(&claims); err != nil {
		return Principal{}, Errorf(CodeUnauthorized, "the access token's claims cannot be read")
	}
	profile := db.UserProfile{
		ID:       claimString(claims, a.cfg.SubjectClaim),
		Username: claimString(claims, a.cfg.UsernameClaim),
		Email:    claimEmail(claims),
		Name:     printable(strings.Join(strings.FieldsFunc(claimString(claims, "name"), unicode.IsControl), " "), maxClaimName),
		Roles:    boundRoles(claimStrings(claims, a.cfg.RolesClaim)),
		Locale:   claimLocale(claims),
		TimeZone: claimZone(claims),
		IssuedAt: tok.IssuedAt,
	}
	// What identifies the user must be plain text of a bounded length; what
	// is only shown is cleaned (a name loses its hidden characters and is
	// cut, a broken e-mail is ignored, roles are bounded: boundRoles).
	for _, c := range [][2]string{{a.cfg.SubjectClaim, profile.ID}, {a.cfg.UsernameClaim, profile.Username}} {
		if !plainText(c[1]) || utf8.RuneCountInString(c[1]) > maxClaimID {
			return Principal{}, Errorf(CodeUnauthorized, fmt.Sprintf("the access token's %q claim must be at most %d characters "+
				"without a NUL, a control character or a bidirectional control", c[0], maxClaimID))
		}
	}
	if profile.ID == "" {
		return Principal{}, Errorf(CodeUnauthorized, fmt.Sprintf("the access token has no %q claim identifying the user", a.cfg.SubjectClaim))
	}
	if profile.Username == "" {
		profile.Username = profile.ID
	}
	user, err := db.UserSeen(ctx, a.pool, profile, a.now())
	if err != nil {
		return Principal{}, translate(ctx, err)
	}
	if !user.Active {
		return Principal{}, Errorf(CodeUnauthorized, "this user is deactivated")
	}
	return Principal{User: user, Role: role.Highest(user.Roles), Expiry: tok.Expiry}, nil
}

// Bounds of what a token's claims may store (docs/security.md).
const (
	// maxClaimID bounds the subject and the username; a longer one is 401.
	maxClaimID = 255
	// maxClaimName bounds the name; a longer one is cut.
	maxClaimName = 200
	// maxClaimEmail bounds the e-mail (RFC 5321's path); a longer one is ignored.
	maxClaimEmail = 254
	// maxRoles and maxRoleLength bound the roles kept: a longer role is
	// dropped, and of more roles the service's own are kept first.
	maxRoles, maxRoleLength = 32, 64
)

// claimEmail is the token's e-mail when it is one bare address of a
// bounded length without hidden characters, else "".
func claimEmail(claims map[string]any) string {
	e := claimString(claims, "email")
	if a, err := mail.ParseAddress(e); err != nil || a.Address != e || !plainText(e) || len(e) > maxClaimEmail {
		return ""
	}
	return e
}

// boundRoles keeps each role once, without those that are not plain text
// or longer than maxRoleLength, and at most maxRoles of them: the
// service's own roles first, as they decide what the user may do.
func boundRoles(roles []string) []string {
	out, seen := []string{}, map[string]bool{}
	for _, r := range roles {
		if !seen[r] && plainText(r) && len(r) <= maxRoleLength {
			seen[r] = true
			out = append(out, r)
		}
	}
	if len(out) > maxRoles {
		slices.SortStableFunc(out, func(x, y string) int {
			return int(role.Highest([]string{y})) - int(role.Highest([]string{x}))
		})
		out = out[:maxRoles]
	}
	return out
}

// lookup follows a dotted claim path such as realm_access.roles.
func lookup(claims map[string]any, path string) any {
	var cur any = claims
	for part := range strings.SplitSeq(path, ".") {
		m, ok := cur.(map[string]any)
		if !ok {
			return nil
		}
		cur = m[part]
	}
	return cur
}

func claimString(claims map[string]any, path string) string {
	s, _ := lookup(claims, path).(string)
	return s
}

// claimStrings reads a list claim; a single string is split on spaces and
// commas, as some providers send roles that way.
func claimStrings(claims map[string]any, path string) []string {
	out := []string{}
	switch v := lookup(claims, path).(type) {
	case []any:
		for _, x := range v {
			if s, ok := x.(string); ok && s != "" {
				out = append(out, s)
			}
		}
	case string:
		out = append(out, strings.FieldsFunc(v, func(r rune) bool { return r == ' ' || r == ',' })...)
	}
	return out
}

// Operation metadata keys read by the auth middleware.
const (
	metaRole       = "auditd-role"
	metaQueryToken = "auditd-query-token"
)

// middleware enforces authentication on every operation that declares the
// bearer security scheme, and the minimum role the operation declares.
func (a *Authenticator) middleware(lim *limiter) func(huma.Context, func(huma.Context)) {
	return func(hctx huma.Context, next func(huma.Context)) {
		op := hctx.Operation()
		if isPublic(op) {
			next(hctx)
			return
		}
		ctx := hctx.Context()
		r, w := unwrap(hctx)
		queryToken, _ := op.Metadata[metaQueryToken].(bool)
		p, e := a.authenticate(ctx, r, queryToken)
		if e == nil {
			if need, _ := op.Metadata[metaRole].(role.Role); !p.Is(need) {
				e = Errorf(CodeForbidden, fmt.Sprintf("this operation needs the %s role", need))
			}
		}
		if e != nil {
			if e.Code == CodeUnauthorized || e.Code == CodeMissingAuthHeader {
				if f := lim.failedAuth(r); f != nil {
					f.write(w, r)
					return
				}
				w.Header().Set("WWW-Authenticate", `Bearer realm="auditd"`)
			}
			writeError(w, r, e)
			return
		}
		next(huma.WithValue(hctx, principalKey, p))
	}
}

// public is the security of an operation anyone may call, with no token
// (an empty requirement overriding the document's).
var public = []map[string][]string{{}}

// isPublic reports whether op needs no token: no requirement names a
// scheme.
func isPublic(op *huma.Operation) bool {
	for _, req := range op.Security {
		if len(req) > 0 {
			return false
		}
	}
	return true
}

// claimZone is the token's OIDC zoneinfo claim, an IANA time zone; ""
// when absent or not a zone.
func claimZone(claims map[string]any) string {
	name := claimString(claims, "zoneinfo")
	if _, err := l10n.Zone(name); err != nil {
		return ""
	}
	return name
}

// claimLocale is the token's OIDC locale claim, a BCP 47 tag ("es-ES";
// "es_ES" is accepted); "" when absent or not a language.
func claimLocale(claims map[string]any) string {
	tag, err := language.Parse(strings.ReplaceAll(claimString(claims, "locale"), "_", "-"))
	if err != nil || tag == language.Und {
		return ""
	}
	return tag.String()
}
