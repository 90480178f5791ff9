import { useState } from 'preact/hooks';
import { formatDateTime, roleName, t } from '../i18n';
import { useApp } from '../state';
import { ErrorMessage, Loading, OutcomeMessage, PageHeader, useLoad, type Outcome } from '../ui';

/** UsersPage lists the known users and starts a directory sync. */
export function UsersPage() {
  const app = useApp();
  const [q, setQ] = useState('');
  const [applied, setApplied] = useState('');
  const {
    data: users,
    error,
    reload,
  } = useLoad((signal) => app.api.get('/users', { params: { query: { q: applied, limit: 200 } }, signal }), [app.api, applied]);
  const [sync, setSync] = useState<Outcome>(null);

  const syncNow = async () => {
    setSync(null);
    try {
      const r = await app.api.post('/users/sync');
      setSync({ ok: t(r.duplicate ? 'users.syncRunning' : 'users.syncStarted', { job: r.job_id, provider: r.provider }) });
    } catch (err) {
      setSync({ error: err });
    }
  };

  return (
    <section aria-labelledby="page-title">
      <PageHeader title={t('users.title')}>
        <button type="button" class="button button-primary" onClick={() => void syncNow()}>
          {t('users.sync')}
        </button>
      </PageHeader>
      <OutcomeMessage outcome={sync} />
      <form
        class="filters"
        role="search"
        aria-label={t('users.search')}
        onSubmit={(e) => {
          e.preventDefault();
          setApplied(q.trim());
        }}
      >
        <div class="filter-row">
          <div class="field">
            <label for="users-q">{t('users.search')}</label>
            <input id="users-q" type="search" value={q} onInput={(e) => setQ(e.currentTarget.value)} />
          </div>
          <div class="filter-buttons">
            <button type="submit" class="button button-primary">
              {t('tasks.apply')}
            </button>
          </div>
        </div>
      </form>
      {error !== null ? (
        <ErrorMessage error={error} onRetry={reload} />
      ) : users === null ? (
        <Loading />
      ) : (
        <div class="table-wrap">
          <table class="table">
            <caption class="sr-only">{t('users.title')}</caption>
            <thead>
              <tr>
                <th scope="col">{t('profile.username')}</th>
                <th scope="col">{t('profile.name')}</th>
                <th scope="col">{t('profile.email')}</th>
                <th scope="col">{t('profile.role')}</th>
                <th scope="col">{t('users.active')}</th>
                <th scope="col">{t('profile.lastSeen')}</th>
              </tr>
            </thead>
            <tbody>
              {(users.items ?? []).map((u) => (
                <tr key={u.id}>
                  <td>{u.username}</td>
                  <td>{u.name || '—'}</td>
                  <td>{u.email || '—'}</td>
                  <td>
                    <span class={`badge role-${u.role}`}>{roleName(u.role)}</span>
                  </td>
                  <td>{t(u.active ? 'users.yes' : 'users.no')}</td>
                  <td>{formatDateTime(u.last_seen_at)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}
