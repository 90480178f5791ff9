import { useId } from 'preact/hooks';
import { locale, locales, setLocale, t, type Locale } from '../i18n';

/** LanguageSelect switches the UI language; the choice is kept in this browser. */
export function LanguageSelect() {
  const id = useId();
  return (
    <div class="language">
      <label for={id}>{t('app.language')}</label>
      <select id={id} value={locale.value} onChange={(e) => setLocale(e.currentTarget.value as Locale)}>
        {(Object.keys(locales) as Locale[]).map((l) => (
          <option key={l} value={l} lang={l}>
            {locales[l]}
          </option>
        ))}
      </select>
    </div>
  );
}
