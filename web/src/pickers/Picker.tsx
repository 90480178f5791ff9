// One picker for every filter and form that takes a user, a campaign or a
// criterion: a combobox (WAI-ARIA 1.2) where the name is typed and chosen,
// while the filter or form keeps the value (an id, a campaign's name).
import { useCallback, useEffect, useId, useMemo, useState } from 'preact/hooks';
import { locale, t } from '../i18n';
import { useApp } from '../state';
import { useLoad } from '../ui';
import { matching, nextActive, userOption, type Option } from './options';

interface PickerProps {
  id: string;
  label: string;
  value: string;
  /** name is the value's name, '' while unknown (the value is shown). */
  name: string;
  /** any names the empty value ("Any", "Default campaign"). */
  any: string;
  /** help is a line below the field that describes it. */
  help?: string;
  /** adding is a picker that adds what is picked to a list: it has no empty option (any is its placeholder) and empties once one is picked. */
  adding?: boolean;
  /** free keeps what is typed as the value when no option is picked (a filter also takes a username or an id). */
  free?: boolean;
  /** find returns the options for what is typed; a new find (its options loaded) finds them again. */
  find: (text: string, signal: AbortSignal) => Promise<Option[]>;
  /** onChange is given the value and its name (what was typed, for a free one). */
  onChange: (value: string, name: string) => void;
  /**
   * onTyped is given, as the text is typed, the value leaving the field would give onChange, and null once it is
   * given (the field left, an option picked, Escape): a form sent while the field still has the focus (files
   * dropped) takes it, not the value as it was.
   */
  onTyped?: (value: string | null) => void;
}

/** Picker is a labelled combobox: typing finds options, arrows move among them, Enter or a click picks one, Escape closes. */
export function Picker(p: PickerProps) {
  const list = useId();
  const shown = p.value ? p.name || p.value : '';
  const [text, setText] = useState(shown);
  const [open, setOpen] = useState(false);
  const [active, setActive] = useState(-1);
  const [options, setOptions] = useState<Option[]>([]);
  useEffect(() => setText(shown), [shown]);
  const { find } = p;
  useEffect(() => {
    if (!open) return;
    const ctl = new AbortController();
    find(text === shown ? '' : text, ctl.signal)
      .then((o) => {
        setOptions(o);
        setActive(-1);
      })
      .catch(() => {});
    return () => ctl.abort();
  }, [open, text, find, shown]);
  /** left is the value leaving the field with text in it gives: none when emptied, the text in a free picker, else the value as it is. */
  const left = (text: string) => (text.trim() === '' ? '' : p.free && text !== shown ? text.trim() : p.value);
  const pick = (o: Option) => {
    setOpen(false);
    p.onTyped?.(null);
    if (o.value === p.value || p.adding) setText(shown);
    p.onChange(o.value, o.label);
  };
  const all: Option[] = p.adding ? options : [{ value: '', label: p.any }, ...options];
  const shownList = open && all.length > 0;
  const onKey = (e: KeyboardEvent) => {
    if (e.key === 'Escape' && open) {
      e.preventDefault();
      setOpen(false);
      setText(shown);
      p.onTyped?.(null);
    } else if (e.key === 'Enter' && open && active >= 0) {
      e.preventDefault();
      pick(all[active]);
    } else if (['ArrowDown', 'ArrowUp'].includes(e.key) || (open && ['Home', 'End'].includes(e.key))) {
      e.preventDefault();
      setOpen(true);
      setActive(nextActive(e.key, active, all.length));
    }
  };
  return (
    <div class="field picker">
      <label for={p.id}>{p.label}</label>
      <input
        id={p.id}
        role="combobox"
        autocomplete="off"
        aria-autocomplete="list"
        aria-expanded={shownList}
        aria-controls={list}
        aria-activedescendant={open && active >= 0 ? `${list}-${active}` : undefined}
        aria-describedby={p.help ? `${p.id}-help` : undefined}
        placeholder={p.any}
        value={text}
        onFocus={() => setOpen(true)}
        onInput={(e) => {
          setText(e.currentTarget.value);
          setOpen(true);
          p.onTyped?.(left(e.currentTarget.value));
        }}
        onKeyDown={onKey}
        onBlur={() => {
          setOpen(false);
          p.onTyped?.(null);
          if (text.trim() === '') p.onChange('', '');
          else if (p.free && text !== shown) p.onChange(text.trim(), text.trim());
          else setText(shown);
        }}
      />
      <ul id={list} role="listbox" class="picker-options" hidden={!shownList}>
        {all.map((o, i) => (
          <li
            key={o.value}
            id={`${list}-${i}`}
            role="option"
            aria-selected={i === active}
            class={o.value === p.value ? 'picker-option current' : 'picker-option'}
            // Before the input's blur, which would close the list.
            onMouseDown={(e) => {
              e.preventDefault();
              pick(o);
            }}
          >
            {o.label}
            {o.hint && <span class="muted small"> {o.hint}</span>}
          </li>
        ))}
      </ul>
      {p.help && (
        <p id={`${p.id}-help`} class="help">
          {p.help}
        </p>
      )}
    </div>
  );
}

