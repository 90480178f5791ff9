// A small history router: the current location is a signal, links and
// navigate() push history entries, and routes are matched by pattern
// (":name" segments become params).
import { signal } from '@preact/signals';
import type { ComponentChildren, JSX } from 'preact';

export interface Location {
  path: string;
  query: URLSearchParams;
}

function current(): Location {
  return { path: window.location.pathname, query: new URLSearchParams(window.location.search) };
}

/** location is where the app is; components that read it re-render when it changes. */
export const location = signal<Location>(current());

/**
 * leaving holds a question to ask before the app leaves the page, while
 * a page has something to lose (unsaved edits); the browser asks its own
 * before the tab is closed or reloaded.
 */
let leaving: string | null = null;

/** guardLeaving asks question before leaving the page, until the returned function is called. */
export function guardLeaving(question: string): () => void {
  leaving = question;
  const onUnload = (e: BeforeUnloadEvent) => e.preventDefault();
  window.addEventListener('beforeunload', onUnload);
  return () => {
    if (leaving === question) leaving = null;
    window.removeEventListener('beforeunload', onUnload);
  };
}

/** mayLeave asks the guard's question, if any: whether to go ahead. */
const mayLeave = () => leaving === null || window.confirm(leaving);

window.addEventListener('popstate', () => {
  if (current().path !== location.value.path && !mayLeave()) {
    // Back or forward was pressed: stay, and put the page back on top.
    const { path, query } = location.value;
    window.history.pushState(null, '', query.size ? `${path}?${query}` : path);
    return;
  }
  location.value = current();
});

/** navigate goes to an in-app URL (path and query), unless the page has something to lose and the user stays. */
export function navigate(to: string, opts: { replace?: boolean } = {}) {
  if (new URL(to, window.location.href).pathname !== location.value.path && !mayLeave()) return;
  if (opts.replace) window.history.replaceState(null, '', to);
  else window.history.pushState(null, '', to);
  location.value = current();
}

/** match returns the params of path if it matches pattern (e.g. /app/tasks/:uuid), else null. */
export function match(pattern: string, path: string): Record<string, string> | null {
  const want = pattern.split('/').filter(Boolean);
  const got = path.split('/').filter(Boolean);
  if (want.length !== got.length) return null;
  const params: Record<string, string> = {};
  for (let i = 0; i < want.length; i++) {
    if (want[i].startsWith(':')) params[want[i].slice(1)] = decodeURIComponent(got[i]);
    else if (want[i] !== got[i]) return null;
  }
  return params;
}

type LinkProps = JSX.HTMLAttributes<HTMLAnchorElement> & { href: string; children?: ComponentChildren };

/** Link is an anchor that navigates inside the app (a modified click still opens a new tab). */
export function Link({ href, onClick, ...rest }: LinkProps) {
  return (
    <a
      href={href}
      onClick={(e) => {
        if (typeof onClick === 'function') onClick(e);
        if (e.defaultPrevented || e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return;
        if (new URL(href, window.location.href).origin !== window.location.origin) return;
        e.preventDefault();
        navigate(href);
      }}
      {...rest}
    />
  );
}
