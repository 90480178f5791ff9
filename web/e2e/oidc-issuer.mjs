// A fake OpenID Connect provider on loopback for the end-to-end tests: the
// authorization code flow with PKCE (S256 required), refresh tokens and an
// end-session endpoint, at the protocol's wire level. It signs in one fixed
// user at once, without a login page, and records what it was asked, which
// the tests (in Playwright's worker, another process) read at GET /e2e/asked.
import { createHash, generateKeyPairSync, randomBytes, sign } from 'node:crypto';
import { createServer } from 'node:http';

const b64url = (buf) => Buffer.from(buf).toString('base64url');

/**
 * startFakeIssuer serves the provider on a free port of 127.0.0.1.
 * Access tokens carry audience and last tokenLifetime seconds.
 */
export function startFakeIssuer({ clientId, audience, tokenLifetime, user }) {
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const kid = 'e2e-1';
  const codes = new Map(); // code -> {challenge, redirectUri, nonce}
  const refreshTokens = new Set();
  const state = { url: '', grants: [], pkce: [], signedOut: 0 };

  const jwt = (claims) => {
    const head = b64url(JSON.stringify({ alg: 'RS256', typ: 'JWT', kid }));
    const body = b64url(JSON.stringify(claims));
    return `${head}.${body}.${b64url(sign('RSA-SHA256', Buffer.from(`${head}.${body}`), privateKey))}`;
  };

  const tokens = (nonce) => {
    const now = Math.floor(Date.now() / 1000);
    const common = { iss: state.url, sub: user.sub, iat: now, exp: now + tokenLifetime };
    const refresh = b64url(randomBytes(24));
    refreshTokens.add(refresh);
    return {
      token_type: 'Bearer',
      expires_in: tokenLifetime,
      scope: 'openid profile email offline_access',
      access_token: jwt({
        ...common,
        aud: audience,
        preferred_username: user.sub,
        name: user.name,
        email: `${user.sub}@example.test`,
        roles: user.roles,
      }),
      id_token: jwt({ ...common, aud: clientId, name: user.name, ...(nonce ? { nonce } : {}) }),
      refresh_token: refresh,
    };
  };

  const send = (res, status, body, headers = {}) => {
    res.writeHead(status, {
      'Content-Type': 'application/json',
      'Access-Control-Allow-Origin': '*',
      'Cache-Control': 'no-store',
      ...headers,
    });
    res.end(JSON.stringify(body));
  };
  const oauthError = (res, error, description) => send(res, 400, { error, error_description: description });

  const server = createServer(async (req, res) => {
    const url = new URL(req.url, state.url);
    if (req.method === 'OPTIONS') {
      res.writeHead(204, {
        'Access-Control-Allow-Origin': '*',
        'Access-Control-Allow-Headers': '*',
        'Access-Control-Allow-Methods': 'GET, POST',
      });
      return res.end();
    }
    switch (`${req.method} ${url.pathname}`) {
      case 'GET /.well-known/openid-configuration':
        return send(res, 200, {
          issuer: state.url,
          authorization_endpoint: `${state.url}/authorize`,
          token_endpoint: `${state.url}/token`,
          jwks_uri: `${state.url}/jwks`,
          end_session_endpoint: `${state.url}/logout`,
          response_types_supported: ['code'],
          grant_types_supported: ['authorization_code', 'refresh_token'],
          subject_types_supported: ['public'],
          id_token_signing_alg_values_supported: ['RS256'],
          code_challenge_methods_supported: ['S256'],
        });
      case 'GET /jwks':
        return send(res, 200, { keys: [{ ...publicKey.export({ format: 'jwk' }), kid, alg: 'RS256', use: 'sig' }] });
      case 'GET /authorize': {
        const q = url.searchParams;
        state.pkce.push(q.get('code_challenge_method'));
        if (
          q.get('client_id') !== clientId ||
          q.get('response_type') !== 'code' ||
          q.get('code_challenge_method') !== 'S256' ||
          !q.get('code_challenge')
        ) {
          return oauthError(res, 'invalid_request', 'needs client_id, response_type=code and an S256 code_challenge');
        }
        const code = b64url(randomBytes(16));
        codes.set(code, { challenge: q.get('code_challenge'), redirectUri: q.get('redirect_uri'), nonce: q.get('nonce') });
        const back = new URL(q.get('redirect_uri'));
        back.searchParams.set('code', code);
        back.searchParams.set('state', q.get('state') ?? '');
        res.writeHead(302, { Location: back.toString() });
        return res.end();
      }
      case 'POST /token': {
        let raw = '';
        for await (const chunk of req) raw += chunk;
        const form = new URLSearchParams(raw);
        const grant = form.get('grant_type');
        state.grants.push(grant);
        if (form.get('client_id') !== clientId) return oauthError(res, 'invalid_client', 'unknown client');
        if (grant === 'authorization_code') {
          const c = codes.get(form.get('code'));
          codes.delete(form.get('code'));
          if (!c) return oauthError(res, 'invalid_grant', 'unknown or used code');
          if (c.redirectUri !== form.get('redirect_uri')) return oauthError(res, 'invalid_grant', 'redirect_uri differs');
          const verifier = form.get('code_verifier') ?? '';
          if (b64url(createHash('sha256').update(verifier).digest()) !== c.challenge) {
            return oauthError(res, 'invalid_grant', 'PKCE verification failed');
          }
          return send(res, 200, tokens(c.nonce));
        }
        if (grant === 'refresh_token') {
          const rt = form.get('refresh_token');
          if (!refreshTokens.delete(rt)) return oauthError(res, 'invalid_grant', 'unknown refresh token');
          return send(res, 200, tokens(null));
        }
        return oauthError(res, 'unsupported_grant_type', grant ?? '');
      }
      case 'GET /e2e/asked':
        return send(res, 200, { grants: state.grants, pkce: state.pkce, signedOut: state.signedOut });
      case 'GET /logout': {
        state.signedOut++;
        const back = url.searchParams.get('post_logout_redirect_uri');
        res.writeHead(302, { Location: back ?? state.url });
        return res.end();
      }
      default:
        return send(res, 404, { error: 'not_found' });
    }
  });

  return new Promise((resolve) => {
    server.listen(0, '127.0.0.1', () => {
      state.url = `http://127.0.0.1:${server.address().port}`;
      resolve({
        get url() {
          return state.url;
        },
        close: () => new Promise((r) => server.close(() => r())),
      });
    });
  });
}
