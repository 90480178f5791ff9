import { useEffect, useState } from 'preact/hooks';
import { locale, t } from '../i18n';
import { LanguageSelect } from '../shell/LanguageSelect';
import { location } from '../router';
import { useApp } from '../state';
import { roles } from '../types';
import { ErrorMessage } from '../ui';

/** SignInPage is shown in place of any screen while nobody is signed in. */
export function SignInPage() {
  const app = useApp();
  const cfg = app.auth.config;
  const title = t('signin.title');
  useEffect(() => {
    document.title = title;
  }, [title]);
  return (
    <div class="signin">
      <main id="main" class="signin-card">
        <div class="signin-top">
          <span class="brand">{t('app.name')}</span>
          <LanguageSelect />
        </div>
        <h1>{t('signin.title')}</h1>
        <p class="muted">{t('signin.intro')}</p>
        {app.auth.notice.value && (
          <div class="alert alert-warning" role="alert">
            {app.auth.notice.value}
          </div>
        )}
        {app.auth.status.value === 'unavailable' ? (
          <button type="button" class="button" onClick={() => void app.auth.start()}>
            {t('app.retry')}
          </button>
        ) : cfg?.auth_dev ? (
          <DevSignInForm />
        ) : (
          <OidcSignIn />
        )}
      </main>
    </div>
  );
}

function OidcSignIn() {
  const app = useApp();
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const go = async () => {
    setBusy(true);
    setError(null);
    try {
      const here = location.value;
      await app.auth.signInOIDC(here.path + (here.query.size ? `?${here.query}` : ''));
    } catch (err) {
      setError(err);
      setBusy(false);
    }
  };
  return (
    <div>
      {error !== null && <ErrorMessage error={error} />}
      <button type="button" class="button button-primary button-wide" onClick={go} disabled={busy}>
        {busy ? t('signin.redirecting') : t('signin.oidc')}
      </button>
    </div>
  );
}

const assignable = roles.filter((r) => r !== 'none').reverse(); // admin first

function DevSignInForm() {
  const app = useApp();
  const [username, setUsername] = useState('');
  const [name, setName] = useState('');
  const [chosen, setChosen] = useState<string[]>(['quality']);
  const [lifetime, setLifetime] = useState('3600');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);

  const submit = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    setError(null);
    try {
      await app.auth.signInDev({
        username: username.trim(),
        name: name.trim() || undefined,
        roles: chosen,
        locale: locale.value,
        expires_in: Number(lifetime) || undefined,
      });
    } catch (err) {
      setError(err);
      setBusy(false);
    }
  };

  return (
    <form class="form" onSubmit={submit} aria-describedby="dev-note">
      <h2>{t('signin.dev')}</h2>
      <p id="dev-note" class="alert alert-info">
        {t('signin.devNote')}
      </p>
      {error !== null && <ErrorMessage error={error} />}
      <div class="field">
        <label for="username">{t('signin.username')}</label>
        <input
          id="username"
          name="username"
          required
          autocomplete="username"
          value={username}
          onInput={(e) => setUsername(e.currentTarget.value)}
          aria-describedby="username-help"
        />
        <p id="username-help" class="help">
          {t('signin.usernameHelp')}
        </p>
      </div>
      <div class="field">
        <label for="display-name">{t('signin.name')}</label>
        <input id="display-name" name="name" autocomplete="name" value={name} onInput={(e) => setName(e.currentTarget.value)} />
      </div>
      <fieldset class="field">
        <legend>{t('signin.roles')}</legend>
        <div class="checks">
          {assignable.map((r) => (
            <label key={r} class="check">
              <input
                type="checkbox"
                name="roles"
                value={r}
                checked={chosen.includes(r)}
                onChange={(e) => setChosen(e.currentTarget.checked ? [...chosen, r] : chosen.filter((x) => x !== r))}
              />
              {r}
            </label>
          ))}
        </div>
      </fieldset>
      <div class="field">
        <label for="lifetime">{t('signin.lifetime')}</label>
        <input
          id="lifetime"
          name="expires_in"
          type="number"
          inputMode="numeric"
          value={lifetime}
          onInput={(e) => setLifetime(e.currentTarget.value)}
        />
      </div>
      <button type="submit" class="button button-primary button-wide" disabled={busy}>
        {busy ? t('signin.submitting') : t('signin.submit')}
      </button>
    </form>
  );
}
