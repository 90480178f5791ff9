import { mkdirSync, readdirSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { expect, test, shot, signIn, inSpanish, openAdminMenu } from './fixtures';
import { artifacts } from './servers';

test('ingest: a directory source added on the screen, polled now, its recordings taken with their sidecars and a damaged one failed with its reason; in English and Spanish', async ({
  page,
  browser,
  base,
}) => {
  const dir = join(artifacts, `ingest-${Date.now()}`);
  mkdirSync(dir, { recursive: true });
  try {
    for (const [i, freq] of [520, 610].entries()) {
      execFileSync('ffmpeg', [
        '-loglevel',
        'error',
        '-y',
        '-f',
        'lavfi',
        '-i',
        `sine=frequency=${freq}:duration=1`,
        '-ar',
        '8000',
        join(dir, `pbx-call${i}.wav`),
      ]);
    }
    writeFileSync(
      join(dir, 'pbx-call0.json'),
      JSON.stringify({ agent: '1001', language: 'en', direction: 'inbound', call_id: 'pbx-0', queue: 'billing' }),
    );
    writeFileSync(join(dir, 'pbx-call1.json'), JSON.stringify({ started_at: 'yesterday' }));
    writeFileSync(join(dir, 'damaged.wav'), 'RIFF....WAVEfmt not audio at all');
    const old = new Date(Date.now() - 3_600_000);
    for (const f of readdirSync(dir)) utimesSync(join(dir, f), old, old);

    await page.goto(base + '/');
    await signIn(page, { username: 'ingest-root', name: 'Irene Admin', roles: ['admin'] });
    await openAdminMenu(page);
    await page.getByRole('link', { name: 'Ingest' }).click();
    await expect(page.getByRole('heading', { name: 'Ingest sources' })).toBeVisible();
    await page.getByRole('button', { name: 'New source' }).click();
    await page.getByLabel('Name', { exact: true }).fill('PBX folder');
    await page.getByLabel('Kind').selectOption('directory');
    await page.getByLabel('Location').fill(dir);
    await page.getByLabel('Agents').fill('1001 = ingest-root');
    await page.getByRole('button', { name: 'Save' }).click();
    await expect(page.getByRole('cell', { name: 'PBX folder' })).toBeVisible();
    await page.getByRole('button', { name: 'Poll now' }).click();
    await expect(page.getByText('A poll of “PBX folder” is queued.')).toBeVisible();
    await expect(async () => {
      await page.getByRole('button', { name: 'Refresh' }).click();
      await expect(page.getByRole('cell', { name: '1 · 1 · 2' })).toBeVisible({ timeout: 1_000 });
    }).toPass({ timeout: 30_000 });
    await page.getByRole('button', { name: 'Objects' }).click();
    await expect(page.getByRole('cell', { name: /pbx-call0\.wav/ }).first()).toBeVisible();
    await expect(page.getByRole('link', { name: 'Open the task' })).toBeVisible();
    await expect(page.getByText(/the field "started_at" must be an RFC 3339 time/)).toBeVisible();
    await expect(page.getByText(/"damaged\.wav" is neither a supported recording/)).toBeVisible();
    await page.getByLabel('Status').selectOption('skipped');
    await expect(page.getByText('sidecar of pbx-call0.wav')).toBeVisible();
    await page.getByLabel('Status').selectOption('');
    await shot(page, 'ingest');

    await inSpanish(browser, `${base}/app/admin/ingest`, { username: 'ingest-root', roles: ['admin'] }, async (es) => {
      await expect(es.getByRole('heading', { name: 'Fuentes de ingesta' })).toBeVisible();
      await es.getByRole('button', { name: 'Objetos' }).click();
      await expect(es.getByRole('cell', { name: 'Tomado' }).first()).toBeVisible();
      await expect(es.getByRole('cell', { name: 'Fallido' }).first()).toBeVisible();
      await shot(es, 'ingest-es');
    });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
