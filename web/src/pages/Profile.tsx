import { useState } from 'preact/hooks';
import { formatDateTime, roleName, t } from '../i18n';
import { useApp } from '../state';
import type { Profile } from '../types';
import { ErrorMessage, PageHeader, useSubmit } from '../ui';

/** ProfilePage shows the signed-in user as the API knows them (GET /users/me) and the session. */
export function ProfilePage() {
  const app = useApp();
  const me = app.profile.value;
  const session = app.auth.session.value;
  const cfg = app.auth.config;
  if (!me) return null;
  const until = session ? formatDateTime(new Date(session.expiresAt).toISOString()) : '—';
  return (
    <section aria-labelledby="page-title">
      <PageHeader title={t('profile.title')} />
      <dl class="facts">
        <dt>{t('profile.name')}</dt>
        <dd data-testid="profile-name">{me.name || '—'}</dd>
        <dt>{t('profile.username')}</dt>
        <dd data-testid="profile-username">{me.username}</dd>
        <dt>{t('profile.email')}</dt>
        <dd>{me.email || '—'}</dd>
        <dt>{t('profile.id')}</dt>
        <dd>
          <code>{me.id}</code>
        </dd>
        <dt>{t('profile.role')}</dt>
        <dd>
          <span class={`badge role-${me.role}`} data-testid="profile-role">
            {roleName(me.role)}
          </span>
        </dd>
        <dt>{t('profile.roles')}</dt>
        <dd>{me.roles?.length ? me.roles.join(', ') : t('profile.noRoles')}</dd>
        <dt>{t('profile.unread')}</dt>
        <dd>{app.notifications.loaded.value ? app.notifications.state.value.unread : me.unread_notifications}</dd>
        <dt>{t('profile.since')}</dt>
        <dd>{formatDateTime(me.created_at)}</dd>
        <dt>{t('profile.lastSeen')}</dt>
        <dd>{formatDateTime(me.last_seen_at)}</dd>
        <dt>{t('profile.session')}</dt>
        <dd>
          {cfg?.auth_dev ? t('profile.sessionDev', { time: until }) : t('profile.sessionOidc', { issuer: cfg?.issuer ?? '', time: until })}
        </dd>
      </dl>
      <TimeZoneForm me={me} />
    </section>
  );
}

/** zones are the IANA time zones this browser knows, offered as the user types one. */
const zones = typeof Intl.supportedValuesOf === 'function' ? Intl.supportedValuesOf('timeZone') : [];

/** TimeZoneForm chooses the time zone of the times in the user's e-mails (PATCH /users/me). */
function TimeZoneForm({ me }: { me: Profile }) {
  const app = useApp();
  const [zone, setZone] = useState(me.time_zone || '');
  const [saved, setSaved] = useState(false);
  const { busy, error, submit } = useSubmit();
  const save = async () => {
    setSaved(false);
    app.profile.value = await app.api.patch('/users/me', { body: { time_zone: zone.trim() } });
    setSaved(true);
  };
  return (
    <form class="card" data-testid="time-zone" onSubmit={(e) => void submit(save)(e)}>
      <div class="field">
        <label for="profile-zone">{t('profile.timeZone')}</label>
        <input
          id="profile-zone"
          list="profile-zones"
          required
          value={zone}
          placeholder={me.default_time_zone}
          onInput={(e) => setZone(e.currentTarget.value)}
        />
        <datalist id="profile-zones">
          {zones.map((z) => (
            <option key={z} value={z} />
          ))}
        </datalist>
        <p class="small muted">{me.time_zone ? t('profile.timeZoneHelp') : t('profile.timeZoneDefault', { zone: me.default_time_zone })}</p>
      </div>
      {error !== null && <ErrorMessage error={error} />}
      {saved && <p class="alert alert-success">{t('profile.timeZoneSaved')}</p>}
      <div class="form-actions">
        <button type="submit" class="button button-primary" disabled={busy}>
          {t('profile.timeZoneSave')}
        </button>
        <button type="button" class="button" disabled={busy} onClick={() => setZone(Intl.DateTimeFormat().resolvedOptions().timeZone)}>
          {t('profile.timeZoneBrowser')}
        </button>
      </div>
    </form>
  );
}
