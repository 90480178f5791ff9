package api

import (
	"context"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"mime"
	"net/http"
	"regexp"
	"time"

	"github.com/go-chi/chi/v5"
	jose "github.com/go-jose/go-jose/v4"

	"github.com/auditd/auditd/db"
	"github.com/auditd/auditd/role"
)

// devKeyID names the development issuer's signing key (the JWKS kid).
const devKeyID = "auditd-dev-1"

// DevIssuer is the built-in development identity provider (AUTH_DEV=true):
// it serves an OIDC discovery document and a JWKS under its issuer URL, so
// the service verifies its tokens through the same go-oidc path as a real
// provider's, and it mints tokens for `auditd token`. Its key lives in the
// database so every process against that database shares it.
type DevIssuer struct {
	issuer   string
	audience string
	key      *rsa.PrivateKey
}

// NewDevIssuer loads the development signing key from the database, creating
// it on first use. issuer is the URL under which the issuer is served.
func NewDevIssuer(ctx context.Context, q db.DBTX, issuer, audience string) (*DevIssuer, error) {
	fresh, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		return nil, err
	}
	encoded := pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(fresh)})
	stored, err := db.DevSigningKeyEnsure(ctx, q, devKeyID, string(encoded))
	if err != nil {
		return nil, fmt.Errorf("development issuer key: %w", err)
	}
	block, _ := pem.Decode([]byte(stored))
	if block == nil {
		return nil, errors.New("development issuer key: stored key is not PEM")
	}
	key, err := x509.ParsePKCS1PrivateKey(block.Bytes)
	if err != nil {
		return nil, fmt.Errorf("development issuer key: %w", err)
	}
	return &DevIssuer{issuer: issuer, audience: audience, key: key}, nil
}

// DevClaims are the claims of a development token. Mint derives the ones
// left empty from Username: Subject is the username, Email
// USERNAME@example.test, Name the username.
type DevClaims struct {
	Subject  string
	Username string
	Email    string
	Name     string
	Roles    []string
	// Locale is the token's locale claim; none when "".
	Locale string
	// ZoneInfo is the token's zoneinfo claim (an IANA time zone); none
	// when "".
	ZoneInfo string
	TTL      time.Duration
}

// Mint signs an access token for c, valid for c.TTL from now. It returns an
// error when c has neither a subject nor a username.
func (d *DevIssuer) Mint(c DevClaims) (string, error) {
	if c.Subject == "" {
		c.Subject = c.Username
	}
	if c.Subject == "" {
		return "", errors.New("a development token needs a subject or a username")
	}
	if c.Email == "" && c.Username != "" {
		c.Email = c.Username + "@example.test"
	}
	if c.Name == "" {
		c.Name = c.Username
	}
	now := time.Now()
	claims := map[string]any{
		"iss":                d.issuer,
		"aud":                d.audience,
		"sub":                c.Subject,
		"preferred_username": c.Username,
		"email":              c.Email,
		"name":               c.Name,
		"roles":              c.Roles,
		"iat":                now.Unix(),
		"nbf":                now.Unix(),
		"exp":                now.Add(c.TTL).Unix(),
	}
	if c.Locale != "" {
		claims["locale"] = c.Locale
	}
	if c.ZoneInfo != "" {
		claims["zoneinfo"] = c.ZoneInfo
	}
	payload, err := json.Marshal(claims)
	if err != nil {
		return "", err
	}
	signer, err := jose.NewSigner(jose.SigningKey{Algorithm: jose.RS256, Key: d.key},
		(&jose.SignerOptions{}).WithType("at+jwt").WithHeader("kid", devKeyID))
	if err != nil {
		return "", err
	}
	sig, err := signer.Sign(payload)
	if err != nil {
		return "", err
	}
	return sig.CompactSerialize()
}

// routes serves the discovery document and the JWKS at the issuer's path,
// and the dashboard's development sign-in.
func (d *DevIssuer) routes(r chi.Router) {
	r.Post("/token", d.token)
	r.Get("/.well-known/openid-configuration", func(w http.ResponseWriter, _ *http.Request) {
		writeJSON(w, map[string]any{
			"issuer":                                d.issuer,
			"jwks_uri":                              d.issuer + "/keys",
			"response_types_supported":              []string{"code"},
			"subject_types_supported":               []string{"public"},
			"id_token_signing_alg_values_supported": []string{"RS256"},
		})
	})
	r.Get("/keys", func(w http.ResponseWriter, _ *http.Request) {
		writeJSON(w, jose.JSONWebKeySet{Keys: []jose.JSONWebKey{{
			Key: d.key.Public(), KeyID: devKeyID, Algorithm: string(jose.RS256), Use: "sig",
		}}})
	})
}

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(v)
}