type FieldProps = Omit<PickerProps, 'name' | 'find' | 'any'> & { any?: string };

/** useUserNames loads the names of the users of ids (GET /users/names, which names 50 at most), as options. */
function useUserNames(ids: string[]): Option[] {
  const app = useApp();
  // The ids as one value, so that a new list of the same ids loads nothing.
  const key = ids.length ? JSON.stringify(ids.slice(0, 50)) : '';
  const { data } = useLoad(
    (signal) =>
      key
        ? app.api.get('/users/names', { params: { query: { id: JSON.parse(key) as string[], limit: 50 } }, signal })
        : Promise.resolve({ items: [], total: 0 }),
    [app.api, key],
  );
  return (data?.items ?? []).map(userOption);
}

/** UserPicker picks a user by name (GET /users/names, quality and above); the value is their id. */
export function UserPicker(props: FieldProps) {
  const app = useApp();
  const found = useUserNames(props.value ? [props.value] : []).find((u) => u.value === props.value);
  const find = useCallback(
    async (text: string, signal: AbortSignal) =>
      ((await app.api.get('/users/names', { params: { query: { q: text, limit: 20 } }, signal })).items ?? []).map(userOption),
    [app.api],
  );
  return <Picker {...props} any={props.any ?? t('tasks.any')} name={found?.label ?? ''} find={find} />;
}

/** Chosen lists what a picker of several holds, by name, each with a button that removes it. */
export function Chosen({ options, onRemove }: { options: Option[]; onRemove: (value: string) => void }) {
  if (options.length === 0) return null;
  return (
    <ul class="chosen">
      {options.map((o) => (
        <li key={o.value} class="chip">
          {o.label}
          {o.hint && <span class="muted small"> {o.hint}</span>}
          <button type="button" class="chip-remove" aria-label={t('app.remove', { name: o.label })} onClick={() => onRemove(o.value)}>
            ×
          </button>
        </li>
      ))}
    </ul>
  );
}

/** UsersPicker picks several users by name, each once: those chosen, then a picker that adds one (any is its placeholder); the value is their ids. */
export function UsersPicker({
  value,
  onChange,
  ...props
}: Omit<PickerProps, 'name' | 'find' | 'value' | 'onChange' | 'free' | 'adding'> & { value: string[]; onChange: (ids: string[]) => void }) {
  const names = useUserNames(value);
  return (
    <div>
      <UserPicker {...props} adding value="" onChange={(id) => id && !value.includes(id) && onChange([...value, id])} />
      <Chosen
        options={value.map((id) => names.find((u) => u.value === id) ?? { value: id, label: id })}
        onRemove={(id) => onChange(value.filter((v) => v !== id))}
      />
    </div>
  );
}

/** usePicked is a picker of a list loaded once: its options, found among them by what is typed. */
function usePicked(options: Option[] | null, value: string) {
  // A list still loading finds nothing; once loaded, an open picker finds again in it.
  const find = useCallback((text: string) => Promise.resolve(matching(options ?? [], text)), [options]);
  return { find, name: options?.find((o) => o.value === value)?.label ?? '' };
}

/** CampaignPicker picks a campaign by name; the value is its name, or its id with by="id". */
export function CampaignPicker({ by = 'name', ...props }: FieldProps & { by?: 'name' | 'id' }) {
  const app = useApp();
  const { data } = useLoad((signal) => app.api.get('/campaigns', { signal }), [app.api]);
  const options = useMemo(() => data && data.map((c) => ({ value: by === 'id' ? c.id : c.name, label: c.name })), [data, by]);
  return <Picker {...props} any={props.any ?? t('tasks.any')} {...usePicked(options, props.value)} />;
}

/** CriterionPicker picks a criterion by its question in the user's language, of campaign's scorecard or all; the value is its id. */
export function CriterionPicker({ campaign, ...props }: FieldProps & { campaign: string }) {
  const app = useApp();
  const lang = locale.value;
  const { data } = useLoad(
    (signal) => app.api.get('/criteria', { params: { query: { campaign, lang } }, signal }),
    [app.api, campaign, lang],
  );
  const options = useMemo(
    () => data && data.map((c) => ({ value: c.id, label: c.question, hint: (c.campaigns ?? []).join(', ') })),
    [data],
  );
  return <Picker {...props} any={props.any ?? t('tasks.any')} {...usePicked(options, props.value)} />;
}
