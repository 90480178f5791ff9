import { useEffect, useState } from 'preact/hooks';
import { formatDateTime, formatRelative, t } from '../i18n';
import { CampaignPicker, CriterionPicker, UserPicker } from '../pickers/Picker';
import { Link } from '../router';
import { useApp } from '../state';
import { atLeast, type Coaching } from '../types';
import { ConfirmDialog, ErrorMessage, Loading, PageHeader, useAction, useLoad } from '../ui';
import { CoachEditDialog } from './CoachDialog';

const statuses = ['active', 'open', 'acknowledged', 'done', 'all'] as const;
type Status = (typeof statuses)[number];

const events = ['coaching.opened', 'coaching.updated', 'coaching.acknowledged', 'coaching.commented', 'coaching.closed'];

/** overdue reports whether item c is past its due date and not done. */
function overdue(c: Coaching): boolean {
  return c.status !== 'done' && Date.parse(c.due_at) < Date.now();
}

function Due({ item }: { item: Coaching }) {
  return (
    <span class={overdue(item) ? 'badge task-fail' : undefined}>
      {formatDateTime(item.due_at)}
      {overdue(item) && ` · ${t('coaching.overdue')}`}
    </span>
  );
}

/**
 * CoachingListPage lists coaching items (GET /coaching) by status,
 * campaign and criterion: for supervisors every agent's (or one's); for
 * anyone else the items that coach them.
 */
