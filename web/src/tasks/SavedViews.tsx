import { useState } from 'preact/hooks';
import { ApiError, codeMessage, fromAPI } from '../api';
import { t } from '../i18n';
import { Link, location } from '../router';
import { useApp } from '../state';
import type { SavedView, ViewList } from '../types';
import { ConfirmDialog, ErrorMessage, useAction, useLoad, useModal, useSubmit } from '../ui';
import { filtersOf, queryOf } from './state';
import { hrefOf, sameQuery } from './views';

/**
 * viewProblem is what a refused save or rename means, in the user's
 * language: the name (blank, taken, a control character) or the number of
 * views; otherwise what the error's code means.
 */
function viewProblem(err: unknown, name: string, views: SavedView[], max: number): string {
  if (!fromAPI(err)) return err instanceof Error ? err.message : String(err);
  if (err.code === 'CONFLICT') {
    const lower = name.trim().toLowerCase();
    return views.some((v) => v.name.toLowerCase() === lower) ? t('views.nameTaken', { name: name.trim() }) : t('views.full', { max });
  }
  if (err.details.some((d) => d.location === 'body.name')) return t('views.nameInvalid');
  if (err.details.some((d) => d.location === 'body.query')) return t('views.queryInvalid');
  return codeMessage(err);
}

/**
 * SavedViews is the user's saved views of the task list (GET /views): one
 * applies its filters and sort (the list opens with its query), the
 * current ones are saved under a name, and views are renamed and deleted.
 */
export function SavedViews() {
  const app = useApp();
  const { busy, run } = useAction();
  const { data, error, reload } = useLoad<ViewList>((signal) => app.api.get('/views', { signal }), [app.api]);
  const [dialog, setDialog] = useState<{ kind: 'save' } | { kind: 'rename'; view: SavedView } | null>(null);
  const [deleting, setDeleting] = useState<SavedView | null>(null);
  const views = data?.items ?? [];
  const max = data?.max ?? 50;
  // The filters and order shown now, as the list's URL holds them.
  const current = queryOf(filtersOf(location.value.query)).toString();

  const save = (name: string) => app.api.post('/views', { body: { name, query: current } });
  const rename = (view: SavedView, name: string) => app.api.patch('/views/{id}', { params: { path: { id: view.id } }, body: { name } });

  return (
    <section class="saved-views" aria-labelledby="saved-views-title">
      <div class="saved-views-head">
        <h2 id="saved-views-title">{t('views.title')}</h2>
        {data && <span class="muted small">{t('views.count', { n: views.length, max })}</span>}
        <button type="button" class="button button-small" disabled={!data} onClick={() => setDialog({ kind: 'save' })}>
          {t('views.save')}
        </button>
      </div>
      {error !== null ? (
        <ErrorMessage error={error} onRetry={reload} />
      ) : data && views.length === 0 ? (
        <p class="muted small">{t('views.empty')}</p>
      ) : (
        <ul class="saved-views-list">
          {views.map((v) => (
            <li key={v.id} class="saved-view" data-view={v.name}>
              <Link
                href={hrefOf(v)}
                class="saved-view-link"
                aria-current={sameQuery(v.query, current) ? 'true' : undefined}
                title={v.query || t('views.noFilters')}
              >
                {v.name}
              </Link>
              <button
                type="button"
                class="button button-quiet button-small"
                aria-label={t('views.renameLabel', { name: v.name })}
                onClick={() => setDialog({ kind: 'rename', view: v })}
              >
                {t('views.rename')}
              </button>
              <button
                type="button"
                class="button button-quiet button-small"
                aria-label={t('views.deleteLabel', { name: v.name })}
                onClick={() => setDeleting(v)}
              >
                {t('views.delete')}
              </button>
            </li>
          ))}
        </ul>
      )}
      {dialog && (
        <ViewNameDialog
          title={dialog.kind === 'save' ? t('views.saveTitle') : t('views.renameTitle', { name: dialog.view.name })}
          initial={dialog.kind === 'save' ? '' : dialog.view.name}
          submit={dialog.kind === 'save' ? t('views.submit') : t('views.renameSubmit')}
          query={dialog.kind === 'save' ? current : null}
          problem={(err, name) =>
            viewProblem(
              err,
              name,
              views.filter((v) => dialog.kind === 'save' || v.id !== dialog.view.id),
              max,
            )
          }
          onSubmit={async (name) => {
            const v = dialog.kind === 'save' ? await save(name) : await rename(dialog.view, name);
            app.toast('success', t(dialog.kind === 'save' ? 'views.saved' : 'views.renamed', { name: v.name }));
            reload();
          }}
          onClose={() => setDialog(null)}
        />
      )}
      <ConfirmDialog
        open={deleting !== null}
        title={t('views.deleteTitle', { name: deleting?.name ?? '' })}
        confirm={t('views.deleteConfirm')}
        danger
        onClose={() => setDeleting(null)}
        onConfirm={() => {
          const v = deleting;
          setDeleting(null);
          if (!v || busy) return;
          void run(
            () => app.api.delete('/views/{id}', { params: { path: { id: v.id } } }),
            () => t('views.deleted', { name: v.name }),
          ).then(reload);
        }}
      >
        <p>{t('views.deleteBody')}</p>
      </ConfirmDialog>
    </section>
  );
}

/**
 * ViewNameDialog asks for a view's name and sends it (onSubmit); the API's
 * refusal stays in the dialog, said in the user's language (problem) and in
 * the API's own words, until the name is corrected.
 */
function ViewNameDialog(props: {
  title: string;
  initial: string;
  submit: string;
  /** query is what is being saved (null when renaming). */
  query: string | null;
  problem: (err: unknown, name: string) => string;
  onSubmit: (name: string) => Promise<void>;
  onClose: () => void;
}) {
  const ref = useModal();
  const [name, setName] = useState(props.initial);
  // tried is the name the last refused try sent.
  const [tried, setTried] = useState(name);
  const { busy, error, submit } = useSubmit();
  const send = async () => {
    setTried(name);
    await props.onSubmit(name);
    ref.current?.close();
  };
  const api = error instanceof ApiError ? error : null;
  return (
    <dialog ref={ref} class="dialog" aria-labelledby="view-dialog-title" onClose={props.onClose}>
      <h2 id="view-dialog-title">{props.title}</h2>
      <form onSubmit={(e) => void submit(send)(e)}>
        <div class="field">
          <label for="view-name">{t('views.name')}</label>
          <input
            id="view-name"
            value={name}
            maxLength={80}
            autoComplete="off"
            aria-invalid={error !== null ? 'true' : undefined}
            aria-describedby={error !== null ? 'view-error' : props.query !== null ? 'view-help' : undefined}
            onInput={(e) => setName(e.currentTarget.value)}
            autofocus
          />
          {props.query !== null && (
            <p id="view-help" class="help">
              {props.query ? t('views.saves', { query: props.query }) : t('views.noFilters')}
            </p>
          )}
        </div>
        {error !== null && (
          <div id="view-error" class="alert alert-error" role="alert">
            <p>{props.problem(error, tried)}</p>
            {api && (
              <p class="small" lang="en">
                {api.message}
              </p>
            )}
          </div>
        )}
        <div class="dialog-actions">
          <button type="button" class="button" onClick={() => ref.current?.close()}>
            {t('app.cancel')}
          </button>
          <button type="submit" class="button button-primary" disabled={busy}>
            {busy ? t('views.saving') : props.submit}
          </button>
        </div>
      </form>
    </dialog>
  );
}
