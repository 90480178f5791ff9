import { useState } from 'preact/hooks';
import { t, type MessageKey } from '../i18n';
import { useApp } from '../state';
import type { Campaign } from '../types';
import { OutcomeMessage, type Outcome } from '../ui';

type Redaction = Campaign['redaction'];
type Pattern = NonNullable<Redaction['patterns']>[number];

/** The built-in types, in the order the API lists them. */
const types = ['card', 'cvv', 'dni', 'iban', 'phone', 'email'] as const;

/** RedactionSettings edits what a campaign redacts: the built-in types and its own patterns. */
export function RedactionSettings({ campaign, onSaved }: { campaign: Campaign; onSaved: () => void }) {
  const app = useApp();
  const [chosen, setChosen] = useState<string[]>(campaign.redaction.types ?? []);
  const [patterns, setPatterns] = useState<Pattern[]>(campaign.redaction.patterns ?? []);
  const [outcome, setOutcome] = useState<Outcome>(null);

  const toggle = (type: string, on: boolean) => setChosen(types.filter((x) => (x === type ? on : chosen.includes(x))));
  const edit = (i: number, change: Partial<Pattern>) => setPatterns(patterns.map((p, j) => (j === i ? { ...p, ...change } : p)));

  const save = async (e: Event) => {
    e.preventDefault();
    setOutcome(null);
    try {
      await app.api.patch('/campaigns/{id}', { params: { path: { id: campaign.id } }, body: { redaction: { types: chosen, patterns } } });
      setOutcome({ ok: t('redact.saved') });
      onSaved();
    } catch (err) {
      setOutcome({ error: err });
    }
  };

  return (
    <form class="card" onSubmit={(e) => void save(e)} aria-labelledby="camp-redaction">
      <h2 id="camp-redaction">{t('redact.title')}</h2>
      <p class="muted small">{t('redact.help')}</p>
      <p class="small" data-testid="redaction-source">
        {campaign.redaction_default ? t('redact.defaults', { language: campaign.language }) : t('redact.own')}
      </p>
      <fieldset>
        <legend>{t('redact.types')}</legend>
        <div class="checks">
          {types.map((type) => (
            <label key={type} class="check">
              <input
                type="checkbox"
                name="redaction-type"
                value={type}
                checked={chosen.includes(type)}
                onChange={(e) => toggle(type, e.currentTarget.checked)}
              />
              {t(`redact.type.${type}` as MessageKey)}
            </label>
          ))}
        </div>
      </fieldset>
      <fieldset>
        <legend>{t('redact.patterns')}</legend>
        <p class="muted small">{t('redact.patternsHelp')}</p>
        {patterns.length === 0 && <p>{t('redact.noPatterns')}</p>}
        {patterns.map((p, i) => (
          <div class="filter-row redaction-pattern" key={i}>
            <div class="field">
              <label for={`redact-name-${i}`}>{t('redact.name')}</label>
              <input id={`redact-name-${i}`} value={p.name} maxLength={30} onInput={(e) => edit(i, { name: e.currentTarget.value })} />
            </div>
            <div class="field">
              <label for={`redact-regexp-${i}`}>{t('redact.regexp')}</label>
              <input
                id={`redact-regexp-${i}`}
                class="code"
                value={p.regexp}
                spellcheck={false}
                onInput={(e) => edit(i, { regexp: e.currentTarget.value })}
              />
            </div>
            <button
              type="button"
              class="button button-small"
              aria-label={t('redact.remove', { n: i + 1 })}
              onClick={() => setPatterns(patterns.filter((_, j) => j !== i))}
            >
              ×
            </button>
          </div>
        ))}
        <button type="button" class="button" onClick={() => setPatterns([...patterns, { name: '', regexp: '' }])}>
          {t('redact.add')}
        </button>
      </fieldset>
      <button type="submit" class="button button-primary">
        {t('redact.save')}
      </button>
      <OutcomeMessage outcome={outcome} />
    </form>
  );
}
