// Small building blocks shared by the screens.
import type { ComponentChildren } from 'preact';
import { useCallback, useEffect, useId, useRef, useState } from 'preact/hooks';
import { codeMessage, errorMessage, fromAPI } from './api';
import { navigate } from './router';
import { formatDateTime, formatRelative, t } from './i18n';
import { useApp } from './state';

/** PageHeader is a screen's title: it names the tab and takes the focus when the screen opens, for screen readers. */
export function PageHeader({ title, children }: { title: string; children?: ComponentChildren }) {
  const ref = useRef<HTMLHeadingElement>(null);
  useEffect(() => {
    document.title = `${title} · ${t('app.name')}`;
  }, [title]);
  useEffect(() => {
    ref.current?.focus({ preventScroll: true });
  }, []);
  return (
    <div class="page-header">
      <h1 id="page-title" tabIndex={-1} ref={ref}>
        {title}
      </h1>
      {children && <div class="page-actions">{children}</div>}
    </div>
  );
}

/**
 * ErrorMessage shows an error: what its code means in the user's language,
 * then the API's own words, the fields it names and the request id to quote.
 */
export function ErrorMessage({ error, onRetry }: { error: unknown; onRetry?: () => void }) {
  const api = fromAPI(error) ? error : null;
  return (
    <div class="alert alert-error" role="alert">
      <p>{api ? codeMessage(api) : errorMessage(error)}</p>
      {api && (
        <p class="small" lang="en">
          {api.message}
        </p>
      )}
      {api && api.details.length > 0 && (
        <ul>
          {api.details.map((d, i) => (
            <li key={i}>
              {d.location ? <code>{d.location}</code> : null} {d.message}
            </li>
          ))}
        </ul>
      )}
      {api?.requestId && <p class="muted small">{t('error.requestId', { id: api.requestId })}</p>}
      {onRetry && (
        <button type="button" class="button" onClick={onRetry}>
          {t('app.retry')}
        </button>
      )}
    </div>
  );
}

/** Outcome is how a form's action ended: a success message or an error; null before it ends. */
export type Outcome = { ok?: string; error?: unknown } | null;

/** OutcomeMessage shows an Outcome: the success in a live region, or the error. */
export function OutcomeMessage({ outcome }: { outcome: Outcome }) {
  return (
    <>
      <div aria-live="polite">
        {outcome?.ok && (
          <p class="alert alert-success" role="status">
            {outcome.ok}
          </p>
        )}
      </div>
      {outcome?.error !== undefined && <ErrorMessage error={outcome.error} />}
    </>
  );
}

/** AnySelect is a filter's choice among options ([value, name]), "Any" (the empty value) first. */
export function AnySelect<V extends string>(props: {
  id: string;
  label: string;
  value: V | '';
  options: readonly (readonly [V, string])[];
  onChange: (value: V | '') => void;
}) {
  return (
    <div class="field">
      <label for={props.id}>{props.label}</label>
      <select id={props.id} value={props.value} onChange={(e) => props.onChange(e.currentTarget.value as V | '')}>
        <option value="">{t('tasks.any')}</option>
        {props.options.map(([v, name]) => (
          <option key={v} value={v}>
            {name}
          </option>
        ))}
      </select>
    </div>
  );
}

/** Ago is a moment as "3 minutes ago", its date and time on hover. */
export function Ago({ at }: { at: string }) {
  return (
    <time dateTime={at} title={formatDateTime(at)}>
      {formatRelative(at)}
    </time>
  );
}

export function Loading() {
  return (
    <p class="loading" role="status">
      {t('app.loading')}
    </p>
  );
}

/**
 * useLoad runs load when the screen opens, when one of deps changes and on
 * reload(), aborting the load it replaces. data is the latest answer (kept
 * while the next one loads or fails; setData edits it in place, such as
 * when a live event arrives); error is the latest load's failure; loading
 * is true until the latest load ends (screens mark what it replaces busy).
 */
export function useLoad<T>(load: (signal: AbortSignal) => Promise<T>, deps: unknown[]) {
  const [data, setData] = useState<T | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [reloads, setReloads] = useState(0);
  // generation counts the changes of deps (each compared with Object.is), so
  // that the effect's own dependencies are a list the lint rule can check;
  // the callers' deps are checked against their load (additionalHooks).
  const seen = useRef({ deps, generation: 0 });
  if (deps.length !== seen.current.deps.length || deps.some((d, i) => !Object.is(d, seen.current.deps[i]))) {
    seen.current = { deps, generation: seen.current.generation + 1 };
  }
  const generation = seen.current.generation;
  // The effect runs the load of the render that started it.
  const latest = useRef(load);
  latest.current = load;
  // The load that ended last: loading is known in the very render that
  // changes deps, before the effect starts the load.
  const [ended, setEnded] = useState<{ generation: number; reloads: number } | null>(null);
  useEffect(() => {
    const ctl = new AbortController();
    setError(null);
    latest
      .current(ctl.signal)
      .then((v) => setData(() => v))
      .catch((err: unknown) => {
        if (!ctl.signal.aborted) setError(err);
      })
      .finally(() => {
        if (!ctl.signal.aborted) setEnded({ generation, reloads });
      });
    return () => ctl.abort();
  }, [generation, reloads]);
  const loading = ended?.generation !== generation || ended.reloads !== reloads;
  const reload = useCallback(() => setReloads((r) => r + 1), []);
  return { data, setData, error, loading, reload };
}

