import type { JSX } from 'preact';
import { useState } from 'preact/hooks';
import { formatDateTime, t, type MessageKey } from '../i18n';
import { UserPicker } from '../pickers/Picker';
import { Link, location } from '../router';
import { useApp } from '../state';
import type { components } from '../openapi';
import { ConfirmDialog, ErrorMessage, Loading, OutcomeMessage, PageHeader, useAction, useLoad, type Outcome } from '../ui';

/** accessKinds are the kinds of read the access record keeps. */
const accessKinds = [
  'recording',
  'transcript',
  'revision',
  'validation',
  'export',
  'subject_export',
] as const satisfies readonly components['schemas']['AccessRecord']['kind'][];

/** AccessFilters are the access record's filters as the form holds them. */
interface AccessFilters {
  user: string;
  task: string;
  kind: (typeof accessKinds)[number] | '';
  from: string;
  to: string;
}

const noFilters: AccessFilters = { user: '', task: '', kind: '', from: '', to: '' };

/** accessQuery is the filters as GET /admin/access-records and its export take them. */
function accessQuery(f: AccessFilters) {
  return { ...f, kind: f.kind || undefined };
}

/** pageSize is how many access records a page shows. */
const pageSize = 50;

/**
 * PrivacyPage is the admins' privacy screen: the access record with its
 * filters and CSV export, erasures and what retention and erasures deleted,
 * and the export of everything held about a user.
 */
export function PrivacyPage() {
  const tab = privacyTabs.find(([name]) => name === location.value.query.get('tab')) ?? privacyTabs[0];
  const Card = tab[2];
  return (
    <section aria-labelledby="page-title">
      <PageHeader title={t('privacy.title')} />
      <nav class="tabs" aria-label={t('privacy.title')}>
        {privacyTabs.map(([name, label]) => (
          <Link key={name} class="nav-link" href={`${privacyPath}?tab=${name}`} aria-current={name === tab[0] ? 'page' : undefined}>
            {t(label)}
          </Link>
        ))}
      </nav>
      <Card />
    </section>
  );
}

const privacyPath = '/app/admin/privacy';

/** privacyTabs are the privacy screen's pages: name in the URL (?tab=), title, card. */
const privacyTabs: readonly (readonly [string, MessageKey, () => JSX.Element])[] = [
  ['access', 'privacy.access', AccessRecordCard],
  ['erasures', 'privacy.erasures', ErasuresCard],
  ['deletions', 'privacy.deletions', DeletionsCard],
  ['subject', 'privacy.subject', SubjectCard],
];

