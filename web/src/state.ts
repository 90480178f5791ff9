// AppState wires the app's parts together: the session, the API client, the
// event stream and the stores that follow it, and the signed-in profile.
import { effect, signal } from '@preact/signals';
import { createContext } from 'preact';
import { useContext } from 'preact/hooks';
import { Api, errorMessage } from './api';
import { Auth, callbackPath } from './auth';
import { asLocale, chosenLocale, followLocale, type Locale } from './i18n';
import { EventStream } from './events';
import { NotificationsStore } from './notifications/store';
import { location, navigate } from './router';
import type { Profile } from './types';

export interface Toast {
  id: number;
  kind: 'success' | 'error';
  message: string;
}

export class AppState {
  readonly auth = new Auth();
  readonly api = new Api(this.auth.accessToken, (err) => this.auth.expire(errorMessage(err)));
  readonly events = new EventStream(this.auth.accessToken);
  readonly notifications = new NotificationsStore(this.api, this.events);
  readonly profile = signal<Profile | null>(null);
  readonly profileError = signal<string | null>(null);
  readonly toasts = signal<Toast[]>([]);
  private toastId = 0;
  private entered = false;

  async start() {
    const returnTo = await this.auth.start();
    if (returnTo) navigate(returnTo, { replace: true });
    // A sign-in that failed on its way back leaves the browser at the
    // callback: sign-in from there must not come back to it.
    else if (location.value.path === callbackPath) navigate('/', { replace: true });
    effect(() => {
      if (this.auth.status.value === 'signed-in') void this.enter();
      else this.leave();
    });
  }

  /** signOut ends the session, and first this user's River UI sessions (best effort). */
  async signOut() {
    if (this.auth.config?.river_ui) await this.api.delete('/admin/riverui/session').catch(() => undefined);
    await this.auth.signOut();
  }

  /** enter loads the profile, then starts the live stream and what follows it. */
  async enter() {
    if (this.entered) return;
    this.entered = true;
    this.profileError.value = null;
    try {
      const me = await this.api.get('/users/me');
      if (!this.entered) return;
      this.profile.value = me;
      this.syncLocale(me);
      this.notifications.start(me.id);
      this.events.start();
    } catch (err) {
      this.entered = false;
      this.profileError.value = errorMessage(err);
    }
  }

  /**
   * syncLocale agrees the UI language with the profile's, the language the
   * server writes notifications in: a choice made in this browser is sent
   * to the server; otherwise the UI follows the profile's (the token's
   * locale claim, or a choice made elsewhere), if any.
   */
  private syncLocale(me: Profile) {
    const chosen = chosenLocale();
    const server = me.locale ? asLocale(me.locale) : null;
    if (chosen && (chosen !== server || !me.locale_chosen)) void this.saveLocale(chosen);
    else if (!chosen && server) followLocale(server);
  }

  /** saveLocale makes l the language of the signed-in user's notifications (best effort: the UI has switched already). */
  async saveLocale(l: Locale) {
    if (!this.profile.value) return;
    try {
      this.profile.value = await this.api.patch('/users/me', { body: { locale: l } });
    } catch (err) {
      this.toast('error', errorMessage(err));
    }
  }

  private leave() {
    if (!this.entered) return;
    this.entered = false;
    this.events.stop();
    this.notifications.stop();
    this.profile.value = null;
    this.toasts.value = [];
  }

  /** toast shows a short message; successes go away by themselves, errors stay until dismissed. */
  toast(kind: Toast['kind'], message: string) {
    const id = ++this.toastId;
    this.toasts.value = [...this.toasts.value, { id, kind, message }];
    if (kind === 'success') setTimeout(() => this.dismiss(id), 6000);
  }

  dismiss(id: number) {
    this.toasts.value = this.toasts.value.filter((x) => x.id !== id);
  }
}

export const AppContext = createContext<AppState | null>(null);

/** useApp returns the app's state; components render inside <AppContext.Provider>. */
export function useApp(): AppState {
  const app = useContext(AppContext);
  if (!app) throw new Error('useApp outside AppContext');
  return app;
}
