// What the pickers show: options found by what is typed, ignoring case
// and accents. Pure functions, so the rules are tested on their own.

/** Option is one choice of a picker: the value a filter or form keeps, the name shown and a hint beside it. */
export interface Option {
  value: string;
  label: string;
  hint?: string;
}

/** fold is s without case and accents, as a picker compares what is typed ("Raúl" and "raul" are the same). */
export function fold(s: string): string {
  return s.normalize('NFD').replace(/\p{M}/gu, '').toLowerCase().trim();
}

/** matching are the options whose name or hint contains every word of text (all of them for none), at most limit. */
export function matching(options: readonly Option[], text: string, limit = 50): Option[] {
  const words = fold(text).split(/\s+/).filter(Boolean);
  return options.filter((o) => words.every((w) => fold(`${o.label} ${o.hint ?? ''}`).includes(w))).slice(0, limit);
}

/** nextActive is the option made active by a key (ArrowDown, ArrowUp, Home, End) among n, from active (-1: none). */
export function nextActive(key: string, active: number, n: number): number {
  if (n === 0) return -1;
  switch (key) {
    case 'ArrowDown':
      return active < 0 ? 0 : (active + 1) % n;
    case 'ArrowUp':
      return active <= 0 ? n - 1 : active - 1;
    case 'Home':
      return 0;
    case 'End':
      return n - 1;
  }
  return active;
}

/** userOption is a user as a picker shows them: their name, their username beside it. */
export function userOption(u: { id: string; username: string; name: string }): Option {
  return u.name && u.name !== u.username ? { value: u.id, label: u.name, hint: u.username } : { value: u.id, label: u.username };
}