export function CoachingListPage() {
  const app = useApp();
  const [status, setStatus] = useState<Status>('active');
  const [f, setF] = useState({ agent_id: '', campaign_id: '', criterion_id: '' });
  const put = (patch: Partial<typeof f>) => setF((cur) => ({ ...cur, ...patch }));
  const coach = atLeast(app.profile.value?.role ?? 'none', 'supervisor');
  const { data, error, reload } = useLoad(
    (signal) =>
      app.api.get('/coaching', {
        params: { query: { status, agent_id: f.agent_id, campaign_id: f.campaign_id, criterion_id: f.criterion_id } },
        signal,
      }),
    [app.api, status, f.agent_id, f.campaign_id, f.criterion_id],
  );
  useEffect(() => {
    const offs = events.map((type) => app.events.on(type, () => reload()));
    return () => offs.forEach((off) => off());
  }, [app.events, reload, status]);

  return (
    <section aria-labelledby="page-title">
      <PageHeader title={t(coach ? 'coaching.title' : 'coaching.mine')} />
      <div class="filters filter-row">
        <div class="field">
          <label for="coaching-status">{t('coaching.status')}</label>
          <select id="coaching-status" value={status} onChange={(e) => setStatus(e.currentTarget.value as Status)}>
            {statuses.map((s) => (
              <option key={s} value={s}>
                {t(`coaching.status.${s}`)}
              </option>
            ))}
          </select>
        </div>
        {coach && (
          <UserPicker id="coaching-agent" label={t('coaching.agent')} value={f.agent_id} onChange={(agent_id) => put({ agent_id })} />
        )}
        <CampaignPicker
          id="coaching-campaign"
          by="id"
          label={t('coaching.campaign')}
          value={f.campaign_id}
          onChange={(campaign_id) => put({ campaign_id })}
        />
        <CriterionPicker
          id="coaching-criterion"
          label={t('coaching.criterion')}
          campaign=""
          value={f.criterion_id}
          onChange={(criterion_id) => put({ criterion_id })}
        />
      </div>
      {error !== null && !data ? (
        <ErrorMessage error={error} onRetry={reload} />
      ) : !data ? (
        <Loading />
      ) : !data.items?.length ? (
        <p class="muted">{t('coaching.empty')}</p>
      ) : (
        <div class="table-wrap">
          <table class="table">
            <caption class="sr-only">{t('coaching.title')}</caption>
            <thead>
              <tr>
                <th scope="col">{t('coaching.item')}</th>
                {coach && <th scope="col">{t('coaching.agent')}</th>}
                <th scope="col">{t('coaching.campaign')}</th>
                <th scope="col">{t('coaching.criteria')}</th>
                <th scope="col">{t('coaching.status')}</th>
                <th scope="col">{t('coaching.due')}</th>
              </tr>
            </thead>
            <tbody>
              {data.items.map((c) => (
                <tr key={c.id} data-coaching={c.id}>
                  <td>
                    <Link href={`/app/coaching/${c.id}`}>{c.title}</Link>
                  </td>
                  {coach && <td>{c.agent_name}</td>}
                  <td>{c.campaign}</td>
                  <td>{(c.criteria ?? []).map((k) => k.question).join(' · ')}</td>
                  <td>{t(`coaching.status.${c.status}`)}</td>
                  <td>
                    <Due item={c} />
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

/**
 * CoachingItemPage is one coaching item (GET /coaching/{id}): what to work
 * on, the criteria, the linked interactions with their quotes, the due
 * date and the comments; the agent acknowledges it, both comment, a
 * supervisor closes it.
 */
export function CoachingItemPage({ id }: { id: string }) {
  const app = useApp();
  const item = { params: { path: { id } } };
  const {
    data: c,
    error,
    reload,
  } = useLoad((signal) => app.api.get('/coaching/{id}', { params: { path: { id } }, signal }), [app.api, id]);
  const [comment, setComment] = useState('');
  const [closing, setClosing] = useState(false);
  const [editing, setEditing] = useState(false);
  const { busy, run } = useAction();
  useEffect(() => {
    const offs = events.map((type) => app.events.on(type, (ev) => (ev.data as { id?: string }).id === id && reload()));
    return () => offs.forEach((off) => off());
  }, [app.events, id, reload]);
  if (error !== null && !c) return <ErrorMessage error={error} onRetry={reload} />;
  if (!c) return <Loading />;

  const act = (action: () => Promise<unknown>) => void run(action).then(reload);
  const send = (e: Event) => {
    e.preventDefault();
    act(async () => {
      await app.api.post('/coaching/{id}/comments', { ...item, body: { body: comment } });
      setComment('');
    });
  };
  return (
    <section aria-labelledby="page-title" data-status={c.status}>
      <PageHeader title={c.title}>
        {c.can_acknowledge && (
          <button
            type="button"
            class="button button-primary"
            disabled={busy}
            onClick={() => act(() => app.api.post('/coaching/{id}/acknowledgement', item))}
          >
            {t('coaching.acknowledge')}
          </button>
        )}
        {c.can_edit && (
          <>
            <button type="button" class="button" disabled={busy} onClick={() => setEditing(true)}>
              {t('coaching.edit')}
            </button>
            <button type="button" class="button" disabled={busy} onClick={() => setClosing(true)}>
              {t('coaching.close')}
            </button>
          </>
        )}
      </PageHeader>
      <div class="card">
        <dl class="facts">
          <dt>{t('coaching.agent')}</dt>
          <dd>{c.agent_name}</dd>
          <dt>{t('coaching.campaign')}</dt>
          <dd>{c.campaign}</dd>
          <dt>{t('coaching.status')}</dt>
          <dd data-testid="coaching-status">{t(`coaching.status.${c.status}`)}</dd>
          <dt>{t('coaching.due')}</dt>
          <dd>
            <Due item={c} />
          </dd>
        </dl>
        <p class="small muted">
          {t('coaching.opened', { coach: c.coach_name, when: formatRelative(c.opened_at) })}
          {c.acknowledged_at && ` · ${t('coaching.acknowledgedAt', { when: formatRelative(c.acknowledged_at) })}`}
          {c.closed_at && ` · ${t('coaching.closedAt', { when: formatRelative(c.closed_at) })}`}
        </p>
        <h2>{t('coaching.focus')}</h2>
        <p class="notes">{c.focus}</p>
        {(c.criteria ?? []).length > 0 && (
          <>
            <h2>{t('coaching.criteria')}</h2>
            <ul>
              {(c.criteria ?? []).map((k) => (
                <li key={k.criterion_id}>{k.question}</li>
              ))}
            </ul>
          </>
        )}
        <h2>{t('coaching.links')}</h2>
        {(c.links ?? []).length === 0 ? (
          <p class="muted">{t('coaching.noLinks')}</p>
        ) : (
          <ul>
            {(c.links ?? []).map((l) => (
              <li key={l.task_uuid}>
                <Link href={`/app/tasks/${l.task_uuid}`}>{l.file_name}</Link>
                {l.quote && <blockquote class="quote">{l.quote}</blockquote>}
              </li>
            ))}
          </ul>
        )}
      </div>
      <section class="card" aria-labelledby="thread-title">
        <h2 id="thread-title">{t('coaching.thread')}</h2>
        {(c.thread ?? []).length === 0 ? (
          <p class="muted">{t('coaching.noComments')}</p>
        ) : (
          <ol class="thread">
            {(c.thread ?? []).map((m) => (
              <li key={m.id} data-comment={m.id}>
                <p class="small muted">
                  {m.author_name} · {formatRelative(m.created_at)}
                </p>
                <p class="notes">{m.body}</p>
              </li>
            ))}
          </ol>
        )}
        {c.can_comment && (
          <form onSubmit={send}>
            <div class="field">
              <label for="coaching-comment">{t('coaching.comment')}</label>
              <textarea
                id="coaching-comment"
                rows={3}
                required
                maxLength={2000}
                value={comment}
                onInput={(e) => setComment(e.currentTarget.value)}
              />
            </div>
            <p class="form-actions">
              <button type="submit" class="button button-primary" disabled={busy || !comment.trim()}>
                {t('coaching.send')}
              </button>
            </p>
          </form>
        )}
      </section>
      {editing && <CoachEditDialog item={c} onSaved={reload} onClose={() => setEditing(false)} />}
      <ConfirmDialog
        open={closing}
        title={t('coaching.close')}
        confirm={t('coaching.close')}
        onConfirm={() => {
          setClosing(false);
          act(() => app.api.post('/coaching/{id}/closure', item));
        }}
        onClose={() => setClosing(false)}
      >
        <p>{t('coaching.closeConfirm', { title: c.title })}</p>
      </ConfirmDialog>
    </section>
  );
}
