import { readFileSync } from 'node:fs';
import { expect, test, api, devToken, shot, signIn, inSpanish, openAdminMenu, chat, uploadAudited } from './fixtures';

test('privacy: retention set, a legal hold placed on the task, the access record filtered and exported, an erasure recorded; in English and Spanish', async ({
  page,
  browser,
  base,
}) => {
  const root = await devToken(base, 'priv-root', ['admin']);
  const held = await uploadAudited(base, root, 'priv-held.json', chat('Ana'), { operator: 'priv-ana', language: 'en' });
  const erased = await uploadAudited(base, root, 'priv-erased.json', chat('Luis'), { operator: 'priv-luis', language: 'en' });

  await page.goto(base + '/');
  await signIn(page, { username: 'priv-root', name: 'Rosa Admin', roles: ['admin'] });

  // Retention in the campaign's settings.
  await openAdminMenu(page);
  await page.getByRole('link', { name: 'Campaigns' }).click();
  await page.getByRole('button', { name: 'Edit default' }).click();
  await page.getByLabel('Recordings (days)').fill('3650');
  await page.getByLabel('Agents may see who opened their interactions').check();
  await page.getByRole('button', { name: 'Save settings' }).click();
  await expect(page.getByText('Settings saved.')).toBeVisible();
  await shot(page, 'campaign-retention');

  // A legal hold placed on the task view.
  await page.goto(`${base}/app/tasks/${held}`);
  const privacy = page.getByTestId('privacy');
  await expect(privacy.getByText('Not on legal hold.')).toBeVisible();
  await privacy.getByLabel('Reason for the hold').fill('Claim 2024-118');
  await privacy.getByRole('button', { name: 'Place on legal hold' }).click();
  await expect(page.getByTestId('legal-hold').getByText(/^On legal hold since .*, by priv-root: Claim 2024-118$/)).toBeVisible();
  await expect(privacy.getByRole('button', { name: 'Lift the hold' })).toBeVisible();
  await privacy.getByRole('button', { name: 'Who opened it' }).click();
  await expect(page.getByTestId('task-readers').getByRole('cell', { name: 'Transcript' }).first()).toBeVisible();
  await shot(page, 'task-legal-hold');

  // The access record: the task just read, filtered, exported.
  await openAdminMenu(page);
  await page.getByRole('link', { name: 'Privacy' }).click();
  await expect(page.getByRole('heading', { name: 'Access record' })).toBeVisible();
  await page.getByLabel('Task', { exact: true }).fill(held);
  await page.getByLabel('What').selectOption('transcript');
  await page.getByRole('button', { name: 'Apply' }).click();
  const records = page.getByTestId('access-records');
  await expect(records.getByRole('cell', { name: 'Transcript' }).first()).toBeVisible();
  await expect(records.getByRole('cell', { name: 'priv-root' }).first()).toBeVisible();
  const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Export CSV' }).click()]);
  expect(download.suggestedFilename()).toMatch(/^access-record-\d{8}-\d{6}\.csv$/);
  const csv = readFileSync(await download.path(), 'utf8');
  expect(csv).toContain(`transcript,${held},`);
  await expect(records, 'the access record shows tasks by uuid, not by file').not.toContainText(held.slice(0, 8));
  await shot(page, 'privacy-access');

  // An erasure of another agent's data, confirmed, then done: each part of the screen its own tab.
  await page.getByRole('link', { name: 'Erasures', exact: true }).click();
  await page.getByLabel('Agent', { exact: true }).fill('priv-luis');
  await page.getByRole('button', { name: 'Erase' }).click();
  await page.getByRole('dialog').getByRole('button', { name: 'Erase' }).click();
  await expect(page.getByText(/^Erasure started \(job #\d+\)\.$/)).toBeVisible();
  await expect(async () => {
    await page.reload();
    await expect(page.getByTestId('erasures').getByRole('cell', { name: 'Done' }).first()).toBeVisible({ timeout: 2_000 });
  }).toPass({ timeout: 20_000 });
  await expect(
    page.getByTestId('erasures').getByText('Tasks: 1 · recordings: 1 · transcripts: 1 · audits: 1 · on hold, untouched: 0'),
  ).toBeVisible();
  await page.getByRole('link', { name: 'Deleted by retention and erasures' }).click();
  await expect(page.getByTestId('deletions').getByRole('cell', { name: 'Erasure' }).first()).toBeVisible();
  const after = await api(base, root, 'GET', `/tasks/${erased}`);
  expect(after.transcript, 'the erased task keeps its transcript').toBeNull();
  expect(after.privacy.transcript_deleted_at, 'the erased task keeps its transcript').toBeTruthy();
  await shot(page, 'privacy');

  await inSpanish(browser, `${base}/app/tasks/${held}`, { username: 'priv-root', roles: ['admin'] }, async (es) => {
    await expect(
      es.getByTestId('legal-hold').getByText(/^Retenida por orden legal desde el .*, por priv-root: Claim 2024-118$/),
    ).toBeVisible();
    await expect(es.getByRole('button', { name: 'Levantar la retención' })).toBeVisible();
    await shot(es, 'task-legal-hold-es');
    await openAdminMenu(es);
    await es.getByRole('link', { name: 'Privacidad' }).click();
    await expect(es.getByRole('heading', { name: 'Registro de accesos' })).toBeVisible();
    await es.getByRole('link', { name: 'Supresiones', exact: true }).click();
    await expect(es.getByTestId('erasures').getByRole('cell', { name: 'Hecha' }).first()).toBeVisible();
    await es.getByRole('link', { name: 'Borrado por conservación y supresiones' }).click();
    await expect(es.getByTestId('deletions').getByRole('cell', { name: 'Supresión' }).first()).toBeVisible();
    await shot(es, 'privacy-es');
  });
  // The agent sees who opened their interaction (the campaign allows it), and cannot lift the hold.
  const agent = await browser.newContext({ locale: 'en-GB', viewport: { width: 1280, height: 800 } });
  try {
    const ap = await agent.newPage();
    await ap.goto(`${base}/app/tasks/${held}`);
    await signIn(ap, { username: 'priv-ana', roles: ['operator'] });
    await ap.getByTestId('privacy').getByRole('button', { name: 'Who opened it' }).click();
    await expect(ap.getByTestId('task-readers').getByRole('cell', { name: 'priv-root' }).first()).toBeVisible();
    await expect(ap.getByRole('button', { name: 'Lift the hold' }), 'an agent may not lift the hold').toHaveCount(0);
    await expect(ap.getByRole('button', { name: 'Validate' }), 'signed in as an operator').toHaveCount(0);
    await shot(ap, 'task-readers-agent');
  } finally {
    await agent.close();
  }
});
