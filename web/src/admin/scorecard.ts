// The scorecard builder's state: a scorecard's criteria as the form edits
// them (a draft), and back; the weights' totals; the server's problems
// placed at their field, line and character; what a publication changes.
import type { ErrorDetail } from '../api';
import type { Criterion } from '../types';

/** Lang is a language the builder writes questions and guidance in. */
export type Lang = 'es' | 'en';
export const langs: Lang[] = ['es', 'en'];

/** phraseKeys are the rule's lists of phrases the form edits, one phrase a line (see docs/engines.md#rules). */
export const phraseKeys = ['any', 'none', 'applies_if', 'before', 'against', 'unless', 'hints'] as const;
export type PhraseKey = (typeof phraseKeys)[number];

export type Speaker = 'agent' | 'customer' | 'any';
export type AppliesTo = 'call' | 'chat' | 'both';

/** Draft is one criterion as the form holds it. */
export interface Draft {
  /** key tells drafts apart while they are reordered. */
  key: number;
  id: string;
  /** published: the id is a published version's, so it stays (statistics follow it). */
  published: boolean;
  category: string;
  question: Record<Lang, string>;
  guidance: Record<Lang, string>;
  weight: string;
  critical: boolean;
  appliesTo: AppliesTo;
  speaker: Speaker;
  phrases: Record<PhraseKey, string>;
  /** rest are the rule's other keys (all, tone, windows…), kept as they are. */
  rest: Record<string, unknown>;
  /** others are translations into languages other than es and en, kept as they are. */
  others: NonNullable<Criterion['translations']>;
}

let nextKey = 1;

/** primaryOf is the language a campaign's questions are written in first: its own when es or en, else Spanish. */
export function primaryOf(language: string): Lang {
  return language.toLowerCase().startsWith('en') ? 'en' : 'es';
}

function otherOf(primary: Lang): Lang {
  return primary === 'es' ? 'en' : 'es';
}

const noPhrases = (): Record<PhraseKey, string> => ({ any: '', none: '', applies_if: '', before: '', against: '', unless: '', hints: '' });

/** blank is a new criterion: an agent's phrase, for calls and chats. */
export function blank(): Draft {
  return {
    key: nextKey++,
    id: '',
    published: false,
    category: '',
    question: { es: '', en: '' },
    guidance: { es: '', en: '' },
    weight: '10',
    critical: false,
    appliesTo: 'both',
    speaker: 'agent',
    phrases: noPhrases(),
    rest: {},
    others: {},
  };
}

/** toDrafts is a published scorecard's criteria as the form edits them, questions in primary first. */
export function toDrafts(criteria: Criterion[], primary: Lang): Draft[] {
  const other = otherOf(primary);
  return criteria.map((c) => {
    const rule = { ...((c.rule ?? {}) as Record<string, unknown>) };
    const phrases = noPhrases();
    for (const k of phraseKeys) {
      const list = rule[k];
      if (Array.isArray(list) && list.every((p) => typeof p === 'string')) {
        phrases[k] = list.join('\n');
        delete rule[k];
      }
    }
    const speaker = rule.speaker === 'agent' || rule.speaker === 'customer' ? rule.speaker : 'any';
    delete rule.speaker;
    const { [other]: words, ...others } = c.translations ?? {};
    return {
      key: nextKey++,
      id: c.id,
      published: true,
      category: c.category,
      question: { [primary]: c.question, [other]: words?.question ?? '' } as Record<Lang, string>,
      guidance: { [primary]: c.guidance ?? '', [other]: words?.guidance ?? '' } as Record<Lang, string>,
      weight: String(c.weight),
      critical: c.critical,
      appliesTo: c.applies_to as AppliesTo,
      speaker,
      phrases,
      rest: rule,
      others,
    };
  });
}

/** lines are a phrase list's phrases: its lines not blank, trimmed. */
export function lines(text: string): string[] {
  return text
    .split('\n')
    .map((l) => l.trim())
    .filter(Boolean);
}

/** toCriteria is the drafts as the API takes them: the question in primary, the other language as a translation. */
export function toCriteria(drafts: Draft[], primary: Lang): Criterion[] {
  const other = otherOf(primary);
  return drafts.map((d) => {
    const rule: Record<string, unknown> = { ...d.rest };
    for (const k of phraseKeys) {
      const list = lines(d.phrases[k]);
      if (list.length) rule[k] = list;
    }
    if (d.speaker !== 'any') rule.speaker = d.speaker;
    const translations = { ...d.others };
    if (d.question[other].trim() || d.guidance[other].trim()) {
      translations[other] = { question: d.question[other].trim(), guidance: d.guidance[other].trim() || undefined };
    }
    const c: Criterion = {
      id: d.id.trim() || idOf(d.question[primary]),
      category: d.category.trim(),
      question: d.question[primary].trim(),
      weight: Number(d.weight),
      critical: d.critical,
      applies_to: d.appliesTo,
      rule,
    };
    if (d.guidance[primary].trim()) c.guidance = d.guidance[primary].trim();
    if (Object.keys(translations).length) c.translations = translations;
    return c;
  });
}

/** idOf derives a criterion's id from its question: lower case, no accents, words joined by "_", at most 64 characters. */
export function idOf(question: string): string {
  return question
    .normalize('NFD')
    .replace(/\p{M}/gu, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '_')
    .replace(/^_+|_+$/g, '')
    .slice(0, 64)
    .replace(/_+$/, '');
}

