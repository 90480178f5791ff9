// Signing in and keeping the access token fresh. Two providers sit behind
// one Auth: OIDC (authorization code with PKCE, through oidc-client-ts,
// loaded only when used) and, when the service runs with AUTH_DEV=true, the
// development sign-in that mints a token for any user and roles.
import { signal } from '@preact/signals';
import type { UserManager, User } from 'oidc-client-ts';
import { Api, ApiError } from './api';
import { t } from './i18n';
import type { ClientConfig } from './types';

/** unsigned calls the endpoints that need no token (the sign-in settings, the development sign-in). */
const unsigned = new Api(null);

/** Session is the signed-in user's access token. */
export interface Session {
  accessToken: string;
  /** expiresAt and obtainedAt are epoch milliseconds. */
  expiresAt: number;
  obtainedAt: number;
}

/** DevSignIn is what the development sign-in asks for (POST /dev-oidc/token). */
export interface DevSignIn {
  username: string;
  name?: string;
  roles: string[];
  /** locale is the token's locale claim: the language the user signs in with. */
  locale?: string;
  expires_in?: number;
}

/** callbackPath is where the identity provider sends the browser back (register it as the client's redirect URI). */
export const callbackPath = '/app/auth/callback';

interface Provider {
  /** restore returns the session this tab already has, finishing a sign-in redirect when the page is its callback. */
  restore(): Promise<{ session: Session | null; returnTo?: string }>;
  renew(): Promise<Session>;
  /** signOut ends the session, at the identity provider too when it can (which may leave the page). */
  signOut(): Promise<void>;
  /** forget drops the session (in every tab: they share it). */
  forget(): Promise<void>;
  /** owns reports whether key is the storage key the provider keeps the session under. */
  owns(key: string): boolean;
}

/** renewLead is how long before expiry a token is renewed: a fifth of its life, at most a minute. */
function renewLead(s: Session): number {
  return Math.min(60_000, (s.expiresAt - s.obtainedAt) / 5);
}

export type AuthStatus = 'loading' | 'signed-out' | 'signed-in' | 'unavailable';

/** Auth holds the session and renews its token before it expires. */
export class Auth {
  readonly status = signal<AuthStatus>('loading');
  readonly session = signal<Session | null>(null);
  /** notice says why the user is signed out (session ended, sign-in failed), or why sign-in is unavailable. */
  readonly notice = signal<string | null>(null);
  config: ClientConfig | null = null;

  private provider: Provider | null = null;
  private dev: DevProvider | null = null;
  private oidc: OidcProvider | null = null;
  private renewing: Promise<Session> | null = null;
  private timer: ReturnType<typeof setTimeout> | undefined;

  /** start loads the sign-in settings and restores the tab's session; it returns where to go after a sign-in redirect. */
  async start(): Promise<string | undefined> {
    this.status.value = 'loading';
    try {
      this.config = await unsigned.get('/client-config');
    } catch (err) {
      this.notice.value = t('signin.configFailed', { message: (err as Error).message });
      this.status.value = 'unavailable';
      return undefined;
    }
    try {
      if (this.config.auth_dev) {
        this.provider = this.dev = new DevProvider();
      } else if (this.config.client_id) {
        this.provider = this.oidc = await OidcProvider.create(this.config);
      } else {
        this.notice.value = t('signin.notConfigured', { issuer: this.config.issuer });
        this.status.value = 'unavailable';
        return undefined;
      }
      const { session, returnTo } = await this.provider.restore();
      this.set(session);
      window.addEventListener('storage', this.follow);
      return returnTo;
    } catch (err) {
      this.notice.value = t('signin.callbackFailed', { message: (err as Error).message });
      this.set(null);
      return undefined;
    }
  }

  /** signInDev signs in through the development issuer (AUTH_DEV=true only). */
  async signInDev(req: DevSignIn): Promise<void> {
    if (!this.dev) throw new Error('the development sign-in is off');
    this.notice.value = null;
    this.set(await this.dev.signIn(req));
  }

  /** signInOIDC sends the browser to the identity provider; it comes back to callbackPath. */
  async signInOIDC(returnTo: string): Promise<void> {
    if (!this.oidc) throw new Error('OIDC sign-in is not configured');
    this.notice.value = null;
    await this.oidc.signIn(returnTo);
  }

  /** signOut ends the session here and, for OIDC, at the identity provider when it supports it. */
  async signOut(): Promise<void> {
    const provider = this.provider;
    this.set(null);
    await provider?.signOut();
  }

  /** expire ends a session the API refused, telling the user why. */
  expire(message: string) {
    if (this.status.value !== 'signed-in') return;
    this.notice.value = message;
    this.set(null);
    void this.provider?.forget().catch(() => {});
  }

  /** accessToken returns a token valid for a while longer, renewing it first if needed. */
  accessToken = async (): Promise<string> => {
    const s = this.session.value;
    if (!s) throw new ApiError(t('signin.expired'), 'UNAUTHORIZED', 401);
    if (s.expiresAt - Date.now() > 5_000) return s.accessToken;
    return (await this.renew()).accessToken;
  };

