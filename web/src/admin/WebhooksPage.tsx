import { useState } from 'preact/hooks';
import { formatDateTime, hookEventName, hookFormatName, t } from '../i18n';
import { useApp } from '../state';
import type { components } from '../openapi';
import type { Webhook } from '../types';
import { ConfirmDialog, ErrorMessage, Loading, OutcomeMessage, PageHeader, useLoad, type Outcome } from '../ui';
import { CampaignPicker } from '../pickers/Picker';

type HookEvent = NonNullable<components['schemas']['CreateWebhookInputBody']['events']>[number];

/** hookEvents are the events a subscription may take, as the API's input has them (it lists them too: event_types). */
const hookEvents = [
  'task.audited',
  'task.critical_failure',
  'task.needs_review',
  'task.validated',
  'dispute.opened',
  'dispute.resolved',
  'calibration.closed',
] as const satisfies readonly HookEvent[];

/** hookEvent is the event type named x, if a subscription may take it. */
const hookEvent = (x: string) => hookEvents.find((e) => e === x);

/** hookFormats are the formats of a subscription's deliveries. */
const hookFormats = ['json', 'slack', 'teams'] as const satisfies readonly Webhook['format'][];

/** WebhooksPage manages the subscriptions of other systems to events: create, edit, delete, send a test and read the delivery log. */
export function WebhooksPage() {
  const app = useApp();
  const { data, error, reload } = useLoad((signal) => app.api.get('/webhooks', { signal }), [app.api]);
  const [editing, setEditing] = useState<Webhook | 'new' | null>(null);
  const [open, setOpen] = useState<string | null>(null);
  const [outcome, setOutcome] = useState<Outcome>(null);
  const [secret, setSecret] = useState<string | null>(null);
  const [deleting, setDeleting] = useState<Webhook | null>(null);
  const [rotating, setRotating] = useState<Webhook | null>(null);

  const test = async (h: Webhook) => {
    setOutcome(null);
    setOpen(h.id);
    try {
      const r = await app.api.post('/webhooks/{id}/test', { params: { path: { id: h.id } } });
      const a = r.attempt;
      setOutcome(
        !a
          ? { ok: t('hooks.testQueued') }
          : a.ok
            ? { ok: t('hooks.testOk', { status: a.status_code ?? '', ms: a.duration_ms }) }
            : { error: new Error(t('hooks.testFailed', { error: a.error ?? '' })) },
      );
    } catch (err) {
      setOutcome({ error: err });
    }
  };

  const remove = async (h: Webhook) => {
    setDeleting(null);
    setOutcome(null);
    try {
      await app.api.delete('/webhooks/{id}', { params: { path: { id: h.id } } });
      setOutcome({ ok: t('hooks.deleted', { name: h.name }) });
      if (open === h.id) setOpen(null);
      reload();
    } catch (err) {
      setOutcome({ error: err });
    }
  };

  const rotate = async (h: Webhook) => {
    setRotating(null);
    setOutcome(null);
    setSecret(null);
    try {
      const r = await app.api.post('/webhooks/{id}/secret', { params: { path: { id: h.id } } });
      setOutcome({ ok: t('hooks.rotated', { name: h.name, until: formatDateTime(r.previous_secret_until ?? '') }) });
      setSecret(r.secret ?? null);
      reload();
    } catch (err) {
      setOutcome({ error: err });
    }
  };

  return (
    <section aria-labelledby="page-title">
      <PageHeader title={t('hooks.title')}>
        <button type="button" class="button button-primary" onClick={() => setEditing('new')}>
          {t('hooks.new')}
        </button>
      </PageHeader>
      <p class="muted">{t('hooks.intro')}</p>
      <OutcomeMessage outcome={outcome} />
      <ConfirmDialog
        open={deleting !== null}
        title={t('hooks.delete')}
        confirm={t('hooks.delete')}
        danger
        onConfirm={() => deleting && void remove(deleting)}
        onClose={() => setDeleting(null)}
      >
        <p>{deleting && t('hooks.confirmDelete', { name: deleting.name })}</p>
      </ConfirmDialog>
      <ConfirmDialog
        open={rotating !== null}
        title={t('hooks.rotate')}
        confirm={t('hooks.rotate')}
        onConfirm={() => rotating && void rotate(rotating)}
        onClose={() => setRotating(null)}
      >
        <p>{rotating && t('hooks.confirmRotate', { name: rotating.name })}</p>
      </ConfirmDialog>
      {secret && (
        <div class="card" role="status">
          <p>{t('hooks.secretOnce')}</p>
          <code class="hook-secret">{secret}</code>
        </div>
      )}
      {editing && data && (
        <WebhookForm
          key={editing === 'new' ? 'new' : editing.id}
          hook={editing === 'new' ? null : editing}
          eventTypes={data.event_types ?? []}
          formats={data.formats ?? []}
          onDone={(created) => {
            setEditing(null);
            setSecret(created?.secret ?? null);
            reload();
          }}
        />
      )}
      {error !== null ? (
        <ErrorMessage error={error} onRetry={reload} />
      ) : data === null ? (
        <Loading />
      ) : (data.items ?? []).length === 0 ? (
        <p class="muted">{t('hooks.none')}</p>
      ) : (
        <div class="table-wrap">
          <table class="table">
            <caption class="sr-only">{t('hooks.title')}</caption>
            <thead>
              <tr>
                <th scope="col">{t('hooks.name')}</th>
                <th scope="col">{t('hooks.url')}</th>
                <th scope="col">{t('hooks.events')}</th>
                <th scope="col">{t('tasks.campaign')}</th>
                <th scope="col">{t('hooks.format')}</th>
                <th scope="col">{t('hooks.enabled')}</th>
                <th scope="col">{t('jobs.actions')}</th>
              </tr>
            </thead>
            <tbody>
              {(data.items ?? []).map((h) => (
                <tr key={h.id}>
                  <td>{h.name}</td>
                  <td class="hook-url">{h.url}</td>
                  <td>{(h.events ?? []).map(hookEventName).join(', ')}</td>
                  <td>{h.campaign ?? t('hooks.allCampaigns')}</td>
                  <td>{hookFormatName(h.format)}</td>
                  <td>
                    {t(h.enabled ? 'users.yes' : 'users.no')}
                    {h.previous_secret_until && (
                      <div class="muted">{t('hooks.previousUntil', { until: formatDateTime(h.previous_secret_until) })}</div>
                    )}
                  </td>
                  <td>
                    <button type="button" class="button button-small" onClick={() => void test(h)}>
                      {t('hooks.test')}
                    </button>
                    <button type="button" class="button button-small" onClick={() => setOpen(h.id)}>
                      {t('hooks.log')}
                    </button>
                    <button type="button" class="button button-small" onClick={() => setEditing(h)}>
                      {t('camp.edit')}
                    </button>
                    <button type="button" class="button button-small" onClick={() => setRotating(h)}>
                      {t('hooks.rotate')}
                    </button>
                    <button type="button" class="button button-small" onClick={() => setDeleting(h)}>
                      {t('hooks.delete')}
                    </button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {open && data && <DeliveryLog key={`${open}-${JSON.stringify(outcome)}`} hook={(data.items ?? []).find((h) => h.id === open)} />}
    </section>
  );
}

/** WebhookForm creates a subscription (hook null) or changes one. */
function WebhookForm(props: { hook: Webhook | null; eventTypes: string[]; formats: string[]; onDone: (created: Webhook | null) => void }) {
  const app = useApp();
  const h = props.hook;
  const [name, setName] = useState(h?.name ?? '');
  const [url, setUrl] = useState(h?.url ?? '');
  const [events, setEvents] = useState<HookEvent[]>((h?.events ?? []).flatMap((x) => hookEvent(x) ?? []));
  const [campaign, setCampaign] = useState(h?.campaign ?? '');
  const [format, setFormat] = useState<Webhook['format']>(h?.format ?? 'json');
  const [enabled, setEnabled] = useState(h?.enabled ?? true);
  const [outcome, setOutcome] = useState<Outcome>(null);

  const save = async (e: Event) => {
    e.preventDefault();
    setOutcome(null);
    const body = { name, url, events, campaign, format, enabled };
    try {
      const saved = h
        ? await app.api.patch('/webhooks/{id}', { params: { path: { id: h.id } }, body })
        : await app.api.post('/webhooks', { body });
      props.onDone(h ? null : saved);
    } catch (err) {
      setOutcome({ error: err });
    }
  };

  const toggle = (type: string, on: boolean) => {
    const e = hookEvent(type);
    if (e) setEvents(on ? [...events, e] : events.filter((x) => x !== e));
  };

  return (
    <form class="card" onSubmit={(e) => void save(e)} aria-labelledby="hook-form">
      <h2 id="hook-form">{h ? t('hooks.editTitle', { name: h.name }) : t('hooks.new')}</h2>
      <div class="filter-row">
        <div class="field">
          <label for="hook-name">{t('hooks.name')}</label>
          <input id="hook-name" required maxLength={80} value={name} onInput={(e) => setName(e.currentTarget.value)} />
        </div>
        <div class="field">
          <label for="hook-url">{t('hooks.url')}</label>
          <input id="hook-url" type="url" required value={url} onInput={(e) => setUrl(e.currentTarget.value)} />
        </div>
        <CampaignPicker
          id="hook-campaign"
          label={t('tasks.campaign')}
          any={t('hooks.allCampaigns')}
          value={campaign}
          onChange={setCampaign}
        />
        <div class="field">
          <label for="hook-format">{t('hooks.format')}</label>
          <select
            id="hook-format"
            value={format}
            onChange={(e) => setFormat(hookFormats.find((f) => f === e.currentTarget.value) ?? 'json')}
          >
            {props.formats.map((f) => (
              <option key={f} value={f}>
                {hookFormatName(f)}
              </option>
            ))}
          </select>
        </div>
      </div>
      <fieldset class="checks">
        <legend>{t('hooks.events')}</legend>
        {props.eventTypes.map((type) => (
          <label class="check" key={type}>
            <input type="checkbox" checked={events.some((x) => x === type)} onChange={(e) => toggle(type, e.currentTarget.checked)} />
            {hookEventName(type)}
          </label>
        ))}
      </fieldset>
      <div class="checks">
        <label class="check">
          <input type="checkbox" checked={enabled} onChange={(e) => setEnabled(e.currentTarget.checked)} />
          {t('hooks.enabled')}
        </label>
      </div>
      <OutcomeMessage outcome={outcome} />
      <div class="filter-buttons">
        <button type="submit" class="button button-primary">
          {t('hooks.save')}
        </button>
        <button type="button" class="button" onClick={() => props.onDone(null)}>
          {t('hooks.cancel')}
        </button>
      </div>
    </form>
  );
}

/** DeliveryLog lists a subscription's last delivery attempts. */
function DeliveryLog({ hook }: { hook: Webhook | undefined }) {
  const app = useApp();
  const id = hook?.id;
  const { data, error, reload } = useLoad(
    (signal) => (id ? app.api.get('/webhooks/{id}/deliveries', { params: { path: { id } }, signal }) : Promise.resolve(null)),
    [app.api, id],
  );
  if (!hook) return null;
  return (
    <div class="card" aria-labelledby="hook-log">
      <h2 id="hook-log">{t('hooks.logTitle', { name: hook.name })}</h2>
      {error !== null ? (
        <ErrorMessage error={error} onRetry={reload} />
      ) : data === null ? (
        <Loading />
      ) : !data.items?.length ? (
        <p class="muted">{t('hooks.noAttempts')}</p>
      ) : (
        <div class="table-wrap">
          <table class="table">
            <caption class="sr-only">{t('hooks.logTitle', { name: hook.name })}</caption>
            <thead>
              <tr>
                <th scope="col">{t('privacy.at')}</th>
                <th scope="col">{t('hooks.event')}</th>
                <th scope="col">{t('hooks.attempt')}</th>
                <th scope="col">{t('hooks.result')}</th>
                <th scope="col">{t('hooks.duration')}</th>
              </tr>
            </thead>
            <tbody>
              {(data.items ?? []).map((a) => (
                <tr key={`${a.delivery_id}-${a.attempt}`}>
                  <td>{formatDateTime(a.at)}</td>
                  <td>{hookEventName(a.event)}</td>
                  <td>{a.attempt}</td>
                  <td>
                    <span class={`badge ${a.ok ? 'hook-ok' : 'hook-failed'}`}>{a.status_code ?? t('hooks.noAnswer')}</span> {a.error ?? ''}
                  </td>
                  <td>{t('hooks.ms', { ms: a.duration_ms })}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <p class="muted small">{t('hooks.kept', { n: data?.kept ?? 100 })}</p>
    </div>
  );
}