/** Totals are the weights of what a call and a chat are scored on. */
export interface Totals {
  call: number;
  chat: number;
}

/** totals adds up the weights of the criteria that apply to calls and to chats. */
export function totals(drafts: Draft[]): Totals {
  const sum = (kind: AppliesTo) =>
    drafts.filter((d) => d.appliesTo === 'both' || d.appliesTo === kind).reduce((n, d) => n + (Number(d.weight) || 0), 0);
  return { call: round(sum('call')), chat: round(sum('chat')) };
}

const round = (n: number) => Math.round(n * 100) / 100;

/**
 * Problem is one of the server's problems placed in the form: the criterion
 * (its index), the field ("id", "question.en", "weight", "rule.any", "rule"…),
 * for a phrase its line (from 0) and character (from 1), and the message.
 */
export interface Problem {
  criterion: number;
  field: string;
  line?: number;
  at?: number;
  message: string;
}

/** Placed are a publication's or a preview's problems: those of a criterion's field, and those of the whole. */
export interface Placed {
  problems: Problem[];
  general: string[];
}

const criterionPath = /^body\.criteria\[(\d+)\]\.(.+)$/;

/** place puts the server's problems (error details) at their field of the drafts, a phrase at its line and character. */
export function place(details: ErrorDetail[], drafts: Draft[], primary: Lang): Placed {
  const out: Placed = { problems: [], general: [] };
  for (const d of details) {
    const m = criterionPath.exec(d.location ?? '');
    const draft = m ? drafts[Number(m[1])] : undefined;
    if (!m || !draft) {
      out.general.push(d.message);
      continue;
    }
    out.problems.push({ criterion: Number(m[1]), message: messageOf(d.message), ...fieldOf(m[2], draft, primary, d.at) });
  }
  return out;
}

/** messageOf is a problem's message without the criterion and field it starts with, which the form shows by placing it. */
function messageOf(message: string): string {
  return message.replace(/^criterion \d+( \([^)]*\))?: [^:]+: /, '');
}

function fieldOf(path: string, draft: Draft, primary: Lang, at?: number): Omit<Problem, 'criterion' | 'message'> {
  const words = /^(?:translations\.(\w+)\.)?(question|guidance)$/.exec(path);
  if (words) return { field: `${words[2]}.${words[1] ?? primary}` };
  const phrase = /^rule\.(\w+)\[(\d+)\]/.exec(path);
  if (phrase && (phraseKeys as readonly string[]).includes(phrase[1])) {
    return { field: `rule.${phrase[1]}`, line: lineOf(draft.phrases[phrase[1] as PhraseKey], Number(phrase[2])), at };
  }
  const list = /^rule\.(\w+)$/.exec(path);
  if (list && (phraseKeys as readonly string[]).includes(list[1])) return { field: path };
  if (list?.[1] === 'speaker') return { field: 'rule.speaker' };
  if (['id', 'category', 'weight', 'applies_to'].includes(path)) return { field: path };
  return { field: 'rule' };
}

/** lineOf is the line of text that holds its n-th phrase (blank lines are not phrases). */
export function lineOf(text: string, n: number): number {
  let seen = -1;
  const all = text.split('\n');
  for (let i = 0; i < all.length; i++) {
    if (all[i].trim() && ++seen === n) return i;
  }
  return n;
}

/** Marked is a phrase split around the character a problem is at, to show it marked. */
export interface Marked {
  before: string;
  at: string;
  after: string;
}

/** mark splits the line of text a problem is at around its character (counted in code points, as the server counts). */
export function mark(text: string, p: Problem): Marked | null {
  if (p.line === undefined || !p.at) return null;
  const chars = Array.from((text.split('\n')[p.line] ?? '').trim());
  if (p.at > chars.length) return null;
  return { before: chars.slice(0, p.at - 1).join(''), at: chars[p.at - 1], after: chars.slice(p.at).join('') };
}

/** Changes are what publishing the drafts changes, by criterion id. */
export interface Changes {
  added: string[];
  removed: string[];
  changed: string[];
}

/** canonical is v as JSON with every object's keys sorted, so equal criteria compare equal whatever their keys' order. */
function canonical(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonical).join(',')}]`;
  if (v && typeof v === 'object') {
    const entries = Object.entries(v).filter(([, x]) => x !== undefined);
    return `{${entries
      .sort(([a], [b]) => (a < b ? -1 : 1))
      .map(([k, x]) => `${JSON.stringify(k)}:${canonical(x)}`)
      .join(',')}}`;
  }
  return JSON.stringify(v);
}

/** changes compares the criteria to publish with the published ones. */
export function changes(published: Criterion[], next: Criterion[]): Changes {
  const before = new Map(published.map((c) => [c.id, canonical(c)]));
  const ids = new Set(next.map((c) => c.id));
  return {
    added: next.filter((c) => !before.has(c.id)).map((c) => c.id),
    removed: published.filter((c) => !ids.has(c.id)).map((c) => c.id),
    changed: next.filter((c) => before.has(c.id) && before.get(c.id) !== canonical(c)).map((c) => c.id),
  };
}

/** move returns drafts with the one at i moved by step (−1 up, +1 down); unchanged at either end. */
export function move<T>(drafts: T[], i: number, step: number): T[] {
  const j = i + step;
  if (j < 0 || j >= drafts.length) return drafts;
  const out = drafts.slice();
  [out[i], out[j]] = [out[j], out[i]];
  return out;
}