  /** renew gets a fresh token (once, however many callers ask at the same time); the session ends if it cannot. */
  renew(): Promise<Session> {
    if (!this.renewing) {
      const provider = this.provider;
      if (!provider) return Promise.reject(new ApiError(t('signin.expired'), 'UNAUTHORIZED', 401));
      this.renewing = provider
        .renew()
        .then((s) => {
          this.set(s);
          return s;
        })
        .catch((err: unknown) => {
          this.expire(t('signin.expired'));
          throw err;
        })
        .finally(() => {
          this.renewing = null;
        });
    }
    return this.renewing;
  }

  /**
   * follow keeps this tab's session the one every tab shares (in localStorage): another tab signing out signs this one
   * out, and its sign-in or renewed token is taken here.
   */
  private follow = (e: StorageEvent) => {
    const provider = this.provider;
    if (e.storageArea !== localStorage || e.key === null || !provider?.owns(e.key)) return;
    if (e.newValue === null) {
      if (this.status.value === 'signed-in') this.notice.value = t('signin.signedOutElsewhere');
      this.set(null);
      return;
    }
    void provider
      .restore()
      .then(({ session }) => this.set(session))
      .catch(() => {});
  };

  private set(s: Session | null) {
    clearTimeout(this.timer);
    this.session.value = s;
    this.status.value = s ? 'signed-in' : 'signed-out';
    if (s) {
      const wait = Math.max(0, s.expiresAt - renewLead(s) - Date.now());
      this.timer = setTimeout(() => void this.renew().catch(() => {}), wait);
    }
  }
}

const devKey = 'auditd.dev-session';
/** oidcPrefix is the start of the key the OIDC session is kept under. */
const oidcPrefix = 'auditd.oidc.';

interface DevToken {
  access_token: string;
  expires_in: number;
}

/** DevProvider signs in with POST /dev-oidc/token and renews by asking again for the same user. */
class DevProvider implements Provider {
  owns(key: string) {
    return key === devKey;
  }

  async restore() {
    const raw = localStorage.getItem(devKey);
    if (!raw) return { session: null };
    const saved = JSON.parse(raw) as { request: DevSignIn; session: Session };
    if (saved.session.expiresAt - Date.now() > 5_000) return { session: saved.session };
    return { session: await this.signIn(saved.request) };
  }

  async signIn(request: DevSignIn): Promise<Session> {
    const now = Date.now();
    const tok = await unsigned.unlisted<DevToken>('post', '/dev-oidc/token', request);
    const session = { accessToken: tok.access_token, obtainedAt: now, expiresAt: now + tok.expires_in * 1000 };
    localStorage.setItem(devKey, JSON.stringify({ request, session }));
    return session;
  }

  renew(): Promise<Session> {
    const raw = localStorage.getItem(devKey);
    if (!raw) return Promise.reject(new Error('no development session to renew'));
    return this.signIn((JSON.parse(raw) as { request: DevSignIn }).request);
  }

  async signOut() {
    await this.forget();
  }

  async forget() {
    localStorage.removeItem(devKey);
  }
}

function sessionOf(user: User): Session {
  const now = Date.now();
  return {
    accessToken: user.access_token,
    obtainedAt: now,
    expiresAt: user.expires_at ? user.expires_at * 1000 : now + 5 * 60_000,
  };
}

/**
 * OidcProvider is the authorization code flow with PKCE against the
 * service's issuer. Tokens are renewed with the refresh token (the
 * dashboard asks for offline_access), so no hidden iframe is needed, which
 * the page's frame-ancestors 'none' would block anyway.
 */
class OidcProvider implements Provider {
  private constructor(private readonly mgr: UserManager) {}

  owns(key: string) {
    return key.startsWith(oidcPrefix);
  }

  static async create(cfg: ClientConfig): Promise<OidcProvider> {
    const { UserManager, WebStorageStateStore } = await import('oidc-client-ts');
    const origin = window.location.origin;
    return new OidcProvider(
      new UserManager({
        authority: cfg.issuer,
        client_id: cfg.client_id,
        redirect_uri: origin + callbackPath,
        post_logout_redirect_uri: origin + '/',
        response_type: 'code',
        scope: cfg.scopes,
        // Auth renews on its own schedule, for both providers.
        automaticSilentRenew: false,
        loadUserInfo: false,
        monitorSession: false,
        // Shared by the tabs (docs/security.md: Sessions across tabs).
        userStore: new WebStorageStateStore({ store: window.localStorage, prefix: oidcPrefix }),
      }),
    );
  }

  async restore() {
    if (window.location.pathname === callbackPath) {
      const user = await this.mgr.signinRedirectCallback();
      const state = user.state as { returnTo?: string } | undefined;
      return { session: sessionOf(user), returnTo: state?.returnTo ?? '/' };
    }
    const user = await this.mgr.getUser();
    if (!user) return { session: null };
    if (!user.expired) return { session: sessionOf(user) };
    try {
      return { session: await this.renew() };
    } catch {
      await this.mgr.removeUser();
      return { session: null };
    }
  }

  async signIn(returnTo: string) {
    await this.mgr.signinRedirect({ state: { returnTo } });
  }

  async renew(): Promise<Session> {
    const user = await this.mgr.signinSilent();
    if (!user) throw new Error('the identity provider gave no new token');
    return sessionOf(user);
  }

  async signOut() {
    const user = await this.mgr.getUser();
    try {
      await this.mgr.signoutRedirect({ id_token_hint: user?.id_token });
    } catch {
      // The provider has no end-session endpoint: forget the session here.
      await this.forget();
    }
  }

  async forget() {
    await this.mgr.removeUser();
  }
}
