// What the end-to-end specs share: Playwright's test with the fixtures base
// (the shared `auditd all`, development sign-in), smtp (what the fake SMTP
// server received) and oidc (the API process that signs in through the fake
// OIDC provider, and what the provider was asked), all started by
// global-setup.ts; and the helpers that sign in, call the API, upload and
// take the screenshots that are checked with axe-core.
//
// The API's answers are JSON read as `any`: the specs check their fields.
import { test as base, expect, type Browser, type Locator, type Page } from '@playwright/test';
import { execFileSync } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { artifacts, databaseURL } from './servers';

export { expect };

interface Message {
  rcpt: string[];
  data: string;
}

interface Asked {
  grants: string[];
  pkce: string[];
  signedOut: number;
}

interface Fixtures {
  /** base is the URL of the shared `auditd all`. */
  base: string;
  /** smtp.messages are the e-mails the fake SMTP server received, in order. */
  smtp: { messages: () => Promise<Message[]> };
  /** oidc.dashboard is the URL of `auditd serve` signing in through the fake OIDC provider; oidc.asked, what it was asked. */
  oidc: { dashboard: string; asked: () => Promise<Asked> };
}

const env = (name: string) => {
  const v = process.env[name];
  if (!v) throw new Error(`${name} is not set: the specs run through playwright.config.ts's global setup (scripts/e2e.sh)`);
  return v;
};
const json = async (url: string) => (await fetch(url)).json();

export const test = base.extend<Fixtures>({
  // eslint-disable-next-line no-empty-pattern -- Playwright reads a fixture's dependencies from its first parameter
  base: async ({}, use) => use(env('E2E_BASE')),
  // eslint-disable-next-line no-empty-pattern
  smtp: async ({}, use) => use({ messages: () => json(env('E2E_SMTP_INBOX')) }),
  // eslint-disable-next-line no-empty-pattern
  oidc: async ({}, use) => use({ dashboard: env('E2E_OIDC_BASE'), asked: () => json(`${env('E2E_ISSUER')}/e2e/asked`) }),
  // An uncaught script error or a Content Security Policy violation in the test's own context fails the test.
  page: async ({ page }, use) => {
    const problems: string[] = [];
    const watch = (p: Page) => {
      p.on('pageerror', (err) => problems.push(`uncaught: ${err.message}`));
      p.on('console', (m) => {
        if (/Content.Security.Policy/i.test(m.text())) problems.push(`CSP: ${m.text()}`);
      });
    };
    watch(page);
    page.context().on('page', watch);
    await use(page);
    expect(problems, 'uncaught script errors and CSP violations').toEqual([]);
  },
});

/** psql runs sql on the run's database (for what no outside service does on demand) and returns what it prints. */
export function psql(sql: string): string {
  return execFileSync('psql', [databaseURL, '-tAqc', sql]).toString().trim();
}

