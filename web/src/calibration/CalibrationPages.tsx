// Calibration sessions: the list with the history of agreement, a new
// session (supervisors), an analyst's blind scoring and the results.
import { useEffect, useState } from 'preact/hooks';
import { ChartCard } from '../dashboard/ChartCard';
import { locale, t, type MessageKey } from '../i18n';
import { CampaignPicker, UserPicker } from '../pickers/Picker';
import { Link, navigate } from '../router';
import { useApp } from '../state';
import {
  answers as answerChoices,
  atLeast,
  type Answer,
  type CalibrationDetail,
  type CalibrationItem,
  type CalibrationSession,
  type CalibrationSessionPage,
} from '../types';
import { ErrorMessage, Loading, OutcomeMessage, PageHeader, useAction, useLoad, type Outcome } from '../ui';
import { speakerLabel } from '../tasks/TaskView';
import { VerdictControl, verdictLabel, verdictOf } from '../verdict';
import { byItem, history, itemKey, missing, submission, withLists, type Draft } from './state';

const basePath = '/app/calibration';

const percent = (x: number | null | undefined) =>
  x === null || x === undefined ? '—' : new Intl.NumberFormat(locale.value, { style: 'percent', maximumFractionDigits: 1 }).format(x);

/** alphaText writes an alpha with two decimals, as the results and the list show it. */
export const alphaText = (x: number | null | undefined) =>
  x === null || x === undefined
    ? '—'
    : new Intl.NumberFormat(locale.value, { minimumFractionDigits: 2, maximumFractionDigits: 2 }).format(x);

const when = (iso: string | null | undefined) =>
  iso ? new Intl.DateTimeFormat(locale.value, { dateStyle: 'medium', timeStyle: 'short' }).format(new Date(iso)) : '—';

const answerLabel = verdictLabel;

/** useCalibrationEvents reloads when a calibration session changes. */
function useCalibrationEvents(reload: () => void, id?: string) {
  const app = useApp();
  useEffect(
    () =>
      app.events.on('calibration.updated', (ev) => {
        const s = (ev.data as { session?: { id?: string } }).session;
        if (!id || s?.id === id) reload();
      }),
    [app.events, id, reload],
  );
}

/**
 * CalibrationHistory is the agreement of the closed sessions over time: a
 * line of Krippendorff's alpha and one of percent agreement per session.
 */
export function CalibrationHistory({ sessions }: { sessions: CalibrationSession[] }) {
  const points = history(sessions);
  if (points.length === 0) return null;
  return (
    <ChartCard
      title={t('cal.history')}
      config={{
        type: 'line',
        data: {
          labels: points.map((s) => s.name),
          datasets: [
            { label: t('cal.alpha'), data: points.map((s) => s.alpha ?? null), borderColor: '#1d4ed8', backgroundColor: '#1d4ed8' },
            {
              label: t('cal.agreement'),
              data: points.map((s) => (s.percent_agreement === null || s.percent_agreement === undefined ? null : s.percent_agreement)),
              borderColor: '#15803d',
              backgroundColor: '#15803d',
            },
          ],
        },
        options: { scales: { y: { min: -1, max: 1 } } },
      }}
      table={[
        [t('cal.name'), t('cal.closedAt'), t('cal.alpha'), t('cal.agreement')],
        ...points.map((s) => [s.name, when(s.closed_at), alphaText(s.alpha), percent(s.percent_agreement)]),
      ]}
      links={points.map((s) => `${basePath}/${s.id}`)}
    />
  );
}

/** DashboardCalibration is the history chart on the dashboard, for analysts and above, once a session has closed. */
export function DashboardCalibration() {
  const app = useApp();
  const shown = atLeast(app.profile.value?.role ?? 'none', 'quality');
  const { data } = useLoad(
    (signal) =>
      shown ? app.api.get('/calibration-sessions', { params: { query: { status: 'closed', limit: 50 } }, signal }) : Promise.resolve(null),
    [app.api, shown],
  );
  return data ? <CalibrationHistory sessions={data.items ?? []} /> : null;
}

