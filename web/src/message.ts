// How a message of the catalogs (i18n.ts) takes its values, as a pure
// function so it is tested on its own.

/**
 * plural is a count's forms in a message, ICU's way: {calls, plural, one {# call} other {# calls}}. A form is a
 * plural category of Intl.PluralRules (zero, one, two, few, many, other) or an exact count (=0); # is the count.
 * Its forms may hold {name} placeholders.
 */
const plural = /\{(\w+), plural,((?:\s*(?:=\d+|\w+) \{(?:[^{}]|\{\w+\})*\})+)\s*\}/g;
const pluralForm = /(=\d+|\w+) \{((?:[^{}]|\{\w+\})*)\}/g;
const placeholder = /\{(\w+)\}/g;

/**
 * fill is msg with its {name} placeholders filled from vars and each of its plural counts in the form the count
 * takes in lang (an exact count first, then its category, then other). A name vars lacks is left as written.
 */
export function fill(msg: string, vars: Record<string, string | number>, lang: string): string {
  const rules = new Intl.PluralRules(lang);
  return msg
    .replace(plural, (m, name: string, forms: string) => {
      if (!(name in vars)) return m;
      const count = Number(vars[name]);
      const byForm = new Map([...forms.matchAll(pluralForm)].map(([, form, text]) => [form, text]));
      const text = byForm.get(`=${count}`) ?? byForm.get(rules.select(count)) ?? byForm.get('other') ?? m;
      return text.replaceAll('#', String(vars[name]));
    })
    .replace(placeholder, (m, name: string) => (name in vars ? String(vars[name]) : m));
}
