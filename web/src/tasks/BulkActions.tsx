// Bulk actions from the task list: a checkbox per row and "select all
// matching the filters", an action menu with a confirmation, and the live
// progress of the action started (POST /bulk-actions, its
// bulk_action.updated events).
import { useEffect, useRef, useState } from 'preact/hooks';
import type { Query } from '../api';
import { formatDateTime, formatNumber, t, type MessageKey } from '../i18n';
import { UserPicker } from '../pickers/Picker';
import { Link, location } from '../router';
import { useApp } from '../state';
import { atLeast } from '../types';
import { ConfirmDialog, ErrorMessage, useAction, useLoad } from '../ui';
import {
  advance,
  bulkActions,
  filterString,
  finished,
  forLeads,
  irreversible,
  noSelection,
  requestOf,
  share,
  toggle,
  toggleShown,
  type BulkAction,
  type BulkActionName,
  type BulkItem,
  type BulkProgress,
  type Choice,
  type Selection,
} from './bulk';

/** Bulk is the list's selection and whether the user may run bulk actions (quality and above). */
export interface Bulk {
  enabled: boolean;
  selection: Selection;
  select: (s: Selection) => void;
}

/** useBulk keeps the list's selection; it is cleared when the filters (key) change. */
export function useBulk(key: string): Bulk {
  const app = useApp();
  const [selection, select] = useState<Selection>(noSelection);
  useEffect(() => select(noSelection), [key]);
  return { enabled: atLeast(app.profile.value?.role ?? 'none', 'quality'), selection, select };
}

/** BulkCheckHeader is the list's first header cell: it ticks every row shown. */
export function BulkCheckHeader({ bulk, uuids }: { bulk: Bulk; uuids: string[] }) {
  const s = bulk.selection;
  return (
    <th scope="col" class="bulk-check">
      <input
        type="checkbox"
        aria-label={t('bulk.selectShown')}
        checked={s.all || (uuids.length > 0 && uuids.every((u) => s.ids.has(u)))}
        disabled={s.all}
        onChange={() => bulk.select(toggleShown(s, uuids))}
      />
    </th>
  );
}

/** BulkCheckCell ticks one row. */
export function BulkCheckCell({ bulk, uuid, name }: { bulk: Bulk; uuid: string; name: string }) {
  const s = bulk.selection;
  return (
    <td class="bulk-check">
      <input
        type="checkbox"
        aria-label={t('bulk.selectTask', { name })}
        checked={s.all || s.ids.has(uuid)}
        disabled={s.all}
        onChange={() => bulk.select(toggle(s, uuid))}
      />
    </td>
  );
}

/** problemsShown is how many of the tasks an action failed, and of those it skipped, its panel lists. */
const problemsShown = 20;

/** actionName is action a as the dashboard names it. */
export const actionName = (a: BulkActionName) => t(`bulk.action.${a}` as MessageKey);

/**
 * BulkActions is the bar above the list while rows are selected (what is
 * selected, "select all matching", the action menu and its confirmation)
 * and the panel of the action started, or of the one the URL names
 * (?bulk=id: where the requester's notification leads), live.
 */
export function BulkActions({ bulk, filter, total, estimated }: { bulk: Bulk; filter: Query; total: number; estimated?: boolean }) {
  const app = useApp();
  const [shown, setShown] = useState<BulkAction | null>(null);
  const [error, setError] = useState<unknown>(null);
  // The latest progress of every action seen, for an answer read after its events.
  const latest = useRef(new Map<string, BulkProgress>());
  const show = (a: BulkAction) => {
    const p = latest.current.get(a.id);
    setShown(p ? advance(a, p) : a);
  };
  const named = location.value.query.get('bulk');
  useEffect(() => {
    if (!named) return;
    app.api.get('/bulk-actions/{id}', { params: { path: { id: named } } }).then(show, setError);
  }, [app.api, named]);
  useEffect(() => {
    const off = app.events.on('bulk_action.updated', (ev) => {
      const p = ev.data as BulkProgress;
      latest.current.set(p.id, p);
      setShown((a) => a && advance(a, p));
    });
    return off;
  }, [app.events]);
  const s = bulk.selection;
  return (
    <>
      {bulk.enabled && (s.all || s.ids.size > 0) && (
        <BulkBar bulk={bulk} filter={filter} total={total} estimated={estimated} onStarted={show} />
      )}
      {error !== null && <ErrorMessage error={error} />}
      {shown && <BulkPanel action={shown} onChange={show} onClose={() => setShown(null)} />}
    </>
  );
}