// Development sign-in limits.
const (
	devTokenDefaultTTL = time.Hour
	devTokenMinTTL     = 5 * time.Second
	devTokenMaxTTL     = 12 * time.Hour
	devTokenMaxBody    = 16 << 10
)

// devUsername is what a development sign-in accepts as a username (it is
// also the token subject, the user's id).
var devUsername = regexp.MustCompile(`^[A-Za-z0-9._@-]{1,64}$`)

// devTokenRequest is the body of POST /dev-oidc/token.
type devTokenRequest struct {
	Username string   `json:"username"`
	Name     string   `json:"name,omitempty"`
	Email    string   `json:"email,omitempty"`
	Roles    []string `json:"roles"`
	// Locale is the locale claim: the dashboard sends its language, as an
	// identity provider sends the user's.
	Locale string `json:"locale,omitempty"`
	// ExpiresIn is the token's validity in seconds; 0 means an hour.
	ExpiresIn int `json:"expires_in,omitempty"`
}

// devToken is a token minted by the development sign-in.
type devToken struct {
	AccessToken string `json:"access_token"`
	TokenType   string `json:"token_type"`
	ExpiresIn   int    `json:"expires_in"`
}

// token is the dashboard's development sign-in: it mints an access token for
// any user and roles the caller names, as `auditd token` does. It is not an
// OAuth token endpoint, and it exists only with AUTH_DEV=true, which the
// service refuses on a non-loopback address.
func (d *DevIssuer) token(w http.ResponseWriter, r *http.Request) {
	req, e := readDevTokenRequest(w, r)
	if e != nil {
		writeError(w, r, e)
		return
	}
	ttl := devTokenDefaultTTL
	if req.ExpiresIn != 0 {
		ttl = time.Duration(req.ExpiresIn) * time.Second
	}
	tok, err := d.Mint(DevClaims{Username: req.Username, Name: req.Name, Email: req.Email, Roles: req.Roles, Locale: req.Locale, TTL: ttl})
	if err != nil {
		writeError(w, r, translate(r.Context(), err))
		return
	}
	writeJSON(w, Envelope[devToken]{Success: true, Code: "OK",
		Details: devToken{AccessToken: tok, TokenType: "Bearer", ExpiresIn: int(ttl / time.Second)}})
}

func readDevTokenRequest(w http.ResponseWriter, r *http.Request) (devTokenRequest, *Error) {
	var req devTokenRequest
	if mt, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type")); mt != "application/json" {
		return req, Errorf(CodeUnsupportedMediaType, "send the sign-in as JSON (Content-Type: application/json)")
	}
	dec := json.NewDecoder(http.MaxBytesReader(w, r.Body, devTokenMaxBody))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&req); err != nil {
		if _, tooLarge := errors.AsType[*http.MaxBytesError](err); tooLarge {
			return req, Errorf(CodePayloadTooLarge, fmt.Sprintf("the body is over %d bytes", devTokenMaxBody))
		}
		return req, Errorf(CodeValidation, `the body is not a sign-in request: send a JSON object such as {"username": "maria", "roles": ["quality"]}`).
			WithDetail("body", "not a sign-in request", nil)
	}
	switch {
	case req.Username == "":
		return req, Errorf(CodeMissingFields, "username is required").
			WithDetail("body.username", "required", nil)
	case !devUsername.MatchString(req.Username):
		return req, Errorf(CodeValidation, "username must be 1 to 64 letters, digits or . _ @ -").
			WithDetail("body.username", "not a username", req.Username)
	case req.Locale != "" && !languageTag.MatchString(req.Locale):
		return req, Errorf(CodeValidation, "locale must be a BCP 47 language tag such as es or en-US").
			WithDetail("body.locale", "not a language tag", req.Locale)
	case req.ExpiresIn != 0 && (req.ExpiresIn < int(devTokenMinTTL/time.Second) || req.ExpiresIn > int(devTokenMaxTTL/time.Second)):
		return req, Errorf(CodeValidation, fmt.Sprintf("expires_in must be between %d and %d seconds",
			int(devTokenMinTTL/time.Second), int(devTokenMaxTTL/time.Second))).
			WithDetail("body.expires_in", "out of range", req.ExpiresIn)
	}
	for i, name := range req.Roles {
		if role.Highest([]string{name}) == role.None { // not one of the four roles
			return req, Errorf(CodeValidation, fmt.Sprintf("%q is not a role: use admin, supervisor, quality or operator", name)).
				WithDetail(fmt.Sprintf("body.roles[%d]", i), "unknown role", name)
		}
	}
	return req, nil
}
