import type { ComponentChildren } from 'preact';
import { Bell } from '../notifications/Bell';
import { t } from '../i18n';
import { Link, location } from '../router';
import { routes, type Route } from '../routes';
import { useApp } from '../state';
import { atLeast } from '../types';
import { Toasts } from '../ui';
import { UserMenu } from './UserMenu';

/** here reports whether the screen shown is route's, or one below it. */
function here(route: Route): boolean {
  return location.value.path === route.pattern || location.value.path.startsWith(route.pattern + '/');
}

function NavLink({ route }: { route: Route }) {
  const current = here(route);
  return (
    <li>
      <Link href={route.pattern} class={current ? 'nav-link active' : 'nav-link'} aria-current={current ? 'page' : undefined}>
        {t(route.title)}
      </Link>
    </li>
  );
}

/** Shell is the frame of every signed-in screen: header, navigation, bell, user menu. */
export function Shell({ children }: { children: ComponentChildren }) {
  const app = useApp();
  const role = app.profile.value?.role ?? 'none';
  const allowed = routes.filter((r) => r.nav && atLeast(role, r.minRole) && (!r.navMaxRole || atLeast(r.navMaxRole, role)));
  const main = allowed.filter((r) => r.nav === 'main');
  const admin = allowed.filter((r) => r.nav === 'admin');
  return (
    <div class="shell">
      <a class="skip-link" href="#main">
        {t('app.skip')}
      </a>
      <header class="header">
        <Link href="/" class="brand">
          {t('app.name')}
        </Link>
        <nav aria-label={t('nav.label')} class="nav">
          <ul>
            {main.map((r) => (
              <NavLink key={r.pattern} route={r} />
            ))}
          </ul>
          {admin.length > 0 && (
            // A menu, so that the navigation stays on one line; it closes on the next screen (a new element).
            <details class="nav-group nav-menu" key={location.value.path}>
              <summary class={admin.some(here) ? 'nav-link active' : 'nav-link'} id="nav-admin">
                {t('nav.admin')}
              </summary>
              <ul aria-labelledby="nav-admin" class="nav-menu-list">
                {admin.map((r) => (
                  <NavLink key={r.pattern} route={r} />
                ))}
              </ul>
            </details>
          )}
        </nav>
        <div class="header-end">
          <Bell />
          <UserMenu />
        </div>
      </header>
      <main id="main" class="main" tabIndex={-1}>
        {children}
      </main>
      <Toasts />
    </div>
  );
}