function BulkBar(props: { bulk: Bulk; filter: Query; total: number; estimated?: boolean; onStarted: (a: BulkAction) => void }) {
  const { bulk, filter, total, estimated } = props;
  const app = useApp();
  const s = bulk.selection;
  const [choice, setChoice] = useState<Choice>({ action: 'reaudit', assignee: '', notes: '' });
  const [assigneeName, setAssigneeName] = useState('');
  const [asking, setAsking] = useState(false);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const lead = atLeast(app.profile.value?.role ?? 'none', 'supervisor');
  const actions = bulkActions.filter((a) => !forLeads(a) || lead);
  const count = s.all ? total : s.ids.size;
  const n = formatNumber(count);
  const one = count === 1;

  const run = async () => {
    setAsking(false);
    setBusy(true);
    setError(null);
    try {
      props.onStarted(await app.api.post('/bulk-actions', { body: requestOf(choice, s, filter) }));
      bulk.select(noSelection);
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };

  return (
    <section class="bulk-bar" aria-labelledby="bulk-bar-title">
      <h2 id="bulk-bar-title" class="sr-only">
        {t('bulk.title')}
      </h2>
      <div class="bulk-selection">
        <p aria-live="polite" data-testid="bulk-selected">
          <strong>
            {s.all ? t(estimated ? 'bulk.allAbout' : 'bulk.all', { n }) : t(one ? 'bulk.selectedOne' : 'bulk.selected', { n })}
          </strong>
        </p>
        {!s.all && total > s.ids.size && (
          <button type="button" class="button button-small" onClick={() => bulk.select({ ids: new Set(), all: true })}>
            {t(estimated ? 'bulk.selectAllAbout' : 'bulk.selectAll', { n: formatNumber(total) })}
          </button>
        )}
        <button type="button" class="button button-small button-quiet" onClick={() => bulk.select(noSelection)}>
          {t('bulk.clear')}
        </button>
      </div>
      <form
        class="bulk-form"
        onSubmit={(e) => {
          e.preventDefault();
          setAsking(true);
        }}
      >
        <div class="field">
          <label for="bulk-action">{t('bulk.action')}</label>
          <select
            id="bulk-action"
            value={choice.action}
            onChange={(e) => setChoice({ ...choice, action: e.currentTarget.value as BulkActionName })}
          >
            {actions.map((a) => (
              <option key={a} value={a}>
                {actionName(a)}
              </option>
            ))}
          </select>
        </div>
        {choice.action === 'assign' && (
          <UserPicker
            id="bulk-assignee"
            label={t('bulk.assignee')}
            any={t('pickers.none')}
            value={choice.assignee}
            onChange={(assignee, name) => {
              setChoice((c) => ({ ...c, assignee }));
              setAssigneeName(name);
            }}
          />
        )}
        {choice.action === 'validate' && (
          <div class="field bulk-notes">
            <label for="bulk-notes">{t('bulk.notes')}</label>
            <textarea
              id="bulk-notes"
              required
              rows={2}
              value={choice.notes}
              onInput={(e) => setChoice({ ...choice, notes: e.currentTarget.value })}
            />
          </div>
        )}
        <button type="submit" class="button button-primary" disabled={busy || (choice.action === 'assign' && !choice.assignee)}>
          {t('bulk.run')}
        </button>
      </form>
      {error !== null && <ErrorMessage error={error} />}
      <ConfirmDialog
        open={asking}
        title={t('bulk.confirmTitle', { action: actionName(choice.action) })}
        confirm={t(one ? 'bulk.confirmOne' : 'bulk.confirm', { action: actionName(choice.action), n })}
        danger={irreversible(choice.action)}
        onConfirm={() => void run()}
        onClose={() => setAsking(false)}
      >
        <p>{t(`bulk.explain.${choice.action}` as MessageKey, { n, assignee: assigneeName })}</p>
        <p>
          {s.all
            ? t(estimated ? 'bulk.whichFilterAbout' : 'bulk.whichFilter', { n, filter: filterString(filter) || t('bulk.noFilter') })
            : t(one ? 'bulk.whichSelectedOne' : 'bulk.whichSelected', { n })}
        </p>
        {irreversible(choice.action) && <p class="alert alert-warning">{t('bulk.irreversible')}</p>}
      </ConfirmDialog>
    </section>
  );
}

/**
 * BulkPanel is an action's progress, live, and once it has ended the
 * tasks it failed or skipped, with why. On a page of its own (labelledBy:
 * the page's title), which lists every result, it has no title, problems
 * or close button of its own.
 */
export function BulkPanel({
  action: a,
  onChange,
  onClose,
  labelledBy,
}: {
  action: BulkAction;
  onChange: (a: BulkAction) => void;
  onClose?: () => void;
  labelledBy?: string;
}) {
  const app = useApp();
  const { busy, run } = useAction();
  const ended = finished(a.status);
  const part = share(a);
  const problems = useLoad<BulkItem[]>(
    (signal) =>
      !labelledBy && ended && a.failed + a.skipped > 0 && !a.results_deleted_at
        ? Promise.all(
            (['failed', 'skipped'] as const).map((outcome) =>
              app.api.get('/bulk-actions/{id}/items', { params: { path: { id: a.id }, query: { outcome, limit: problemsShown } }, signal }),
            ),
          ).then((pages) => pages.flatMap((p) => p.items ?? []))
        : Promise.resolve([]),
    [a.failed, a.id, a.results_deleted_at, a.skipped, app.api, ended, labelledBy],
  );
  const counts = { matched: a.matched ?? '—', done: a.done, succeeded: a.succeeded, skipped: a.skipped, failed: a.failed };
  return (
    <section class="bulk-panel" aria-labelledby={labelledBy ?? 'bulk-panel-title'} data-testid="bulk-progress" data-status={a.status}>
      {!labelledBy && <h2 id="bulk-panel-title">{t('bulk.panelTitle', { action: actionName(a.action) })}</h2>}
      <p class="muted small">
        {a.filter !== undefined
          ? t('bulk.ofFilter', { filter: a.filter || t('bulk.noFilter') })
          : t('bulk.ofSelected', { n: formatNumber(a.task_uuids?.length ?? 0) })}
      </p>
      <p role="status" aria-live="polite" data-testid="bulk-status">
        {a.status === 'running' && a.matched === null
          ? t('bulk.status.counting')
          : t(`bulk.status.${a.status}` as MessageKey, { done: formatNumber(a.done), matched: formatNumber(a.matched ?? 0) })}
      </p>
      <progress max={1} value={part ?? undefined} aria-label={t('bulk.progress')} />
      <dl class="facts bulk-counts">
        {Object.entries(counts).map(([k, v]) => (
          <div key={k}>
            <dt>{t(`bulk.count.${k}` as MessageKey)}</dt>
            <dd data-testid={`bulk-${k}`}>{typeof v === 'number' ? formatNumber(v) : v}</dd>
          </div>
        ))}
      </dl>
      {a.results_deleted_at && (
        <p class="muted small" data-testid="bulk-results-deleted">
          {t('bulk.resultsDeleted', { date: formatDateTime(a.results_deleted_at) })}
        </p>
      )}
      {a.error && (
        <p class="alert alert-error" lang="en">
          {a.error}
        </p>
      )}
      {ended && problems.data && problems.data.length > 0 && (
        <>
          <h3>{t('bulk.problems')}</h3>
          {(a.failed > problemsShown || a.skipped > problemsShown) && (
            <p class="muted small">{t('bulk.problemsFirst', { n: problemsShown })}</p>
          )}
          <ul class="bulk-problems">
            {problems.data.map((it) => (
              <li key={it.task_uuid}>
                <span class={`badge bulk-${it.outcome}`}>{t(`bulk.outcome.${it.outcome}` as MessageKey)}</span>{' '}
                <Link href={`/app/tasks/${it.task_uuid}`}>{it.file_name}</Link>: <ResultMessage item={it} />
              </li>
            ))}
          </ul>
        </>
      )}
      {problems.error !== null && <ErrorMessage error={problems.error} onRetry={problems.reload} />}
      <div class="bulk-panel-actions">
        {ended ? (
          onClose && (
            <button type="button" class="button" onClick={onClose}>
              {t('app.close')}
            </button>
          )
        ) : (
          <button
            type="button"
            class="button button-danger"
            disabled={busy}
            onClick={() => void run(() => app.api.post('/bulk-actions/{id}/cancel', { params: { path: { id: a.id } } }).then(onChange))}
          >
            {t('bulk.cancel')}
          </button>
        )}
      </div>
    </section>
  );
}

/** ResultMessage is what an action's result on a task says: in the reader's language, or in English when recorded before codes were. */
export function ResultMessage({ item }: { item: BulkItem }) {
  return <span lang={item.code ? undefined : 'en'}>{item.message}</span>;
}
