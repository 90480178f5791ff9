import { expect, test, api, devToken, drop, psql, shot, signIn, inSpanish, openUpload, chat, uploadAudited } from './fixtures';

test('a failed task: uploaded again, it offers the retry; its reason shown and retried, in English and Spanish', async ({
  page,
  base,
  browser,
}) => {
  const quality = await devToken(base, 'rita', ['quality']);
  const body = chat('Rita').replace('invoice', 'direct debit');
  const uuid = await uploadAudited(base, quality, 'e2e-retry.json', body, {});
  // The audit failed for good, as it does when the model is down (set in
  // the database: no outside service fails on demand).
  psql(`UPDATE tasks SET status = 'failed', error = 'the language model is down (e2e)' WHERE uuid = '${uuid}'`);

  // The same file uploaded again is the failed task, which says why and leads to its Retry.
  const again = { name: 'e2e-retry.json', mimeType: 'application/json', buffer: Buffer.from(body) };
  await inSpanish(browser, `${base}/app/tasks`, { username: 'rita', roles: ['quality'] }, async (p) => {
    await openUpload(p);
    await p.getByLabel('Elegir archivos').setInputFiles(again);
    const entry = p.getByRole('list', { name: 'Subidas' }).locator('li[data-file="e2e-retry.json"]');
    await expect(entry.getByText('Falló: the language model is down (e2e)')).toBeVisible();
    await shot(p, 'upload-failed-again-es');
    await entry.getByRole('link', { name: 'Reintentar' }).click();
    await expect(p.getByTestId('task-error').getByText('Falló: the language model is down (e2e)')).toBeVisible();
    await expect(p.getByRole('button', { name: 'Reintentar' })).toBeVisible();
    await shot(p, 'task-failed-es');
  });
  await page.goto(`${base}/app/tasks`);
  await signIn(page, { username: 'rita', roles: ['quality'] });
  await openUpload(page);
  await page.getByLabel('Choose files').setInputFiles(again);
  const entry = page.getByRole('list', { name: 'Uploads' }).locator('li[data-file="e2e-retry.json"]');
  await expect(entry.getByText('already uploaded')).toBeVisible();
  await expect(entry.getByText('It failed: the language model is down (e2e)')).toBeVisible();
  await entry.getByRole('link', { name: 'Retry' }).click();
  await expect(page.getByTestId('task-error').getByText('It failed: the language model is down (e2e)')).toBeVisible();
  await expect(page.getByText('the language model is down (e2e)'), 'the reason is shown more than once').toHaveCount(1);
  await shot(page, 'task-failed');
  await page.getByRole('button', { name: 'Retry' }).click();
  await expect(page.getByText('Sent back to the step it failed at; it moves on shortly.')).toBeVisible();
  // Audited again, shown live.
  await expect(page.locator('.facts').getByText('audited', { exact: true })).toBeVisible({ timeout: 20_000 });
  await expect(page.getByTestId('task-error')).toBeHidden();
});

test('the upload form: the agent typed and a file dropped without leaving the field uploads as that agent; in English and Spanish', async ({
  page,
  base,
  browser,
}) => {
  const quality = await devToken(base, 'ulises', ['quality']);
  await page.goto(`${base}/app/tasks`);
  await signIn(page, { username: 'ulises', roles: ['quality'] });
  await openUpload(page);
  // Typed, not left: the focus stays in the agent's field while the file is dropped.
  await page.getByLabel('Agent (optional)').fill('e2e-typed-agent');
  await expect(page.getByLabel('Agent (optional)')).toBeFocused();
  await drop(page.getByTestId('dropzone'), [
    { name: 'e2e-typed-agent.json', type: 'application/json', body: chat('Ulises').replace('invoice', 'roaming charge') },
  ]);
  const entry = page.getByRole('list', { name: 'Uploads' }).locator('li[data-file="e2e-typed-agent.json"]');
  await expect(entry.getByRole('link', { name: 'Open' })).toBeVisible();
  await expect(page.getByLabel('Agent (optional)'), 'the text typed is kept').toHaveValue('e2e-typed-agent');
  await shot(page, 'upload-typed-agent');
  const uuid = (await entry.getByRole('link', { name: 'Open' }).getAttribute('href'))!.split('/').pop();
  expect((await api(base, quality, 'GET', `/tasks/${uuid}`)).operator_id, 'the agent typed').toBe('e2e-typed-agent');

  await inSpanish(browser, `${base}/app/tasks`, { username: 'ulises', roles: ['quality'] }, async (es) => {
    await openUpload(es);
    await es.getByLabel('Agente (opcional)').fill('e2e-agente-tecleado');
    await drop(es.getByTestId('dropzone'), [
      { name: 'e2e-agente-tecleado.json', type: 'application/json', body: chat('Ulises').replace('invoice', 'data bundle') },
    ]);
    const item = es.getByRole('list', { name: 'Subidas' }).locator('li[data-file="e2e-agente-tecleado.json"]');
    await expect(item.getByRole('link', { name: 'Abrir' })).toBeVisible();
    await expect(es.getByLabel('Agente (opcional)'), 'se conserva lo tecleado').toHaveValue('e2e-agente-tecleado');
    await shot(es, 'upload-typed-agent-es');
    const id = (await item.getByRole('link', { name: 'Abrir' }).getAttribute('href'))!.split('/').pop();
    expect((await api(base, quality, 'GET', `/tasks/${id}`)).operator_id, 'el agente tecleado').toBe('e2e-agente-tecleado');
  });
});
