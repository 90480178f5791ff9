import { useId } from 'preact/hooks';
import { locale, locales, setLocale, t, type Locale } from '../i18n';
import { useApp } from '../state';

/** LanguageSelect switches the UI language; the choice is kept in this browser and, signed in, is the language of the user's notifications. */
export function LanguageSelect() {
  const id = useId();
  const app = useApp();
  return (
    <div class="language">
      <label for={id}>{t('app.language')}</label>
      <select
        id={id}
        value={locale.value}
        onChange={(e) => {
          const l = e.currentTarget.value as Locale;
          setLocale(l);
          void app.saveLocale(l);
        }}
      >
        {(Object.keys(locales) as Locale[]).map((l) => (
          <option key={l} value={l} lang={l}>
            {locales[l]}
          </option>
        ))}
      </select>
    </div>
  );
}
