import { formatDateTime, roleName, t } from '../i18n';
import { useApp } from '../state';
import { PageHeader } from '../ui';

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
    </section>
  );
}