/** CalibrationListPage lists the sessions the user may see, newest first, with the history of agreement. */
export function CalibrationListPage() {
  const app = useApp();
  const supervisor = atLeast(app.profile.value?.role ?? 'none', 'supervisor');
  const { data, error, reload } = useLoad(
    (signal) => app.api.get('/calibration-sessions', { params: { query: { limit: 200 } }, signal }),
    [app.api],
  );
  useCalibrationEvents(reload);
  const sessions = data?.items ?? [];
  return (
    <section aria-labelledby="page-title">
      <PageHeader title={t('cal.title')}>
        {supervisor && (
          <Link href={`${basePath}/new`} class="button button-primary">
            {t('cal.new')}
          </Link>
        )}
      </PageHeader>
      {error !== null ? (
        <ErrorMessage error={error} onRetry={reload} />
      ) : data === null ? (
        <Loading />
      ) : sessions.length === 0 ? (
        <p class="muted">{t('cal.empty')}</p>
      ) : (
        <>
          <div class="charts">
            <CalibrationHistory sessions={sessions} />
          </div>
          <div class="table-wrap">
            <table class="table" data-testid="calibration-sessions">
              <thead>
                <tr>
                  <th scope="col">{t('cal.name')}</th>
                  <th scope="col">{t('cal.status')}</th>
                  <th scope="col">{t('cal.created')}</th>
                  <th scope="col">{t('cal.due')}</th>
                  <th scope="col">{t('cal.submittedCol')}</th>
                  <th scope="col">{t('cal.agreement')}</th>
                  <th scope="col">{t('cal.alpha')}</th>
                </tr>
              </thead>
              <tbody>
                {sessions.map((s) => (
                  <tr key={s.id} data-session={s.name}>
                    <td>
                      <Link href={`${basePath}/${s.id}`}>{s.name}</Link>
                    </td>
                    <td>{t(`cal.status.${s.status}` as MessageKey)}</td>
                    <td>{when(s.created_at)}</td>
                    <td>{when(s.due_at)}</td>
                    <td>{t('cal.submitted', { n: s.submitted, total: s.analysts })}</td>
                    <td>{percent(s.percent_agreement)}</td>
                    <td data-testid="session-alpha">{alphaText(s.alpha)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        </>
      )}
    </section>
  );
}

/** CalibrationNewPage starts a session: its name, due date, analysts and audited tasks. */
export function CalibrationNewPage() {
  const app = useApp();
  const analysts = useLoad((signal) => app.api.get('/calibration-analysts', { signal }), [app.api]);
  const [campaign, setCampaign] = useState('');
  const [operator, setOperator] = useState('');
  const tasks = useLoad(
    (signal) => app.api.get('/tasks', { params: { query: { status: 'audited', campaign, operator, limit: 100 } }, signal }),
    [app.api, campaign, operator],
  );
  const [name, setName] = useState('');
  const [due, setDue] = useState('');
  const [chosenAnalysts, setAnalysts] = useState<string[]>([]);
  const [chosenTasks, setTasks] = useState<string[]>([]);
  const [outcome, setOutcome] = useState<Outcome>(null);
  const [busy, setBusy] = useState(false);
  const toggle = (list: string[], set: (v: string[]) => void, v: string) =>
    set(list.includes(v) ? list.filter((x) => x !== v) : [...list, v]);

  const create = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    setOutcome(null);
    try {
      const d = await app.api.post('/calibration-sessions', {
        body: {
          name,
          task_uuids: chosenTasks,
          analysts: chosenAnalysts,
          due_at: due ? new Date(due).toISOString() : undefined,
        },
      });
      app.toast('success', t('cal.form.created'));
      navigate(`${basePath}/${d.session.id}`);
    } catch (err) {
      setOutcome({ error: err });
    } finally {
      setBusy(false);
    }
  };

  return (
    <section aria-labelledby="page-title">
      <PageHeader title={t('cal.form.title')} />
      <form class="card calibration-form" onSubmit={(e) => void create(e)}>
        <div class="filter-row">
          <div class="field">
            <label for="cal-name">{t('cal.name')}</label>
            <input id="cal-name" required maxLength={120} value={name} onInput={(e) => setName(e.currentTarget.value)} />
          </div>
          <div class="field">
            <label for="cal-due">{t('cal.due')}</label>
            <input id="cal-due" type="datetime-local" value={due} onInput={(e) => setDue(e.currentTarget.value)} />
          </div>
        </div>
        <fieldset>
          <legend>{t('cal.form.analysts')}</legend>
          {analysts.error !== null ? (
            <ErrorMessage error={analysts.error} onRetry={analysts.reload} />
          ) : analysts.data === null ? (
            <Loading />
          ) : (
            <ul class="checklist">
              {(analysts.data.items ?? []).map((u) => (
                <li key={u.id}>
                  <label>
                    <input
                      type="checkbox"
                      name="analyst"
                      value={u.id}
                      checked={chosenAnalysts.includes(u.id)}
                      onChange={() => toggle(chosenAnalysts, setAnalysts, u.id)}
                    />{' '}
                    {u.name || u.username || u.id} {u.name && <span class="muted small">({u.username || u.id})</span>}
                  </label>
                </li>
              ))}
            </ul>
          )}
        </fieldset>
        <fieldset>
          <legend>{t('cal.form.tasks')}</legend>
          <p class="muted small">{t('cal.form.tasksHelp')}</p>
          <div class="filter-row">
            <CampaignPicker id="cal-campaign" label={t('tasks.campaign')} value={campaign} onChange={setCampaign} />
            <UserPicker id="cal-operator" label={t('tasks.operator')} value={operator} onChange={setOperator} />
          </div>
          <p class="small" aria-live="polite">
            {t('cal.form.chosen', { n: chosenTasks.length })}
          </p>
          {tasks.error !== null ? (
            <ErrorMessage error={tasks.error} onRetry={tasks.reload} />
          ) : tasks.data === null ? (
            <Loading />
          ) : (tasks.data.tasks ?? []).length === 0 ? (
            <p class="muted">{t('cal.form.noTasks')}</p>
          ) : (
            <ul class="checklist">
              {(tasks.data.tasks ?? []).map((task) => (
                <li key={task.uuid}>
                  <label>
                    <input
                      type="checkbox"
                      name="task"
                      value={task.uuid}
                      checked={chosenTasks.includes(task.uuid)}
                      onChange={() => toggle(chosenTasks, setTasks, task.uuid)}
                    />{' '}
                    {task.file_name} <span class="muted small">{task.operator_id ?? ''}</span>
                  </label>
                </li>
              ))}
            </ul>
          )}
        </fieldset>
        <button type="submit" class="button button-primary" disabled={busy}>
          {t('cal.form.create')}
        </button>
        <OutcomeMessage outcome={outcome} />
      </form>
    </section>
  );
}

/** CalibrationSessionPage is one session: blind scoring for its analysts while open, then its results. */
export function CalibrationSessionPage({ id }: { id: string }) {
  const app = useApp();
  const { data, setData, error, reload } = useLoad(
    (signal) => app.api.get('/calibration-sessions/{id}', { params: { path: { id } }, signal }).then(withLists),
    [app.api, id],
  );
  useCalibrationEvents(reload, id);
  if (error !== null) return <ErrorMessage error={error} onRetry={reload} />;
  if (data === null) return <Loading />;
  const s = data.session;
  const supervisor = atLeast(app.profile.value?.role ?? 'none', 'supervisor');
  return (
    <section aria-labelledby="page-title">
      <PageHeader title={s.name} />
      <dl class="facts card" data-testid="calibration-facts">
        <div>
          <dt>{t('cal.status')}</dt>
          <dd>{t(`cal.status.${s.status}` as MessageKey)}</dd>
        </div>
        <div>
          <dt>{t('cal.interactions')}</dt>
          <dd>{s.tasks}</dd>
        </div>
        <div>
          <dt>{t('cal.submittedCol')}</dt>
          <dd>{t('cal.submitted', { n: s.submitted, total: s.analysts })}</dd>
        </div>
        <div>
          <dt>{t('cal.due')}</dt>
          <dd>{when(s.due_at)}</dd>
        </div>
      </dl>
      {s.status === 'open' ? (
        data.you.analyst && !data.you.submitted ? (
          <ScoringForm detail={data} onSubmitted={setData} />
        ) : (
          <Waiting detail={data} supervisor={supervisor} onClosed={setData} />
        )
      ) : (
        <Results detail={data} supervisor={supervisor} onChange={setData} />
      )}
    </section>
  );
}

/** byTask groups a session's items by interaction, in the session's order. */
function byTask(detail: CalibrationDetail): { task: CalibrationDetail['tasks'][number]; items: CalibrationItem[] }[] {
  return detail.tasks.map((task) => ({ task, items: detail.items.filter((it) => it.task_uuid === task.task_uuid) }));
}

/**
 * Transcript shows an interaction's transcript when opened. It reads the
 * task (GET /tasks/{uuid}) and shows only its turns: the session's screen
 * never shows the audit.
 */
function Transcript({ uuid }: { uuid: string }) {
  const app = useApp();
  const [open, setOpen] = useState(false);
  const { data, error } = useLoad(
    (signal) => (open ? app.api.get('/tasks/{uuid}', { params: { path: { uuid } }, signal }) : Promise.resolve(null)),
    [open, app.api, uuid],
  );
  return (
    <details onToggle={(e) => setOpen((e.currentTarget as HTMLDetailsElement).open)}>
      <summary>{t('cal.transcript')}</summary>
      {error !== null ? (
        <ErrorMessage error={error} />
      ) : open && data === null ? (
        <Loading />
      ) : (
        <ol class="calibration-transcript">
          {(data?.transcript?.segments ?? []).map((seg, i) => (
            <li key={i}>
              <strong>{speakerLabel(seg)}:</strong> {seg.text}
            </li>
          ))}
        </ol>
      )}
    </details>
  );
}

/** ScoringForm is an analyst's blind answers: every criterion of every interaction, submitted at once. */
function ScoringForm({ detail, onSubmitted }: { detail: CalibrationDetail; onSubmitted: (d: CalibrationDetail) => void }) {
  const app = useApp();
  const [draft, setDraft] = useState<Draft>({});
  const [outcome, setOutcome] = useState<Outcome>(null);
  const [busy, setBusy] = useState(false);
  const left = missing(detail.items, draft);
  const set = (key: string, change: Partial<Draft[string]>) =>
    setDraft((d) => ({ ...d, [key]: { ...d[key], ...change, comment: change.comment ?? d[key]?.comment ?? '' } }));

  const submit = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    try {
      const d = await app.api
        .post('/calibration-sessions/{id}/submission', {
          params: { path: { id: detail.session.id } },
          body: submission(detail.items, draft),
        })
        .then(withLists);
      app.toast('success', t('cal.submittedOk'));
      onSubmitted(d);
    } catch (err) {
      setOutcome({ error: err });
    } finally {
      setBusy(false);
    }
  };

  return (
    <form class="calibration-scoring" onSubmit={(e) => void submit(e)} aria-labelledby="cal-score-title">
      <h2 id="cal-score-title">{t('cal.score.title')}</h2>
      <p class="alert alert-info">{t('cal.score.blind')}</p>
      {byTask(detail).map(({ task, items }, ti) => (
        <section class="card" key={task.task_uuid} data-task={task.file_name} aria-labelledby={`cal-task-${ti}`}>
          <h3 id={`cal-task-${ti}`}>{task.file_name}</h3>
          <p class="muted small">{t('cal.scorecardVersion', { version: task.scorecard_version })}</p>
          <Transcript uuid={task.task_uuid} />
          {items.map((it, i) => {
            const key = itemKey(it);
            const group = `cal-${ti}-${i}`;
            return (
              <fieldset key={key} class="calibration-item" data-criterion={it.criterion_id}>
                <legend>{it.question}</legend>
                <VerdictControl name={group} question={it.question} value={draft[key]?.answer} onChange={(a) => set(key, { answer: a })} />
                <label class="small">
                  {t('cal.comment')}{' '}
                  <input maxLength={2000} value={draft[key]?.comment ?? ''} onInput={(e) => set(key, { comment: e.currentTarget.value })} />
                </label>
              </fieldset>
            );
          })}
        </section>
      ))}
      <p class="muted" aria-live="polite">
        {left > 0 ? t('cal.missing', { n: left }) : t('cal.complete')}
      </p>
      <button type="submit" class="button button-primary" disabled={busy || left > 0}>
        {t('cal.submit')}
      </button>
      <OutcomeMessage outcome={outcome} />
    </form>
  );
}

/** Waiting is an open session for whoever is not scoring now: who has submitted; supervisors may close it. */
function Waiting({
  detail,
  supervisor,
  onClosed,
}: {
  detail: CalibrationDetail;
  supervisor: boolean;
  onClosed: (d: CalibrationDetail) => void;
}) {
  const app = useApp();
  const { busy, run } = useAction();
  const close = async () => {
    const d = await run(
      () => app.api.post('/calibration-sessions/{id}/close', { params: { path: { id: detail.session.id } } }).then(withLists),
      () => t('cal.closedOk'),
    );
    if (d) onClosed(d);
  };
  return (
    <section class="card" aria-labelledby="cal-waiting">
      <h2 id="cal-waiting">{t('cal.waiting', { n: detail.session.analysts - detail.session.submitted })}</h2>
      {detail.you.submitted && <p class="alert alert-success">{t('cal.submittedOk')}</p>}
      <p class="muted">{t('cal.blindUntilClosed')}</p>
      <ul class="checklist" data-testid="calibration-analysts">
        {detail.analysts.map((a) => (
          <li key={a.user_id}>
            {a.name} — {a.submitted_at ? t('cal.analystSubmitted', { when: when(a.submitted_at) }) : t('cal.analystPending')}
          </li>
        ))}
      </ul>
      {supervisor && (
        <button type="button" class="button" disabled={busy} onClick={() => void close()}>
          {t('cal.close')}
        </button>
      )}
    </section>
  );
}

/** Results is a closed session: agreement per criterion, the outliers, everyone's answers and the calibrated answers. */
function Results({
  detail,
  supervisor,
  onChange,
}: {
  detail: CalibrationDetail;
  supervisor: boolean;
  onChange: (d: CalibrationDetail) => void;
}) {
  const app = useApp();
  const res = detail.results;
  const names = Object.fromEntries(detail.analysts.map((a) => [a.user_id, a.name]));
  const question = Object.fromEntries(detail.items.map((it) => [it.criterion_id, it.question]));
  const answersBy = byItem(detail.answers ?? []);
  const [calibrated, setCalibrated] = useState<Draft>(() =>
    Object.fromEntries(
      detail.items.map((it) => [
        itemKey(it),
        { answer: (it.calibrated || undefined) as Answer | undefined, comment: it.calibrated_comment ?? '' },
      ]),
    ),
  );
  const { busy, run } = useAction();
  const sid = encodeURIComponent(detail.session.id);
  const save = async () => {
    const body = {
      answers: detail.items.flatMap((it) => {
        const c = calibrated[itemKey(it)];
        return c?.answer
          ? [{ task_uuid: it.task_uuid, criterion_id: it.criterion_id, answer: c.answer, comment: c.comment.trim() || undefined }]
          : [];
      }),
    };
    const d = await run(
      () => app.api.put('/calibration-sessions/{id}/calibrated', { params: { path: { id: sid } }, body }).then(withLists),
      () => t('cal.savedCalibrated'),
    );
    if (d) onChange(d);
  };
  const apply = async (task: string) => {
    const r = await run(
      () => app.api.post('/calibration-sessions/{id}/tasks/{uuid}/apply', { params: { path: { id: sid, uuid: task } } }),
      (v) => ('job_id' in v ? t('cal.appliedPending') : t('cal.appliedOk', { n: v.revision })),
    );
    if (r) {
      onChange(withLists(await app.api.get('/calibration-sessions/{id}', { params: { path: { id: sid } } })));
    }
  };
  if (!res) return null;
  const overall = res.overall;
  return (
    <>
      <section class="card" aria-labelledby="cal-results">
        <h2 id="cal-results">{t('cal.results')}</h2>
        <dl class="facts" data-testid="calibration-overall">
          <div>
            <dt>{t('cal.agreement')}</dt>
            <dd data-testid="overall-agreement">{percent(overall.percent_agreement)}</dd>
          </div>
          <div>
            <dt>{t('cal.alpha')}</dt>
            <dd data-testid="overall-alpha">{alphaText(overall.alpha)}</dd>
          </div>
          <div>
            <dt>{t('cal.automatic')}</dt>
            <dd>{percent(overall.automatic_agreement)}</dd>
          </div>
          <div>
            <dt>{t('cal.outliers')}</dt>
            <dd data-testid="overall-outliers">{res.outliers.length ? res.outliers.map((o) => names[o] ?? o).join(', ') : '—'}</dd>
          </div>
        </dl>
        <p class="muted small">{t('cal.alphaHelp')}</p>
        <div class="table-wrap">
          <table class="table" data-testid="calibration-criteria">
            <thead>
              <tr>
                <th scope="col">{t('cal.criterion')}</th>
                <th scope="col">{t('cal.agreement')}</th>
                <th scope="col">{t('cal.alpha')}</th>
                <th scope="col">{t('cal.automatic')}</th>
                <th scope="col">{t('cal.outliers')}</th>
              </tr>
            </thead>
            <tbody>
              {res.criteria.map((c) => (
                <tr key={c.criterion_id} data-criterion={c.criterion_id}>
                  <th scope="row">{question[c.criterion_id] ?? c.criterion_id}</th>
                  <td>{percent(c.percent_agreement)}</td>
                  <td>{alphaText(c.alpha)}</td>
                  <td>{percent(c.automatic_agreement)}</td>
                  <td>{c.outliers.length ? c.outliers.map((o) => names[o] ?? o).join(', ') : '—'}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
        <h3>{t('cal.analysts')}</h3>
        <ul class="checklist">
          {res.analysts.map((a) => (
            <li key={a.analyst_id}>
              {names[a.analyst_id] ?? a.analyst_id}: {t('cal.differs', { n: a.differs, of: a.judged, rate: percent(a.rate) })}
            </li>
          ))}
        </ul>
      </section>
      {byTask(detail).map(({ task, items }, ti) => (
        <section class="card" key={task.task_uuid} data-task={task.file_name} aria-labelledby={`cal-res-${ti}`}>
          <h2 id={`cal-res-${ti}`}>
            <Link href={`/app/tasks/${task.task_uuid}`}>{task.file_name}</Link>
          </h2>
          <div class="table-wrap">
            <table class="table">
              <thead>
                <tr>
                  <th scope="col">{t('cal.criterion')}</th>
                  <th scope="col">{t('cal.automaticVerdict')}</th>
                  {detail.analysts.map((a) => (
                    <th scope="col" key={a.user_id}>
                      {a.name}
                    </th>
                  ))}
                  <th scope="col">{t('cal.calibrated')}</th>
                </tr>
              </thead>
              <tbody>
                {items.map((it) => {
                  const key = itemKey(it);
                  const c = calibrated[key];
                  return (
                    <tr key={key} data-criterion={it.criterion_id}>
                      <th scope="row">{it.question}</th>
                      <td>
                        {it.automatic === undefined || it.automatic === null
                          ? '—'
                          : answerLabel(verdictOf({ complies: it.automatic, not_applicable: it.automatic_not_applicable }))}
                      </td>
                      {detail.analysts.map((a) => {
                        const ans = answersBy[key]?.[a.user_id];
                        return (
                          <td key={a.user_id} title={ans?.comment ?? undefined}>
                            {ans ? answerLabel(ans.answer) : '—'}
                            {ans?.comment ? <span class="muted small"> · {ans.comment}</span> : null}
                          </td>
                        );
                      })}
                      <td>
                        {supervisor ? (
                          <>
                            <select
                              aria-label={t('cal.calibratedFor', { question: it.question })}
                              value={c?.answer ?? ''}
                              onChange={(e) =>
                                setCalibrated((d) => ({
                                  ...d,
                                  [key]: {
                                    comment: d[key]?.comment ?? '',
                                    answer: (e.currentTarget.value || undefined) as Answer | undefined,
                                  },
                                }))
                              }
                            >
                              <option value="">—</option>
                              {answerChoices.map((a) => (
                                <option key={a} value={a}>
                                  {answerLabel(a)}
                                </option>
                              ))}
                            </select>
                            <input
                              aria-label={t('cal.calibratedComment', { question: it.question })}
                              maxLength={2000}
                              value={c?.comment ?? ''}
                              onInput={(e) => {
                                const comment = e.currentTarget.value;
                                setCalibrated((d) => ({ ...d, [key]: { ...d[key], comment } }));
                              }}
                            />
                          </>
                        ) : it.calibrated ? (
                          answerLabel(it.calibrated)
                        ) : (
                          '—'
                        )}
                      </td>
                    </tr>
                  );
                })}
              </tbody>
            </table>
          </div>
          {supervisor && (
            <p>
              {task.applied_edit_id ? (
                <span class="badge">
                  {task.applied_revision ? t('cal.appliedOk', { n: task.applied_revision }) : t('cal.appliedPending')}
                </span>
              ) : (
                <button
                  type="button"
                  class="button"
                  disabled={busy || !items.some((it) => it.calibrated && it.calibrated !== 'not_applicable')}
                  onClick={() => void apply(task.task_uuid)}
                >
                  {t('cal.apply')}
                </button>
              )}
            </p>
          )}
        </section>
      ))}
      {supervisor && (
        <p>
          <button type="button" class="button button-primary" disabled={busy} onClick={() => void save()}>
            {t('cal.saveCalibrated')}
          </button>{' '}
          <span class="muted small">{t('cal.applyHelp')}</span>
        </p>
      )}
    </>
  );
}