function AccessRecordCard() {
  const app = useApp();
  const [form, setForm] = useState<AccessFilters>(noFilters);
  const [applied, setApplied] = useState<AccessFilters>(noFilters);
  // The cursors of the pages read so far: the last is the page shown ('' the first).
  const [pages, setPages] = useState<string[]>(['']);
  const { run, busy } = useAction();
  const { data, error, reload } = useLoad(
    (signal) =>
      app.api.get('/admin/access-records', {
        params: { query: { ...accessQuery(applied), limit: pageSize, cursor: pages[pages.length - 1] } },
        signal,
      }),
    [app.api, applied, pages],
  );
  const rows = data?.items ?? [];
  // Changes merge into the latest filters: a picker commits what was typed on blur, as the next control changes.
  const put = (patch: Partial<AccessFilters>) => setForm((cur) => ({ ...cur, ...patch }));
  const field = (key: keyof AccessFilters, label: MessageKey, type = 'text') => (
    <div class="field">
      <label for={`access-${key}`}>{t(label)}</label>
      <input id={`access-${key}`} type={type} value={form[key]} onInput={(e) => put({ [key]: e.currentTarget.value })} />
    </div>
  );
  return (
    <section class="card" aria-labelledby="access-title">
      <h2 id="access-title">{t('privacy.access')}</h2>
      <form
        class="filters"
        role="search"
        aria-label={t('privacy.access')}
        onSubmit={(e) => {
          e.preventDefault();
          setApplied({ ...form, user: form.user.trim(), task: form.task.trim() });
          setPages(['']);
        }}
      >
        <div class="filter-row">
          <UserPicker id="access-user" free label={t('privacy.user')} value={form.user} onChange={(user) => put({ user })} />
          {field('task', 'privacy.task')}
          <div class="field">
            <label for="access-kind">{t('privacy.kind')}</label>
            <select
              id="access-kind"
              value={form.kind}
              onChange={(e) => put({ kind: accessKinds.find((k) => k === e.currentTarget.value) ?? '' })}
            >
              <option value="">{t('privacy.anyKind')}</option>
              {accessKinds.map((k) => (
                <option key={k} value={k}>
                  {t(`privacy.kind.${k}`)}
                </option>
              ))}
            </select>
          </div>
          {field('from', 'privacy.from', 'date')}
          {field('to', 'privacy.to', 'date')}
          <div class="filter-buttons">
            <button type="submit" class="button button-primary">
              {t('tasks.apply')}
            </button>
            <button
              type="button"
              class="button"
              disabled={busy}
              onClick={() =>
                void run(
                  () => app.api.download('/admin/access-records/export', { params: { query: accessQuery(applied) } }),
                  (name) => t('privacy.exported', { name }),
                )
              }
            >
              {t('privacy.exportCsv')}
            </button>
          </div>
        </div>
      </form>
      {error !== null ? (
        <ErrorMessage error={error} onRetry={reload} />
      ) : data === null ? (
        <Loading />
      ) : rows.length === 0 ? (
        <p class="muted">{t('privacy.none')}</p>
      ) : (
        <div class="table-wrap">
          <table class="table" data-testid="access-records">
            <caption class="sr-only">{t('privacy.access')}</caption>
            <thead>
              <tr>
                <th scope="col">{t('privacy.at')}</th>
                <th scope="col">{t('privacy.user')}</th>
                <th scope="col">{t('privacy.kind')}</th>
                <th scope="col">{t('privacy.task')}</th>
                <th scope="col">{t('privacy.detail')}</th>
                <th scope="col">{t('privacy.where')}</th>
                <th scope="col">{t('privacy.agent')}</th>
              </tr>
            </thead>
            <tbody>
              {rows.map((a) => (
                <tr key={a.id}>
                  <td>{formatDateTime(a.at)}</td>
                  <td>{a.user_name || a.user_id}</td>
                  <td>{t(`privacy.kind.${a.kind}`)}</td>
                  <td class="truncate" title={a.task_file_name}>
                    {a.task_uuid ? <Link href={`/app/tasks/${a.task_uuid}`}>{a.task_file_name || a.task_uuid}</Link> : '—'}
                  </td>
                  <td class="small truncate" title={a.detail ? JSON.stringify(a.detail) : undefined}>
                    {a.detail ? JSON.stringify(a.detail) : '—'}
                  </td>
                  <td>{a.client_ip ?? '—'}</td>
                  <td class="small truncate" title={a.user_agent}>
                    {a.user_agent ?? '—'}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {(pages.length > 1 || data?.next) && (
        <div class="pager">
          <button type="button" class="button" disabled={pages.length === 1} onClick={() => setPages(pages.slice(0, -1))}>
            {t('app.previousPage')}
          </button>
          <span class="muted small">{t('app.page', { n: pages.length })}</span>
          <button type="button" class="button" disabled={!data?.next} onClick={() => data?.next && setPages([...pages, data.next])}>
            {t('app.nextPage')}
          </button>
        </div>
      )}
    </section>
  );
}

function ErasuresCard() {
  const app = useApp();
  const [operator, setOperator] = useState({ id: '', name: '' });
  const [external, setExternal] = useState('');
  const [confirming, setConfirming] = useState(false);
  const [outcome, setOutcome] = useState<Outcome>(null);
  const { data, error, reload } = useLoad(
    (signal) => app.api.get('/admin/erasures', { params: { query: { limit: 50 } }, signal }),
    [app.api],
  );
  const who = [operator.name, external.trim()].filter(Boolean).join(', ');
  const erase = async () => {
    setConfirming(false);
    setOutcome(null);
    try {
      const e = await app.api.post('/admin/erasures', {
        body: {
          operator: operator.id || undefined,
          customer_ref: external.trim() || undefined,
        },
      });
      setOutcome({ ok: t('privacy.eraseStarted', { job: e.job_id ?? '—' }) });
      setOperator({ id: '', name: '' });
      setExternal('');
      reload();
    } catch (err) {
      setOutcome({ error: err });
    }
  };
  return (
    <section class="card" aria-labelledby="erasures-title">
      <h2 id="erasures-title">{t('privacy.erasures')}</h2>
      <p class="muted">{t('privacy.eraseHelp')}</p>
      <form
        class="filter-row"
        onSubmit={(e) => {
          e.preventDefault();
          // The picker commits what was typed on blur, before the button's click: the button cannot wait for it.
          if (who) setConfirming(true);
        }}
      >
        <UserPicker
          id="erase-operator"
          free
          label={t('privacy.operator')}
          any={t('pickers.none')}
          value={operator.id}
          onChange={(id, name) => setOperator({ id, name })}
        />
        <div class="field">
          <label for="erase-external">{t('privacy.externalId')}</label>
          <input id="erase-external" value={external} onInput={(e) => setExternal(e.currentTarget.value)} />
        </div>
        <div class="filter-buttons">
          <button type="submit" class="button button-danger">
            {t('privacy.erase')}
          </button>
        </div>
      </form>
      <OutcomeMessage outcome={outcome} />
      <ConfirmDialog
        open={confirming}
        title={t('privacy.erase')}
        confirm={t('privacy.erase')}
        danger
        onConfirm={() => void erase()}
        onClose={() => setConfirming(false)}
      >
        <p>{t('privacy.eraseConfirm', { who })}</p>
      </ConfirmDialog>
      {error !== null ? (
        <ErrorMessage error={error} onRetry={reload} />
      ) : data === null ? (
        <Loading />
      ) : !data.items?.length ? (
        <p class="muted">{t('privacy.noErasures')}</p>
      ) : (
        <div class="table-wrap">
          <table class="table" data-testid="erasures">
            <caption class="sr-only">{t('privacy.erasures')}</caption>
            <thead>
              <tr>
                <th scope="col">{t('privacy.at')}</th>
                <th scope="col">{t('privacy.requestedBy')}</th>
                <th scope="col">{t('privacy.criteria')}</th>
                <th scope="col">{t('privacy.status')}</th>
                <th scope="col">{t('privacy.detail')}</th>
              </tr>
            </thead>
            <tbody>
              {(data.items ?? []).map((e) => (
                <tr key={e.id}>
                  <td>{formatDateTime(e.created_at)}</td>
                  <td>{e.requested_by}</td>
                  <td>{[e.operator_id, e.customer_ref].filter(Boolean).join(', ')}</td>
                  <td>{t(`privacy.status.${e.status}`)}</td>
                  <td>
                    {t('privacy.counts', {
                      tasks: e.tasks,
                      recordings: e.recordings,
                      transcripts: e.transcripts,
                      audits: e.audits,
                      held: e.held,
                    })}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}

function DeletionsCard() {
  const app = useApp();
  const { data, error, reload } = useLoad(
    (signal) => app.api.get('/admin/deletions', { params: { query: { limit: 100 } }, signal }),
    [app.api],
  );
  return (
    <section class="card" aria-labelledby="deletions-title">
      <h2 id="deletions-title">{t('privacy.deletions')}</h2>
      {error !== null ? (
        <ErrorMessage error={error} onRetry={reload} />
      ) : data === null ? (
        <Loading />
      ) : !data.items?.length ? (
        <p class="muted">{t('privacy.noDeletions')}</p>
      ) : (
        <div class="table-wrap">
          <table class="table" data-testid="deletions">
            <caption class="sr-only">{t('privacy.deletions')}</caption>
            <thead>
              <tr>
                <th scope="col">{t('privacy.at')}</th>
                <th scope="col">{t('privacy.cause')}</th>
                <th scope="col">{t('tasks.campaign')}</th>
                <th scope="col">{t('privacy.kind')}</th>
                <th scope="col">{t('privacy.count')}</th>
              </tr>
            </thead>
            <tbody>
              {(data.items ?? []).map((d) => (
                <tr key={d.id}>
                  <td>{formatDateTime(d.at)}</td>
                  <td>{t(`privacy.cause.${d.cause}`)}</td>
                  <td>{d.campaign}</td>
                  <td>{t(`privacy.kind.${d.kind}`)}</td>
                  <td>{d.count}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}

function SubjectCard() {
  const app = useApp();
  const [user, setUser] = useState('');
  const { run, busy } = useAction();
  return (
    <section class="card" aria-labelledby="subject-title">
      <h2 id="subject-title">{t('privacy.subject')}</h2>
      <form
        class="filter-row"
        onSubmit={(e) => {
          e.preventDefault();
          if (user === '') return;
          void run(
            () => app.api.download('/admin/users/{id}/data', { params: { path: { id: user } } }),
            (name) => t('privacy.exported', { name }),
          );
        }}
      >
        <UserPicker id="subject-user" free label={t('privacy.subjectUser')} any={t('pickers.none')} value={user} onChange={setUser} />
        <div class="filter-buttons">
          <button type="submit" class="button button-primary" disabled={busy}>
            {t('privacy.subjectDownload')}
          </button>
        </div>
      </form>
    </section>
  );
}
