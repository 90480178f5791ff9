package api

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"sync"
	"time"

	jose "github.com/go-jose/go-jose/v4"
)

// keyRefetch is the least time between two fetches of the issuer's JWKS.
const keyRefetch = 30 * time.Second

// signingAlgs are the asymmetric algorithms a token may be signed with (the
// verifier narrows them to what the issuer announces).
var signingAlgs = []jose.SignatureAlgorithm{
	jose.RS256, jose.RS384, jose.RS512, jose.ES256, jose.ES384, jose.ES512,
	jose.PS256, jose.PS384, jose.PS512, jose.EdDSA,
}

// keySet is the issuer's JWKS as go-oidc's verifier uses it (oidc.KeySet).
// A token that no cached key verifies (a key rotated at the issuer, or a
// forged key id) fetches the JWKS again, but at most once per keyRefetch
// (per discoveryRetry while fetching fails) whatever arrives meanwhile: tokens naming unknown keys cannot make the
// service flood the identity provider. go-oidc's own key set fetches for
// every such token.
type keySet struct {
	url    string
	client *http.Client
	now    func() time.Time

	mu   sync.Mutex
	keys []jose.JSONWebKey
	next time.Time // no fetch before then
}

func newKeySet(url string, now func() time.Time) *keySet {
	return &keySet{url: url, client: &http.Client{Timeout: 10 * time.Second}, now: now}
}

// VerifySignature returns the payload of the signed token raw.
func (k *keySet) VerifySignature(ctx context.Context, raw string) ([]byte, error) {
	jws, err := jose.ParseSignedCompact(raw, signingAlgs)
	if err != nil {
		return nil, fmt.Errorf("malformed token: %w", err)
	}
	k.mu.Lock()
	keys := k.keys
	k.mu.Unlock()
	if payload, ok := verifyWith(jws, keys); ok {
		return payload, nil
	}
	if keys, err = k.refresh(ctx); err != nil {
		return nil, err
	}
	if payload, ok := verifyWith(jws, keys); ok {
		return payload, nil
	}
	return nil, errors.New("no key of the issuer verifies the token's signature")
}

// verifyWith verifies jws with the keys of its key id (any key when it
// names none).
func verifyWith(jws *jose.JSONWebSignature, keys []jose.JSONWebKey) ([]byte, bool) {
	if len(jws.Signatures) != 1 {
		return nil, false
	}
	kid := jws.Signatures[0].Header.KeyID
	for i := range keys {
		if kid == "" || keys[i].KeyID == kid {
			if payload, err := jws.Verify(&keys[i]); err == nil {
				return payload, true
			}
		}
	}
	return nil, false
}

// refresh fetches the JWKS unless it was fetched less than keyRefetch ago
// (or failed less than discoveryRetry ago), and returns the keys.
// Concurrent callers wait for one fetch.
func (k *keySet) refresh(ctx context.Context) ([]jose.JSONWebKey, error) {
	k.mu.Lock()
	defer k.mu.Unlock()
	now := k.now()
	if now.Before(k.next) {
		return k.keys, nil
	}
	keys, err := k.fetch(context.WithoutCancel(ctx))
	if err != nil {
		k.next = now.Add(discoveryRetry)
		return nil, fmt.Errorf("fetching the issuer's keys: %w", err)
	}
	k.keys, k.next = keys, now.Add(keyRefetch)
	return keys, nil
}

func (k *keySet) fetch(ctx context.Context) ([]jose.JSONWebKey, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, k.url, nil)
	if err != nil {
		return nil, err
	}
	res, err := k.client.Do(req)
	if err != nil {
		return nil, err
	}
	defer res.Body.Close()
	if res.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("%s answered %s", k.url, res.Status)
	}
	var set jose.JSONWebKeySet
	if err := json.NewDecoder(io.LimitReader(res.Body, 1<<20)).Decode(&set); err != nil {
		return nil, fmt.Errorf("%s: %w", k.url, err)
	}
	return set.Keys, nil
}