/** api calls the auditd API with a token and returns the envelope's details, failing on any error. */
export async function api(base: string, token: string, method: string, path: string, body?: unknown): Promise<any> {
  const res = await fetch(base + path, {
    method,
    headers: { Authorization: `Bearer ${token}`, ...(body ? { 'Content-Type': 'application/json' } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  const json = await res.json();
  if (!json.success) throw new Error(`${method} ${path}: ${res.status} ${json.code}: ${json.message}`);
  return json.details;
}

/** devToken mints a token through the development sign-in, as the dashboard does. */
export async function devToken(base: string, username: string, roles: string[]): Promise<string> {
  const res = await fetch(`${base}/dev-oidc/token`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ username, roles }),
  });
  const json = await res.json();
  if (!json.success) throw new Error(`dev sign-in of ${username}: ${json.message}`);
  return json.details.access_token;
}

const axeSource = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

/**
 * shot saves a screenshot of the screen as artifacts/name.png and checks it
 * with axe-core against WCAG 2.1 A and AA (labels, names, contrast,
 * structure): a serious or critical violation fails the test. Pages that are
 * not ours (River UI) are only photographed.
 */
export async function shot(page: Page, name: string, { ours = true } = {}) {
  await page.screenshot({ path: join(artifacts, `${name}.png`), fullPage: true });
  if (!ours) return;
  if (!(await page.evaluate(() => 'axe' in window))) await page.evaluate(axeSource);
  const { violations } = await page.evaluate(() =>
    (window as any).axe.run(document, { runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'] } }),
  );
  const bad = violations.filter((v: any) => v.impact === 'serious' || v.impact === 'critical');
  const where = (v: any) =>
    v.nodes
      .slice(0, 3)
      .map((n: any) => n.target.join(' '))
      .join('; ');
  expect(
    bad.map((v: any) => `${v.id}: ${v.help} (${where(v)})`),
    `accessibility of ${name}`,
  ).toEqual([]);
}

/** fitsWidth checks that the page is no wider than the window: nothing to scroll sideways. */
export async function fitsWidth(page: Page, what: string) {
  const { scroll, client } = await page.evaluate(() => ({
    scroll: document.documentElement.scrollWidth,
    client: document.documentElement.clientWidth,
  }));
  expect(scroll, `${what} is wider than the window`).toBeLessThanOrEqual(client);
}

/** signIn uses the development sign-in form of the page it is on. */
export async function signIn(
  page: Page,
  { username, roles = [], name, lifetime }: { username: string; roles?: string[]; name?: string; lifetime?: number },
) {
  await expect(page.getByLabel('Username')).toBeVisible();
  await page.getByLabel('Username').fill(username);
  if (name) await page.getByLabel('Display name (optional)').fill(name);
  for (const role of ['admin', 'supervisor', 'quality', 'operator']) {
    await page.getByRole('checkbox', { name: role, exact: true }).setChecked(roles.includes(role));
  }
  if (lifetime) await page.getByLabel('Token lifetime in seconds').fill(String(lifetime));
  await page.getByRole('button', { name: 'Sign in' }).click();
  await expect(page.getByRole('button', { name: /, account menu$/ })).toBeVisible();
}

/**
 * inSpanish opens url in a new Spanish browser context, signs in there and runs fn with its page: with roles checked
 * besides the form's default (quality), or, exact, with those roles alone. A failure attaches the page's screenshot.
 */
export async function inSpanish(
  browser: Browser,
  url: string,
  { username, roles = [], exact = false }: { username: string; roles?: string[]; exact?: boolean },
  fn: (page: Page) => Promise<void>,
) {
  const es = await browser.newContext({ locale: 'es-ES', viewport: { width: 1280, height: 800 } });
  try {
    const page = await es.newPage();
    await page.goto(url);
    await expect(page.getByLabel('Usuario', { exact: true })).toBeVisible();
    await page.getByLabel('Usuario', { exact: true }).fill(username);
    for (const role of exact ? ['admin', 'supervisor', 'quality', 'operator'] : roles) {
      await page.getByRole('checkbox', { name: role, exact: true }).setChecked(roles.includes(role));
    }
    await page.getByRole('button', { name: 'Iniciar sesión' }).click();
    await fn(page).catch(async (err) => {
      await test.info().attach('FAIL-es', { body: await page.screenshot(), contentType: 'image/png' });
      throw err;
    });
  } finally {
    await es.close();
  }
}

/** openUpload opens the task list's upload form, behind its button. */
export async function openUpload(page: Page) {
  const button = page.getByRole('button', { name: /^(Upload files|Subir archivos)$/ });
  if ((await button.getAttribute('aria-expanded')) !== 'true') await button.click();
}

/** openMoreFilters opens the task list's "More filters". */
export async function openMoreFilters(page: Page) {
  const more = page.locator('details.more-filters');
  if (!(await more.evaluate((d) => (d as HTMLDetailsElement).open))) await more.locator('summary').click();
}

/** openAdminMenu opens the navigation's administration menu. */
export async function openAdminMenu(page: Page) {
  const menu = page.locator('details.nav-menu');
  if (!(await menu.evaluate((d) => (d as HTMLDetailsElement).open))) await menu.locator('summary').click();
}

/** stayWhenAsked follows the link named link and, asked question before leaving, answers to stay. */
export async function stayWhenAsked(page: Page, link: string, question: string) {
  let asked = '';
  page.once('dialog', (d) => {
    asked = d.message();
    void d.dismiss();
  });
  await page.getByRole('link', { name: link }).click();
  await expect.poll(() => asked).toBe(question);
}

/** chat is a chat transcript the rules auditor can judge. */
export const chat = (agent: string) =>
  JSON.stringify([
    { speaker: 'agent', text: `Good morning, thank you for calling, my name is ${agent}. How can I help you?` },
    { speaker: 'customer', text: 'My invoice is wrong this month.' },
    { speaker: 'agent', text: 'I understand, let me check your account. I have corrected the invoice.' },
    { speaker: 'customer', text: 'Thanks.' },
    { speaker: 'agent', text: 'Is there anything else I can help you with? Thank you for calling, goodbye.' },
  ]);

/**
 * rulesCampaign creates, as the supervisor sup, an English campaign of
 * three criteria of weight 10 judged by rules: the greeting, politeness
 * and an offer to call back, each absent with the confidence absence
 * gives it (else the engine's default).
 */
export async function rulesCampaign(base: string, sup: string, name: string, absence: Record<string, number> = {}) {
  const criterion = (id: string, category: string, question: string, rule: object) => ({
    id,
    category,
    question,
    weight: 10,
    critical: false,
    applies_to: 'both',
    rule: id in absence ? { ...rule, absence_confidence: absence[id] } : rule,
  });
  await api(base, sup, 'POST', '/campaigns', {
    name,
    language: 'en',
    criteria: [
      criterion('greeting', 'OPENING', 'Did the agent greet the customer?', { any: ['good morning'] }),
      criterion('polite', 'COMPLIANCE', 'Did the agent avoid insults?', { none: ['idiot'] }),
      criterion('callback', 'CLOSING', 'Did the agent offer to call back?', { any: ['we will call you back'] }),
    ],
  });
}

/** upload uploads body as the file name with the upload's fields, as token, and returns its task's uuid once accepted. */
export async function upload(
  base: string,
  token: string,
  name: string,
  body: string | Uint8Array<ArrayBuffer>,
  fields: Record<string, string> = {},
  type = 'application/json',
): Promise<string> {
  const form = new FormData();
  for (const [k, v] of Object.entries(fields)) form.set(k, v);
  form.append('files', new Blob([body], { type }), name);
  const res = await fetch(`${base}/tasks/upload`, { method: 'POST', headers: { Authorization: `Bearer ${token}` }, body: form });
  expect(res.status, `upload of ${name}`).toBe(202);
  return (await res.json()).details.tasks[0].uuid;
}

/** audited waits until the task uuid is audited, as token. */
export async function audited(base: string, token: string, uuid: string) {
  await expect.poll(async () => (await api(base, token, 'GET', `/tasks/${uuid}`)).status, { timeout: 20_000 }).toBe('audited');
}

/** uploadAudited uploads the chat transcript body as name with the upload's fields, as token, and waits until it is audited; it returns the task's uuid. */
export async function uploadAudited(
  base: string,
  token: string,
  name: string,
  body: string,
  fields: Record<string, string>,
  type = 'application/json',
): Promise<string> {
  const uuid = await upload(base, token, name, body, fields, type);
  await audited(base, token, uuid);
  return uuid;
}

/** confirmPending confirms, as the analyst token, every verdict of the task still pending review. */
export async function confirmPending(base: string, token: string, uuid: string) {
  if (!(await api(base, token, 'GET', `/tasks/${uuid}`)).audit.pending) return;
  await api(base, token, 'POST', `/tasks/${uuid}/pending-verdicts`, { all: true });
  await expect.poll(async () => (await api(base, token, 'GET', `/tasks/${uuid}`)).audit.pending).toBeFalsy();
}

/** drop drops files on the element the locator finds, as a person dragging them from their desktop. */
export async function drop(locator: Locator, files: { name: string; type: string; body: string }[]) {
  const dt = await locator.page().evaluateHandle((fs) => {
    const dt = new DataTransfer();
    for (const f of fs) dt.items.add(new File([f.body], f.name, { type: f.type }));
    return dt;
  }, files);
  await locator.dispatchEvent('dragover', { dataTransfer: dt });
  await locator.dispatchEvent('drop', { dataTransfer: dt });
}

/**
 * stereoCall writes a stereo WAV named name among the artifacts: the agent on the left, the customer on the right
 * answering before the agent is done (overtalk), then 12 s in which nobody speaks (dead air); the agent says words.
 */
export function stereoCall(name: string, words = 'Good morning, my name is Olga. How can I help you today?') {
  const say = (file: string, text: string) => {
    const out = join(artifacts, file);
    execFileSync('espeak-ng', ['-w', out, text]);
    return out;
  };
  const length = (path: string) =>
    Number(execFileSync('ffprobe', ['-v', 'error', '-show_entries', 'format=duration', '-of', 'csv=p=0', path]).toString().trim());
  const agent = say(`${name}-agent.wav`, words);
  const customer = say(`${name}-customer.wav`, 'Hello, I would like to check my last invoice, please.');
  const delay = Math.max(length(agent) - 0.8, 0.5);
  const total = delay + length(customer) + 12;
  const wav = join(artifacts, name);
  // amerge joins channels of one format only.
  const mono = 'aformat=sample_fmts=s16:sample_rates=16000:channel_layouts=mono';
  execFileSync('ffmpeg', [
    '-loglevel',
    'error',
    '-y',
    '-i',
    agent,
    '-i',
    customer,
    '-filter_complex',
    `[0:a]apad=whole_dur=${total},${mono}[l];[1:a]adelay=${Math.round(delay * 1000)}:all=1,apad=whole_dur=${total},${mono}[r];[l][r]amerge=inputs=2[out]`,
    '-map',
    '[out]',
    '-t',
    String(total),
    wav,
  ]);
  rmSync(agent);
  rmSync(customer);
  return wav;
}

/**
 * analysedCall uploads name, a stereo call of operator's with dead air (stereoCall), as analyst with fields, and waits
 * for its channels to be analysed (when it is transcribed).
 */
export async function analysedCall(base: string, name: string, operator: string, analyst: string, fields: Record<string, string> = {}) {
  const wav = stereoCall(name, `Good afternoon, my name is ${operator}. How may I help you?`);
  await api(base, await devToken(base, operator, ['operator']), 'GET', '/users/me');
  const token = await devToken(base, analyst, ['quality']);
  await upload(base, token, name, readFileSync(wav), { language: 'en', operator, ...fields }, 'audio/wav');
  rmSync(wav);
  await expect
    .poll(async () => (await api(base, token, 'GET', `/tasks?operator=${operator}&min_dead_air=1`)).tasks.length, { timeout: 60_000 })
    .toBe(1);
}
