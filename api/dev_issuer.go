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
	"net/http"
	"time"

	"github.com/go-chi/chi/v5"
	jose "github.com/go-jose/go-jose/v4"

	"github.com/auditd/auditd/db"
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

// DevClaims are the claims of a development token.
type DevClaims struct {
	Subject  string
	Username string
	Email    string
	Name     string
	Roles    []string
	TTL      time.Duration
}

// Mint signs an access token for c, valid for c.TTL from now.
func (d *DevIssuer) Mint(c DevClaims) (string, error) {
	if c.Subject == "" {
		return "", errors.New("a development token needs a subject")
	}
	now := time.Now()
	payload, err := json.Marshal(map[string]any{
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
	})
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

// routes serves the discovery document and the JWKS at the issuer's path.
func (d *DevIssuer) routes(r chi.Router) {
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
