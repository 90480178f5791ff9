import { describe, expect, it } from 'vitest';
import type { Criterion } from '../types';
import { blank, changes, idOf, lineOf, mark, move, place, primaryOf, toCriteria, toDrafts, totals } from './scorecard';

const greeting: Criterion = {
  id: 'saludo',
  category: 'APERTURA',
  question: '¿Saluda el agente?',
  guidance: 'Cumple si saluda.',
  weight: 40,
  critical: false,
  applies_to: 'both',
  rule: { any: ['buenos días', 'hola'], speaker: 'agent', within_first_own_turns: 2, all: [['gracias', 'thanks']] },
  translations: { en: { question: 'Does the agent greet?', guidance: 'Met when they greet.' }, fr: { question: 'Salue-t-il ?' } },
};
const farewell: Criterion = {
  id: 'despedida',
  category: 'CIERRE',
  question: '¿Se despide?',
  weight: 60,
  critical: true,
  applies_to: 'chat',
  rule: { none: ['adiós y punto'] },
};

describe('drafts', () => {
  it('round-trip a scorecard: phrases as lines, other rule keys and languages kept', () => {
    const drafts = toDrafts([greeting, farewell], 'es');
    expect(drafts[0].phrases.any).toBe('buenos días\nhola');
    expect(drafts[0].question).toEqual({ es: '¿Saluda el agente?', en: 'Does the agent greet?' });
    expect(drafts[0].rest).toEqual({ within_first_own_turns: 2, all: [['gracias', 'thanks']] });
    expect(drafts[1].speaker).toBe('any');
    expect(toCriteria(drafts, 'es')).toEqual([greeting, farewell]);
    expect(changes([greeting, farewell], toCriteria(drafts, 'es'))).toEqual({ added: [], removed: [], changed: [] });
  });
  it('write the question in the campaign’s language first', () => {
    expect(primaryOf('en-GB')).toBe('en');
    expect(primaryOf('es')).toBe('es');
    expect(primaryOf('fr')).toBe('es');
    const d = { ...blank(), question: { es: '¿Ofrece más ayuda?', en: 'Offers more help?' } };
    d.phrases.any = 'algo más\n\n  anything else  \n';
    const [c] = toCriteria([d], 'en');
    expect(c.question).toBe('Offers more help?');
    expect(c.translations).toEqual({ es: { question: '¿Ofrece más ayuda?', guidance: undefined } });
    expect(c.rule).toEqual({ any: ['algo más', 'anything else'], speaker: 'agent' });
  });
  it('derive an id from the question until one is written', () => {
    expect(idOf('¿El agente saludó y se presentó?')).toBe('el_agente_saludo_y_se_presento');
    expect(idOf('x'.repeat(70))).toHaveLength(64);
    const d = { ...blank(), question: { es: '¿Verifica la identidad?', en: '' } };
    expect(toCriteria([d], 'es')[0].id).toBe('verifica_la_identidad');
    expect(toCriteria([{ ...d, id: 'ident' }], 'es')[0].id).toBe('ident');
  });
  it('add up the weights for calls and for chats', () => {
    const drafts = toDrafts([greeting, farewell], 'es');
    expect(totals(drafts)).toEqual({ call: 40, chat: 100 });
    expect(
      totals([
        { ...blank(), weight: '0.1' },
        { ...blank(), weight: '0.2' },
        { ...blank(), weight: 'x' },
      ]),
    ).toEqual({
      call: 0.3,
      chat: 0.3,
    });
  });
  it('say what a publication adds, removes and changes', () => {
    const next = toCriteria(toDrafts([{ ...greeting, weight: 50 }], 'es'), 'es');
    next.push({ ...farewell, id: 'cierre' });
    expect(changes([greeting, farewell], next)).toEqual({ added: ['cierre'], removed: ['despedida'], changed: ['saludo'] });
  });
  it('move a criterion up and down, not past either end', () => {
    expect(move([1, 2, 3], 0, 1)).toEqual([2, 1, 3]);
    expect(move([1, 2, 3], 2, -1)).toEqual([1, 3, 2]);
    expect(move([1, 2, 3], 0, -1)).toEqual([1, 2, 3]);
  });
});

describe('place', () => {
  const drafts = toDrafts([greeting, farewell], 'es');
  drafts[0].phrases.any = 'hola\n\nbuenos NEAR/x días';
  it('puts a phrase’s problem at its line and character', () => {
    const placed = place(
      [
        {
          location: 'body.criteria[0].rule.any[1]',
          at: 8,
          message: 'criterion 0 (saludo): rule.any[1]: "buenos NEAR/x días" at character 8: NEAR/ takes a number of words from 1 to 50',
        },
      ],
      drafts,
      'es',
    );
    expect(placed.problems).toEqual([
      {
        criterion: 0,
        field: 'rule.any',
        line: 2,
        at: 8,
        message: '"buenos NEAR/x días" at character 8: NEAR/ takes a number of words from 1 to 50',
      },
    ]);
    expect(mark(drafts[0].phrases.any, placed.problems[0])).toEqual({ before: 'buenos ', at: 'N', after: 'EAR/x días' });
  });
  it('places questions by language, other fields by name, the rest as the rule’s or the whole’s', () => {
    const placed = place(
      [
        { location: 'body.criteria[0].translations.en.question', message: 'criterion 0 (saludo): translations.en.question: is required' },
        { location: 'body.criteria[1].question', message: 'criterion 1 (despedida): question: is required' },
        { location: 'body.criteria[1].weight', message: 'criterion 1 (despedida): weight: must be a number greater than 0, not 0' },
        { location: 'body.criteria[1].rule', message: 'criterion 1 (despedida): rule: needs at least one of "any", "all" or "none"' },
        { location: 'body.criteria[1].rule.tone.fails_at', message: 'criterion 1: rule.tone.fails_at: must be a score' },
        { location: 'body.criteria[1].rule.speaker', message: 'criterion 1: rule.speaker: must be "agent" or "customer"' },
        { location: 'body.criteria', message: 'the ids take too many bytes' },
        { location: 'body.criteria[7].id', message: 'criterion 7: id: is required' },
      ],
      drafts,
      'es',
    );
    expect(placed.problems.map((p) => [p.criterion, p.field, p.message])).toEqual([
      [0, 'question.en', 'is required'],
      [1, 'question.es', 'is required'],
      [1, 'weight', 'must be a number greater than 0, not 0'],
      [1, 'rule', 'needs at least one of "any", "all" or "none"'],
      [1, 'rule', 'must be a score'],
      [1, 'rule.speaker', 'must be "agent" or "customer"'],
    ]);
    expect(placed.general).toEqual(['the ids take too many bytes', 'criterion 7: id: is required']);
  });
  it('marks nothing past the line or without a character', () => {
    expect(lineOf('a\n\nb\nc', 2)).toBe(3);
    expect(mark('abc', { criterion: 0, field: 'rule.any', line: 0, at: 9, message: '' })).toBeNull();
    expect(mark('abc', { criterion: 0, field: 'rule.any', line: 0, message: '' })).toBeNull();
  });
});