/** useAction runs an async action from a button, reporting failures as error toasts and exposing when it is busy. */
export function useAction() {
  const app = useApp();
  const [busy, setBusy] = useState(false);
  const run = useCallback(
    async <T,>(fn: () => Promise<T>, success?: (v: T) => string): Promise<T | undefined> => {
      setBusy(true);
      try {
        const v = await fn();
        if (success) app.toast('success', success(v));
        return v;
      } catch (err) {
        app.toast('error', errorMessage(err));
        return undefined;
      } finally {
        setBusy(false);
      }
    },
    [app],
  );
  return { busy, run };
}

/** useModal is a ref for a <dialog> that opens as a modal when the component mounts. */
export function useModal() {
  const ref = useRef<HTMLDialogElement>(null);
  useEffect(() => {
    ref.current?.showModal();
  }, []);
  return ref;
}

/**
 * useSubmit runs a dialog's form action: busy while it runs, its failure
 * kept in error (cleared by the next try) for the dialog to show.
 */
export function useSubmit() {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const submit = (action: () => Promise<void>) => async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    setError(null);
    try {
      await action();
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };
  return { busy, error, submit };
}

/** ConfirmDialog is a modal question (the native <dialog>: focus stays inside, Escape cancels). */
export function ConfirmDialog(props: {
  open: boolean;
  title: string;
  children: ComponentChildren;
  confirm: string;
  danger?: boolean;
  onConfirm: () => void;
  onClose: () => void;
}) {
  const ref = useRef<HTMLDialogElement>(null);
  // Its own title's id: a page may hold several, closed ones included.
  const title = useId();
  useEffect(() => {
    const d = ref.current;
    if (!d) return;
    if (props.open && !d.open) d.showModal();
    if (!props.open && d.open) d.close();
  }, [props.open]);
  return (
    <dialog ref={ref} class="dialog" aria-labelledby={title} onClose={props.onClose}>
      <h2 id={title}>{props.title}</h2>
      <div>{props.children}</div>
      <div class="dialog-actions">
        <button type="button" class="button" onClick={props.onClose} autofocus>
          {t('app.cancel')}
        </button>
        <button type="button" class={props.danger ? 'button button-danger' : 'button button-primary'} onClick={props.onConfirm}>
          {props.confirm}
        </button>
      </div>
    </dialog>
  );
}

/** Toasts shows the app's short messages in a live region. */
export function Toasts() {
  const app = useApp();
  return (
    <div class="toasts" aria-live="polite">
      {app.toasts.value.map((toast) => (
        <div key={toast.id} class={`toast toast-${toast.kind}`} role={toast.kind === 'error' ? 'alert' : 'status'}>
          <span>{toast.message}</span>
          <button type="button" class="icon-button" aria-label={t('app.close')} onClick={() => app.dismiss(toast.id)}>
            ×
          </button>
        </div>
      ))}
    </div>
  );
}

/** showFilters opens basePath with the filters of query, or bare without any: the URL holds a screen's filters. */
export function showFilters(basePath: string, query: URLSearchParams) {
  const q = query.toString();
  navigate(q ? `${basePath}?${q}` : basePath);
}

/** FilterButtons applies a filter form (it submits it) or resets it (opens basePath with none). */
export function FilterButtons({ basePath, apply, reset }: { basePath: string; apply: string; reset: string }) {
  return (
    <div class="filter-buttons">
      <button type="submit" class="button button-primary">
        {apply}
      </button>
      <button type="button" class="button button-quiet" onClick={() => navigate(basePath)}>
        {reset}
      </button>
    </div>
  );
}

/**
 * SortHeader is the header of a column a list sorts by: sorted is the
 * list's order when it is sorted by this column, else null. Pressed, it
 * sorts by the column, descending first, then the other way.
 */
export function SortHeader({
  label,
  sorted,
  onSort,
}: {
  label: string;
  sorted: 'asc' | 'desc' | null;
  onSort: (order: 'asc' | 'desc') => void;
}) {
  return (
    <th scope="col" aria-sort={sorted === null ? undefined : sorted === 'asc' ? 'ascending' : 'descending'}>
      <button type="button" class="sort-button" onClick={() => onSort(sorted === 'desc' ? 'asc' : 'desc')}>
        {label}
        <span aria-hidden="true">{sorted === null ? '' : sorted === 'asc' ? ' ▲' : ' ▼'}</span>
      </button>
    </th>
  );
}

/** DialogDone is a dialog's outcome, announced, with the button that closes the dialog. */
export function DialogDone({ children, onClose }: { children: ComponentChildren; onClose: () => void }) {
  return (
    <div role="status">
      {children}
      <div class="dialog-actions">
        <button type="button" class="button button-primary" onClick={onClose} autofocus>
          {t('app.close')}
        </button>
      </div>
    </div>
  );
}

/** DialogButtons are a dialog form's Cancel and submit buttons. */
export function DialogButtons({ label, disabled, onCancel }: { label: string; disabled: boolean; onCancel: () => void }) {
  return (
    <div class="dialog-actions">
      <button type="button" class="button" onClick={onCancel}>
        {t('app.cancel')}
      </button>
      <button type="submit" class="button button-primary" disabled={disabled}>
        {label}
      </button>
    </div>
  );
}
