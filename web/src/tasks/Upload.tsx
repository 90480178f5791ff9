import { useRef, useState } from 'preact/hooks';
import { ApiError, errorMessage } from '../api';
import { languageName, listOf, t } from '../i18n';
import { CampaignPicker, UserPicker } from '../pickers/Picker';
import { Link } from '../router';
import { useApp } from '../state';
import type { ClientConfig, TaskSummary, UploadedTask } from '../types';
import { StatusBadge } from './badges';
import { uploadFile } from './upload';

interface Item {
  id: number;
  name: string;
  sent: number;
  task?: UploadedTask;
  error?: string;
}

/** speechLine says what calls are transcribed with and in which languages. */
function speechLine(speech: ClientConfig['speech'] | undefined): string {
  if (!speech?.engine) return t('upload.speechNone');
  if (!speech.languages?.length) return t('upload.speechAny', { engine: speech.engine });
  return t('upload.speech', { engine: speech.engine, languages: listOf(speech.languages.map(languageName)) });
}

/** uploadError is what to show for a failed upload: a call refused for its language says which and why. */
function uploadError(err: unknown, file: string): string {
  const { language, speech_languages: languages, campaign } = err instanceof ApiError ? err.facts : {};
  if (typeof language === 'string' && Array.isArray(languages)) {
    // No language given: the campaign's was taken, and the engine lacks it.
    return t(typeof campaign === 'string' ? 'upload.campaignLanguageRefused' : 'upload.languageRefused', {
      file,
      campaign: String(campaign),
      language: languageName(language),
      languages: listOf(languages.map((l) => languageName(String(l)))),
    });
  }
  return errorMessage(err);
}

/**
 * Upload takes files dropped or chosen, sends each in its own request with
 * a progress bar, then shows the task's status as the list's live copy of
 * it (live holds the tasks the event stream updated).
 */
export function Upload({ live, onUploaded }: { live: Map<string, TaskSummary>; onUploaded?: (uuid: string) => void }) {
  const app = useApp();
  const [campaign, setCampaign] = useState('default');
  const [operator, setOperator] = useState('');
  const [language, setLanguage] = useState('');
  // What the pickers' fields hold while still being typed in (null: their value): files dropped meanwhile take it.
  const typed = useRef<{ campaign: string | null; operator: string | null }>({ campaign: null, operator: null });
  const [items, setItems] = useState<Item[]>([]);
  const [over, setOver] = useState(false);
  const nextId = useRef(0);
  const input = useRef<HTMLInputElement>(null);

  const update = (id: number, patch: Partial<Item>) => setItems((xs) => xs.map((x) => (x.id === id ? { ...x, ...patch } : x)));

  const send = (files: FileList | null) => {
    if (!files) return;
    const fields = { campaign: typed.current.campaign ?? campaign, operator: typed.current.operator ?? operator, language };
    const added = Array.from(files).map((f) => ({ id: ++nextId.current, name: f.name, sent: 0, file: f }));
    setItems((xs) => [...added.map(({ file: _, ...x }) => x), ...xs]);
    for (const a of added) {
      void (async () => {
        try {
          const token = await app.auth.accessToken();
          const task = await uploadFile(token, a.file, fields, (sent) => update(a.id, { sent }));
          update(a.id, { sent: 1, task });
          onUploaded?.(task.uuid);
        } catch (err) {
          update(a.id, { error: uploadError(err, a.name) });
        }
      })();
    }
  };

  return (
    <section class="upload card" aria-labelledby="upload-title">
      <h2 id="upload-title">{t('upload.title')}</h2>
      <div class="filter-row">
        <CampaignPicker
          id="upload-campaign"
          free
          label={t('upload.campaign')}
          any={t('ingest.defaultCampaign')}
          value={campaign}
          onChange={setCampaign}
          onTyped={(v) => (typed.current.campaign = v)}
        />
        <UserPicker
          id="upload-operator"
          free
          label={t('upload.operator')}
          any={t('pickers.none')}
          help={t('upload.operatorHelp')}
          value={operator}
          onChange={setOperator}
          onTyped={(v) => (typed.current.operator = v)}
        />
        <div class="field">
          <label for="upload-language">{t('upload.language')}</label>
          <input
            id="upload-language"
            value={language}
            placeholder="es, en-US"
            aria-describedby="upload-language-help"
            onInput={(e) => setLanguage(e.currentTarget.value)}
          />
          <p id="upload-language-help" class="help">
            {t('upload.languageHelp')}
          </p>
          <p class="help" data-testid="speech">
            {speechLine(app.auth.config?.speech)}
          </p>
        </div>
      </div>
      <div
        class={over ? 'dropzone dropzone-over' : 'dropzone'}
        data-testid="dropzone"
        onDragOver={(e) => {
          e.preventDefault();
          setOver(true);
        }}
        onDragLeave={() => setOver(false)}
        onDrop={(e) => {
          e.preventDefault();
          setOver(false);
          send(e.dataTransfer?.files ?? null);
        }}
      >
        <p>{t('upload.drop')}</p>
        <label class="button" for="upload-files">
          {t('upload.choose')}
        </label>
        <input
          id="upload-files"
          ref={input}
          class="sr-only"
          type="file"
          multiple
          accept="audio/*,.json,.txt"
          onChange={(e) => {
            send(e.currentTarget.files);
            e.currentTarget.value = '';
          }}
        />
      </div>
      {items.length > 0 && (
        <ul class="uploads" aria-label={t('upload.files')}>
          {items.map((it) => {
            const task = it.task && (live.get(it.task.uuid) ?? it.task);
            return (
              <li key={it.id} class="upload-item" data-file={it.name}>
                <span class="upload-name">{it.name}</span>
                {it.error ? (
                  <span class="alert alert-error upload-error" role="alert">
                    {it.error}
                  </span>
                ) : task ? (
                  <span class="upload-done">
                    <StatusBadge status={task.status} />
                    {it.task?.duplicate && <span class="badge">{t('upload.duplicate')}</span>}
                    {it.task?.duplicate && it.task.error && <span class="small">{t('task.failedBecause', { error: it.task.error })}</span>}
                    <Link href={`/app/tasks/${task.uuid}`}>{it.task?.error ? t('task.retry') : t('upload.open')}</Link>
                  </span>
                ) : (
                  <progress max={1} value={it.sent} aria-label={t('upload.progress', { name: it.name })}>
                    {Math.round(it.sent * 100)}%
                  </progress>
                )}
              </li>
            );
          })}
        </ul>
      )}
    </section>
  );
}
