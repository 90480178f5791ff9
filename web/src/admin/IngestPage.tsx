import { useState } from 'preact/hooks';
import { formatDateTime, t, type MessageKey } from '../i18n';
import { Link } from '../router';
import { useApp } from '../state';
import type { IngestSource } from '../types';
import { ErrorMessage, Loading, OutcomeMessage, PageHeader, useLoad, type Outcome } from '../ui';
import { CampaignPicker } from '../pickers/Picker';

/** IngestPage manages the ingest sources (bucket prefixes and directories polled for recordings) and shows what became of each object. */
export function IngestPage() {
  const app = useApp();
  const { data, error, reload } = useLoad((signal) => app.api.get('/ingest-sources', { signal }), [app.api]);
  const [editing, setEditing] = useState<IngestSource | 'new' | null>(null);
  const [open, setOpen] = useState<string | null>(null);
  const [outcome, setOutcome] = useState<Outcome>(null);

  const poll = async (s: IngestSource) => {
    setOutcome(null);
    try {
      await app.api.post('/ingest-sources/{id}/poll', { params: { path: { id: s.id } } });
      setOutcome({ ok: t('ingest.pollQueued', { name: s.name }) });
    } catch (err) {
      setOutcome({ error: err });
    }
  };

  const remove = async (s: IngestSource) => {
    if (!confirm(t('ingest.confirmDelete', { name: s.name }))) return;
    setOutcome(null);
    try {
      await app.api.delete('/ingest-sources/{id}', { params: { path: { id: s.id } } });
      setOutcome({ ok: t('ingest.deleted', { name: s.name }) });
      if (open === s.id) setOpen(null);
      reload();
    } catch (err) {
      setOutcome({ error: err });
    }
  };

  const items = data?.items ?? [];
  return (
    <section aria-labelledby="page-title">
      <PageHeader title={t('ingest.title')}>
        <button type="button" class="button" onClick={reload}>
          {t('ingest.refresh')}
        </button>
        <button type="button" class="button button-primary" onClick={() => setEditing('new')}>
          {t('ingest.new')}
        </button>
      </PageHeader>
      <p class="muted">{t('ingest.intro')}</p>
      <OutcomeMessage outcome={outcome} />
      {editing && (
        <SourceForm
          key={editing === 'new' ? 'new' : editing.id}
          source={editing === 'new' ? null : editing}
          onDone={() => {
            setEditing(null);
            reload();
          }}
        />
      )}
      {error !== null ? (
        <ErrorMessage error={error} onRetry={reload} />
      ) : data === null ? (
        <Loading />
      ) : items.length === 0 ? (
        <p class="muted">{t('ingest.none')}</p>
      ) : (
        <div class="table-wrap">
          <table class="table">
            <caption class="sr-only">{t('ingest.title')}</caption>
            <thead>
              <tr>
                <th scope="col">{t('hooks.name')}</th>
                <th scope="col">{t('ingest.location')}</th>
                <th scope="col">{t('tasks.campaign')}</th>
                <th scope="col">{t('ingest.every')}</th>
                <th scope="col">{t('ingest.lastPoll')}</th>
                <th scope="col">{t('ingest.counts')}</th>
                <th scope="col">{t('jobs.actions')}</th>
              </tr>
            </thead>
            <tbody>
              {items.map((s) => (
                <tr key={s.id}>
                  <td>
                    {s.name}
                    {!s.enabled && <span class="badge"> {t('ingest.disabled')}</span>}
                  </td>
                  <td class="hook-url">
                    <span class="muted small">{t(`ingest.kind.${s.kind}` as MessageKey)}</span> {s.location}
                  </td>
                  <td>{s.campaign ?? t('ingest.defaultCampaign')}</td>
                  <td>{t('ingest.seconds', { n: s.poll_seconds })}</td>
                  <td>
                    {s.polled_at ? formatDateTime(s.polled_at) : t('ingest.never')}
                    {s.poll_error && <div class="error-text small">{s.poll_error}</div>}
                  </td>
                  <td>{t('ingest.countsValue', { taken: s.taken, skipped: s.skipped, failed: s.failed })}</td>
                  <td>
                    <button type="button" class="button button-small" onClick={() => void poll(s)}>
                      {t('ingest.poll')}
                    </button>
                    <button type="button" class="button button-small" onClick={() => setOpen(s.id)}>
                      {t('ingest.objects')}
                    </button>
                    <button type="button" class="button button-small" onClick={() => setEditing(s)}>
                      {t('camp.edit')}
                    </button>
                    <button type="button" class="button button-small" onClick={() => void remove(s)}>
                      {t('hooks.delete')}
                    </button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {open && <ObjectLog key={open} source={items.find((s) => s.id === open)} />}
    </section>
  );
}

/** agentLines writes a mapping as "agent id = user" lines; parseAgents reads them back. */
const agentLines = (m: Record<string, string> | undefined) =>
  Object.entries(m ?? {})
    .map(([k, v]) => `${k} = ${v}`)
    .join('\n');
const parseAgents = (text: string) => {
  const out: Record<string, string> = {};
  for (const line of text.split('\n')) {
    const i = line.indexOf('=');
    if (line.trim() === '') continue;
    out[(i < 0 ? line : line.slice(0, i)).trim()] = i < 0 ? '' : line.slice(i + 1).trim();
  }
  return out;
};

/** SourceForm creates a source (source null) or changes one; the secret is written, never read. */
function SourceForm(props: { source: IngestSource | null; onDone: () => void }) {
  const app = useApp();
  const s = props.source;
  const [name, setName] = useState(s?.name ?? '');
  const [kind, setKind] = useState<IngestSource['kind']>(s?.kind ?? 'directory');
  const [location, setLocation] = useState(s?.location ?? '');
  const [keyID, setKeyID] = useState('');
  const [secret, setSecret] = useState('');
  const [campaign, setCampaign] = useState(s?.campaign ?? '');
  const [language, setLanguage] = useState(s?.language ?? '');
  const [agents, setAgents] = useState(agentLines(s?.agents));
  const [every, setEvery] = useState(String(s?.poll_seconds ?? 60));
  const [wait, setWait] = useState(String(s?.sidecar_wait_seconds ?? 60));
  const [enabled, setEnabled] = useState(s?.enabled ?? true);
  const [outcome, setOutcome] = useState<Outcome>(null);

  const save = async (e: Event) => {
    e.preventDefault();
    setOutcome(null);
    const body = {
      name,
      kind,
      location,
      campaign,
      language,
      agents: parseAgents(agents),
      poll_seconds: Number(every),
      sidecar_wait_seconds: Number(wait),
      enabled,
      ...(keyID !== '' || secret !== '' ? { access_key_id: keyID, secret_access_key: secret } : {}),
    };
    try {
      if (s) await app.api.patch('/ingest-sources/{id}', { params: { path: { id: s.id } }, body });
      else await app.api.post('/ingest-sources', { body });
      props.onDone();
    } catch (err) {
      setOutcome({ error: err });
    }
  };

  return (
    <form class="card" onSubmit={(e) => void save(e)} aria-labelledby="ingest-form">
      <h2 id="ingest-form">{s ? t('hooks.editTitle', { name: s.name }) : t('ingest.new')}</h2>
      <div class="filter-row">
        <div class="field">
          <label for="ingest-name">{t('hooks.name')}</label>
          <input id="ingest-name" required maxLength={80} value={name} onInput={(e) => setName(e.currentTarget.value)} />
        </div>
        <div class="field">
          <label for="ingest-kind">{t('ingest.kind')}</label>
          <select id="ingest-kind" value={kind} onChange={(e) => setKind(e.currentTarget.value === 's3' ? 's3' : 'directory')}>
            <option value="directory">{t('ingest.kind.directory')}</option>
            <option value="s3">{t('ingest.kind.s3')}</option>
          </select>
        </div>
        <div class="field field-wide">
          <label for="ingest-location">{t('ingest.location')}</label>
          <input
            id="ingest-location"
            required
            value={location}
            placeholder={kind === 's3' ? 's3://bucket/prefix/?region=eu-west-1' : '/srv/recordings'}
            onInput={(e) => setLocation(e.currentTarget.value)}
          />
        </div>
      </div>
      {kind === 's3' && (
        <div class="filter-row">
          <div class="field">
            <label for="ingest-key">{t('ingest.keyID')}</label>
            <input id="ingest-key" autoComplete="off" value={keyID} onInput={(e) => setKeyID(e.currentTarget.value)} />
          </div>
          <div class="field">
            <label for="ingest-secret">{t('ingest.secret')}</label>
            <input
              id="ingest-secret"
              type="password"
              autoComplete="new-password"
              value={secret}
              onInput={(e) => setSecret(e.currentTarget.value)}
            />
          </div>
          <p class="muted small">{s?.credentials ? t('ingest.credentialsKept') : t('ingest.credentialsHelp')}</p>
        </div>
      )}
      <div class="filter-row">
        <CampaignPicker
          id="ingest-campaign"
          label={t('tasks.campaign')}
          any={t('ingest.defaultCampaign')}
          value={campaign}
          onChange={setCampaign}
        />
        <div class="field">
          <label for="ingest-language">{t('ingest.language')}</label>
          <input
            id="ingest-language"
            maxLength={35}
            placeholder="es"
            value={language}
            onInput={(e) => setLanguage(e.currentTarget.value)}
          />
        </div>
        <div class="field">
          <label for="ingest-every">{t('ingest.pollSeconds')}</label>
          <input id="ingest-every" type="number" min={10} max={86400} value={every} onInput={(e) => setEvery(e.currentTarget.value)} />
        </div>
        <div class="field">
          <label for="ingest-wait">{t('ingest.waitSeconds')}</label>
          <input id="ingest-wait" type="number" min={0} max={86400} value={wait} onInput={(e) => setWait(e.currentTarget.value)} />
        </div>
      </div>
      <div class="field">
        <label for="ingest-agents">{t('ingest.agents')}</label>
        <textarea id="ingest-agents" rows={3} placeholder="1001 = ana" value={agents} onInput={(e) => setAgents(e.currentTarget.value)} />
        <p class="muted small">{t('ingest.agentsHelp')}</p>
      </div>
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
        <button type="button" class="button" onClick={props.onDone}>
          {t('hooks.cancel')}
        </button>
      </div>
    </form>
  );
}

const pageSize = 50;
const statuses = ['', 'taken', 'skipped', 'failed', 'retry'] as const;

/** ObjectLog pages through what became of a source's objects, by status. */
function ObjectLog({ source }: { source: IngestSource | undefined }) {
  const app = useApp();
  const [status, setStatus] = useState<(typeof statuses)[number]>('');
  const [skip, setSkip] = useState(0);
  const id = source?.id;
  const { data, error, reload } = useLoad(
    (signal) =>
      id
        ? app.api.get('/ingest-sources/{id}/objects', {
            params: { path: { id }, query: { skip, limit: pageSize, status: status || undefined } },
            signal,
          })
        : Promise.resolve(null),
    [app.api, id, skip, status],
  );
  if (!source) return null;
  const total = data?.total ?? 0;
  return (
    <div class="card" aria-labelledby="ingest-objects">
      <h2 id="ingest-objects">{t('ingest.objectsTitle', { name: source.name })}</h2>
      <div class="filter-row">
        <div class="field">
          <label for="ingest-status">{t('ingest.status')}</label>
          <select
            id="ingest-status"
            value={status}
            onChange={(e) => {
              setStatus(statuses.find((st) => st === e.currentTarget.value) ?? '');
              setSkip(0);
            }}
          >
            {statuses.map((st) => (
              <option key={st} value={st}>
                {t(st ? (`ingest.status.${st}` as MessageKey) : 'ingest.status.all')}
              </option>
            ))}
          </select>
        </div>
      </div>
      {error !== null ? (
        <ErrorMessage error={error} onRetry={reload} />
      ) : data === null ? (
        <Loading />
      ) : (data.items ?? []).length === 0 ? (
        <p class="muted">{t('ingest.noObjects')}</p>
      ) : (
        <div class="table-wrap">
          <table class="table">
            <caption class="sr-only">{t('ingest.objectsTitle', { name: source.name })}</caption>
            <thead>
              <tr>
                <th scope="col">{t('ingest.key')}</th>
                <th scope="col">{t('ingest.status')}</th>
                <th scope="col">{t('ingest.what')}</th>
                <th scope="col">{t('privacy.at')}</th>
              </tr>
            </thead>
            <tbody>
              {(data.items ?? []).map((o) => (
                <tr key={o.key}>
                  <td class="hook-url">
                    {o.key}
                    {o.sidecar && <div class="muted small">+ {o.sidecar}</div>}
                  </td>
                  <td>
                    <span class={`badge ingest-${o.status}`}>{t(`ingest.status.${o.status}` as MessageKey)}</span>
                  </td>
                  <td>
                    {o.status === 'taken' && o.task_uuid ? (
                      <Link href={`/app/tasks/${o.task_uuid}`}>{t('ingest.openTask')}</Link>
                    ) : (
                      (o.reason ?? '')
                    )}
                  </td>
                  <td>{formatDateTime(o.at)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {total > 0 && (
        <div class="filter-buttons">
          <span class="muted small">{t('ingest.page', { from: skip + 1, to: Math.min(skip + pageSize, total), total })}</span>
          <button type="button" class="button button-small" disabled={skip === 0} onClick={() => setSkip(Math.max(0, skip - pageSize))}>
            {t('ingest.previous')}
          </button>
          <button type="button" class="button button-small" disabled={skip + pageSize >= total} onClick={() => setSkip(skip + pageSize)}>
            {t('ingest.next')}
          </button>
        </div>
      )}
    </div>
  );
}
