import { useId } from 'preact/hooks';
import { roleName, t } from '../i18n';
import { Link } from '../router';
import { useApp } from '../state';
import { LanguageSelect } from './LanguageSelect';
import { usePopover } from './usePopover';

function initials(name: string): string {
  const parts = name.trim().split(/\s+/).filter(Boolean);
  const letters = parts.length > 1 ? parts[0][0] + parts[parts.length - 1][0] : name.slice(0, 2);
  return letters.toUpperCase();
}

/** UserMenu shows who is signed in, the language switch and sign-out. */
export function UserMenu() {
  const app = useApp();
  const me = app.profile.value;
  const { open, setOpen, root, button } = usePopover();
  const panel = useId();
  if (!me) return null;
  const display = me.name || me.username;
  return (
    <div class="popover-root" ref={root}>
      <button ref={button} type="button" class="user-button" aria-expanded={open} aria-controls={panel} onClick={() => setOpen(!open)}>
        <span class="avatar" aria-hidden="true">
          {initials(display)}
        </span>
        <span class="user-name">{display}</span>
        <span class="sr-only">{t('user.menu')}</span>
      </button>
      <div id={panel} class="popover user-panel" hidden={!open}>
        <p class="muted small">{t('user.signedInAs')}</p>
        <p class="user-who">
          <strong>{display}</strong>
          <br />
          <span class="muted">{me.email || me.username}</span>
        </p>
        <p>
          <span class={`badge role-${me.role}`}>{roleName(me.role)}</span>
        </p>
        <p>
          <Link href="/app/profile" onClick={() => setOpen(false)}>
            {t('profile.title')}
          </Link>
        </p>
        <LanguageSelect />
        <button type="button" class="button button-wide" onClick={() => void app.signOut()}>
          {t('user.signOut')}
        </button>
      </div>
    </div>
  );
}
