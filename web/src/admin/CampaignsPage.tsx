import { useState } from 'preact/hooks';
import { t } from '../i18n';
import { UsersPicker } from '../pickers/Picker';
import { useApp } from '../state';
import { SamplingRules } from '../reviews/SamplingRules';
import type { MessageKey } from '../i18n';
import type { Campaign } from '../types';
import { ErrorMessage, Loading, OutcomeMessage, PageHeader, useLoad, type Outcome } from '../ui';
import { RedactionSettings } from './RedactionSettings';
import { ScorecardBuilder } from './ScorecardBuilder';

/** CampaignsPage lists campaigns; one opens for editing its settings and publishing its scorecard. */
export function CampaignsPage() {
  const app = useApp();
  const { data: campaigns, error, reload } = useLoad((signal) => app.api.get('/campaigns', { signal }), [app.api]);
  const [open, setOpen] = useState<string | null>(null);
  const [creating, setCreating] = useState(false);
  const current = campaigns?.find((c) => c.id === open);
  return (
    <section aria-labelledby="page-title">
      <PageHeader title={t('camp.title')}>
        <button type="button" class="button button-primary" aria-expanded={creating} onClick={() => setCreating(!creating)}>
          {t('camp.new')}
        </button>
      </PageHeader>
      {creating && (
        <NewCampaign
          onCreated={(c) => {
            setCreating(false);
            setOpen(c.id);
            reload();
          }}
        />
      )}
      {error !== null ? (
        <ErrorMessage error={error} onRetry={reload} />
      ) : campaigns === null ? (
        <Loading />
      ) : (
        <div class="table-wrap">
          <table class="table">
            <caption class="sr-only">{t('camp.title')}</caption>
            <thead>
              <tr>
                <th scope="col">{t('tasks.campaign')}</th>
                <th scope="col">{t('camp.passing')}</th>
                <th scope="col">{t('camp.language')}</th>
                <th scope="col">{t('camp.version')}</th>
                <th scope="col">{t('jobs.actions')}</th>
              </tr>
            </thead>
            <tbody>
              {campaigns.map((c) => (
                <tr key={c.id}>
                  <td>{c.name}</td>
                  <td>{c.passing_score}</td>
                  <td>{c.language}</td>
                  <td>{c.scorecard_version}</td>
                  <td>
                    <button
                      type="button"
                      class="button button-small"
                      aria-label={`${t('camp.edit')} ${c.name}`}
                      onClick={() => setOpen(c.id)}
                    >
                      {t('camp.edit')}
                    </button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {current && <CampaignEditor key={current.id} campaign={current} onSaved={reload} />}
    </section>
  );
}

/** NewCampaign creates a campaign: its name, language, passing score and supervisors; its scorecard starts as the default one. */
function NewCampaign({ onCreated }: { onCreated: (c: Campaign) => void }) {
  const app = useApp();
  const [name, setName] = useState('');
  const [language, setLanguage] = useState('es');
  const [passing, setPassing] = useState('85');
  const [emails, setEmails] = useState('');
  const [outcome, setOutcome] = useState<Outcome>(null);
  const create = async (e: Event) => {
    e.preventDefault();
    setOutcome(null);
    try {
      onCreated(
        await app.api.post('/campaigns', {
          body: {
            name: name.trim(),
            language: language.trim(),
            passing_score: Number(passing),
            supervisor_emails: commaList(emails),
          },
        }),
      );
    } catch (err) {
      setOutcome({ error: err });
    }
  };
  return (
    <form class="card" onSubmit={(e) => void create(e)} aria-labelledby="camp-new">
      <h2 id="camp-new">{t('camp.new')}</h2>
      <p class="muted small">{t('camp.newHelp')}</p>
      <div class="filter-row">
        <div class="field">
          <label for="camp-new-name">{t('camp.name')}</label>
          <input id="camp-new-name" required maxLength={100} value={name} onInput={(e) => setName(e.currentTarget.value)} />
        </div>
        <div class="field">
          <label for="camp-new-language">{t('camp.language')}</label>
          <select id="camp-new-language" value={language} onChange={(e) => setLanguage(e.currentTarget.value)}>
            <option value="es">{t('sc.lang.es')}</option>
            <option value="en">{t('sc.lang.en')}</option>
          </select>
        </div>
        <PassingField id="camp-new-passing" value={passing} onInput={setPassing} />
        <div class="field">
          <label for="camp-new-emails">{t('camp.emails')}</label>
          <input id="camp-new-emails" value={emails} onInput={(e) => setEmails(e.currentTarget.value)} />
        </div>
      </div>
      <button type="submit" class="button button-primary">
        {t('camp.create')}
      </button>
      <OutcomeMessage outcome={outcome} />
    </form>
  );
}

/** PassingField is a campaign's passing score, as the forms that create and edit one take it. */
function PassingField({ id, value, onInput }: { id: string; value: string; onInput: (v: string) => void }) {
  return (
    <div class="field">
      <label for={id}>{t('camp.passing')}</label>
      <input id={id} type="number" min={0} max={100} step="0.01" value={value} onInput={(e) => onInput(e.currentTarget.value)} />
    </div>
  );
}

/** commaList is a comma-separated field's items, trimmed, empty ones left out. */
function commaList(text: string): string[] {
  return text
    .split(',')
    .map((x) => x.trim())
    .filter(Boolean);
}

function CampaignEditor({ campaign, onSaved }: { campaign: Campaign; onSaved: () => void }) {
  const app = useApp();
  const [passing, setPassing] = useState(String(campaign.passing_score));
  const [emails, setEmails] = useState((campaign.supervisor_emails ?? []).join(', '));
  const [language, setLanguage] = useState(campaign.language);
  const [seesAutomatic, setSeesAutomatic] = useState(campaign.operator_sees_automatic);
  const [analysts, setAnalysts] = useState(campaign.review_analysts ?? []);
  const [disputeDays, setDisputeDays] = useState(String(campaign.dispute_window_days));
  const [retention, setRetention] = useState(retentionText(campaign.retention));
  const [agentsSeeAccess, setAgentsSeeAccess] = useState(campaign.agents_see_access);
  const [settings, setSettings] = useState<Outcome>(null);

  const save = async (e: Event) => {
    e.preventDefault();
    setSettings(null);
    try {
      await app.api.patch('/campaigns/{id}', {
        params: { path: { id: campaign.id } },
        body: {
          passing_score: Number(passing),
          supervisor_emails: commaList(emails),
          language: language.trim(),
          operator_sees_automatic: seesAutomatic,
          review_analysts: analysts,
          dispute_window_days: Number(disputeDays),
          retention: retentionBody(retention),
          agents_see_access: agentsSeeAccess,
        },
      });
      setSettings({ ok: t('camp.saved') });
      onSaved();
    } catch (err) {
      setSettings({ error: err });
    }
  };

  return (
    <div class="campaign-editor">
      <form class="card" onSubmit={(e) => void save(e)} aria-labelledby="camp-settings">
        <h2 id="camp-settings">{t('camp.settings', { name: campaign.name })}</h2>
        <div class="filter-row">
          <PassingField id="camp-passing" value={passing} onInput={setPassing} />
          <div class="field">
            <label for="camp-language">{t('camp.language')}</label>
            <input id="camp-language" value={language} onInput={(e) => setLanguage(e.currentTarget.value)} />
          </div>
          <div class="field">
            <label for="camp-emails">{t('camp.emails')}</label>
            <input id="camp-emails" value={emails} onInput={(e) => setEmails(e.currentTarget.value)} />
          </div>
          <div class="field">
            <label for="camp-dispute-window">{t('camp.disputeWindow')}</label>
            <input
              id="camp-dispute-window"
              type="number"
              min={0}
              max={90}
              step="1"
              value={disputeDays}
              onInput={(e) => setDisputeDays(e.currentTarget.value)}
            />
          </div>
          <UsersPicker
            id="camp-analysts"
            label={t('camp.analysts')}
            any={t('camp.analystsAdd')}
            help={t('camp.analystsHint')}
            value={analysts}
            onChange={setAnalysts}
          />
        </div>
        <div class="checks">
          <label class="check">
            <input type="checkbox" checked={seesAutomatic} onChange={(e) => setSeesAutomatic(e.currentTarget.checked)} />
            {t('camp.seesAutomatic')}
          </label>
        </div>
        <fieldset class="retention">
          <legend>{t('camp.retention')}</legend>
          <p class="muted small">{t('camp.retentionHelp')}</p>
          <div class="filter-row">
            {retentionKinds.map(([key, label]) => (
              <div class="field" key={key}>
                <label for={`camp-${key}`}>{t(label)}</label>
                <input
                  id={`camp-${key}`}
                  type="number"
                  min={1}
                  max={36500}
                  step={1}
                  value={retention[key]}
                  onInput={(e) => setRetention({ ...retention, [key]: e.currentTarget.value })}
                />
              </div>
            ))}
          </div>
          <label class="check">
            <input type="checkbox" checked={agentsSeeAccess} onChange={(e) => setAgentsSeeAccess(e.currentTarget.checked)} />{' '}
            {t('camp.agentsSeeAccess')}
          </label>
        </fieldset>
        <button type="submit" class="button button-primary">
          {t('camp.save')}
        </button>
        <OutcomeMessage outcome={settings} />
      </form>
      <RedactionSettings campaign={campaign} onSaved={onSaved} />
      <ScorecardBuilder campaign={campaign} onPublished={onSaved} />
      <SamplingRules campaign={campaign} />
    </div>
  );
}

type RetentionKey = keyof Campaign['retention'];

/** retentionKinds are the retention's fields with their labels, in the order the form shows them. */
const retentionKinds: [RetentionKey, MessageKey][] = [
  ['recordings_days', 'camp.recordingsDays'],
  ['transcripts_days', 'camp.transcriptsDays'],
  ['audits_days', 'camp.auditsDays'],
];

/** retentionText is a retention as the form's fields hold it: empty for forever. */
function retentionText(r: Campaign['retention']): Record<RetentionKey, string> {
  return {
    recordings_days: r.recordings_days == null ? '' : String(r.recordings_days),
    transcripts_days: r.transcripts_days == null ? '' : String(r.transcripts_days),
    audits_days: r.audits_days == null ? '' : String(r.audits_days),
  };
}

/** retentionBody is the form's retention as the API takes it: an empty field is null (forever). */
function retentionBody(r: Record<RetentionKey, string>): Campaign['retention'] {
  const days = (v: string) => (v.trim() === '' ? null : Number(v));
  return { recordings_days: days(r.recordings_days), transcripts_days: days(r.transcripts_days), audits_days: days(r.audits_days) };
}
