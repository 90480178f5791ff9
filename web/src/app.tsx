import { Component, type ComponentChildren } from 'preact';
import { useEffect } from 'preact/hooks';
import { t, roleName } from './i18n';
import { SignInPage } from './pages/SignIn';
import { Link, location, navigate } from './router';
import { home, resolve } from './routes';
import { Shell } from './shell/Shell';
import { useApp } from './state';
import { atLeast } from './types';
import { ErrorMessage, Loading, PageHeader } from './ui';

/** App shows the sign-in page, or the signed-in screen for the current location. */
export function App() {
  const app = useApp();
  const status = app.auth.status.value;
  if (status === 'loading') return <Loading />;
  if (status !== 'signed-in') return <SignInPage />;
  if (app.profileError.value) {
    return (
      <main id="main" class="main">
        <ErrorMessage error={app.profileError.value} onRetry={() => void app.enter()} />
      </main>
    );
  }
  if (!app.profile.value) return <Loading />;
  return (
    <Shell>
      <ErrorBoundary key={location.value.path}>
        <Screen />
      </ErrorBoundary>
    </Shell>
  );
}

function Screen() {
  const app = useApp();
  const role = app.profile.value?.role ?? 'none';
  const path = location.value.path;
  const isRoot = path === '/' || path === '/app' || path === '/app/';
  useEffect(() => {
    if (isRoot) navigate(home(role), { replace: true });
  }, [isRoot, role]);
  if (isRoot) return null;
  const found = resolve(path);
  if (!found) {
    return (
      <section aria-labelledby="page-title">
        <PageHeader title={t('app.notFoundTitle')} />
        <p>{t('app.notFound', { path })}</p>
        <Link href="/">{t('app.backHome')}</Link>
      </section>
    );
  }
  if (!atLeast(role, found.route.minRole)) {
    return (
      <section aria-labelledby="page-title">
        <PageHeader title={t('app.forbiddenTitle')} />
        <p class="alert alert-warning" role="alert">
          {t('app.forbidden', { role: roleName(found.route.minRole), have: roleName(role) })}
        </p>
        <Link href="/">{t('app.backHome')}</Link>
      </section>
    );
  }
  return found.route.render(found.params);
}

/** ErrorBoundary keeps a failing screen from blanking the page: it shows the error instead. */
class ErrorBoundary extends Component<{ children: ComponentChildren }, { error: unknown }> {
  override state = { error: null as unknown };

  override componentDidCatch(error: unknown) {
    this.setState({ error });
  }

  override render() {
    if (this.state.error === null) return this.props.children;
    return (
      <div class="alert alert-error" role="alert">
        <p>{t('app.crashed', { message: this.state.error instanceof Error ? this.state.error.message : String(this.state.error) })}</p>
        <button type="button" class="button" onClick={() => window.location.reload()}>
          {t('app.reload')}
        </button>
      </div>
    );
  }
}
