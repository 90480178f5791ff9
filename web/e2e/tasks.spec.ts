import type { Page } from '@playwright/test';
import { readFileSync } from 'node:fs';
import {
  expect,
  test,
  api,
  devToken,
  psql,
  shot,
  signIn,
  inSpanish,
  openUpload,
  openMoreFilters,
  chat,
  upload,
  audited,
  uploadAudited,
  drop,
} from './fixtures';

/** callChats makes a French campaign (its phone numbers kept) and uploads three chats to it with what a platform says of them, as marta. */
async function callChats(base: string, campaign: string) {
  const sup = await devToken(base, 'sofia', ['supervisor']);
  await api(base, sup, 'POST', '/campaigns', { name: campaign, language: 'fr' });
  const analyst = await devToken(base, 'marta', ['quality']);
  // Not waiting for the audits: the filters and facts are there from the upload.
  const send = async (name: string, n: number, fields: Record<string, string>) => {
    const turns = [
      { speaker: 'Agent', text: `Bonjour, Olga à votre service, dossier ${campaign} ${n}.` },
      { speaker: 'Client', text: 'Bonjour, je voudrais vérifier ma facture.' },
    ];
    await upload(base, analyst, name, JSON.stringify(turns), { campaign, language: 'fr', ...fields });
  };
  await send(`${campaign}-inbound.json`, 1, {
    call_id: `${campaign}-7781`,
    queue: 'billing',
    direction: 'inbound',
    caller: '+33 6 12 34 56 78',
    metadata: JSON.stringify({ tier: 'gold', attempt: 2 }),
  });
  await send(`${campaign}-outbound.json`, 2, { queue: 'billing', direction: 'outbound' });
  await send(`${campaign}-sales.json`, 3, { queue: 'sales', direction: 'inbound' });
}

test('tasks: files dropped upload with progress and reach audited live in the list', async ({ page, base }) => {
  await page.goto(base + '/');
  await signIn(page, { username: 'quinn', name: 'Quinn Analyst', roles: ['quality'] });
  await expect(page.getByRole('heading', { name: 'Tasks' })).toBeVisible();
  await expect(page.getByRole('main').getByText('Live')).toBeVisible();
  await openUpload(page);
  // An agent of its own: the sign-in test's agent, olga, has no tasks.
  await page.getByLabel('Agent (optional)').fill('oriol');
  await page.getByLabel('Agent (optional)').blur(); // the picker keeps what was typed on blur; a drop does not blur it
  const uploads = page.getByRole('list', { name: 'Uploads' });
  await drop(page.getByTestId('dropzone'), [
    { name: 'e2e-chat-1.json', type: 'application/json', body: chat('Olga') },
    { name: 'e2e-notes.pdf', type: 'application/pdf', body: '%PDF-1.4 not a chat' },
  ]);
  // The refused file says why; the chat goes on through the pipeline, live.
  await expect(uploads.locator('li[data-file="e2e-notes.pdf"]').getByRole('alert')).toBeVisible();
  const row = page.locator('tbody tr').filter({ hasText: 'e2e-chat-1.json' });
  await expect(row).toBeVisible();
  await expect(row).toHaveAttribute('data-status', 'audited', { timeout: 20_000 });
  // Decided (pass or fail) or, with verdicts still to review, pending review: never a 0 or a fail for those.
  await expect(row.getByText(/^(pass|fail)$/).or(row.getByText(/^pending review \(\d+\)$/))).toBeVisible();
  await expect(uploads.locator('li[data-file="e2e-chat-1.json"]').getByText('audited')).toBeVisible();
  await shot(page, 'tasks-upload');

  // Filters and search live in the URL and reach the API.
  await page.getByLabel('File name contains').fill('CHAT-1');
  await page.getByLabel('Status').selectOption('audited');
  await page.getByRole('button', { name: 'Apply filters' }).click();
  await expect.poll(() => new URL(page.url()).search).toBe('?status=audited&file_name=CHAT-1');
  await expect(row).toBeVisible();
  await page.getByLabel('File name contains').fill('no-such-file');
  await page.getByRole('button', { name: 'Apply filters' }).click();
  await expect(page.getByText('No tasks match these filters.')).toBeVisible();
  await page.getByRole('button', { name: 'Clear filters' }).click();
  await expect(row).toBeVisible();
  await page.getByRole('button', { name: 'Score' }).click();
  await expect.poll(() => new URL(page.url()).search).toBe('?sort=score');
  await expect(row).toBeVisible();
  await shot(page, 'tasks');

  // The agent, the result, the days (the browser's) and the score range.
  const today = new Date();
  const day = `${today.getFullYear()}-${String(today.getMonth() + 1).padStart(2, '0')}-${String(today.getDate()).padStart(2, '0')}`;
  await page.getByLabel('Agent', { exact: true }).fill('oriol');
  await page.getByLabel('Result').selectOption('false');
  await page.getByLabel('From (day)').fill(day);
  await page.getByLabel('To (day, included)').fill(day);
  await page.getByRole('button', { name: 'Apply filters' }).click();
  await expect.poll(() => new URL(page.url()).search).toContain(`operator=oriol&passed=false&from=${day}&to=${day}`);
  await expect(row).toBeVisible();
  await shot(page, 'tasks-filters');
  await openMoreFilters(page);
  await page.getByLabel('Score from').fill('90');
  await page.getByRole('button', { name: 'Apply filters' }).click();
  await expect(page.getByText('No tasks match these filters.')).toBeVisible();
  await page.getByRole('button', { name: 'Clear filters' }).click();
  await expect(row).toBeVisible();

  // The list as filtered exports to a spreadsheet: CSV with a byte order
  // mark, a row per task, a column per criterion.
  await page.getByLabel('File name contains').fill('chat-1');
  await page.getByRole('button', { name: 'Apply filters' }).click();
  await expect.poll(() => new URL(page.url()).search).toContain('file_name=chat-1');
  const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Export CSV' }).click()]);
  expect(download.suggestedFilename()).toMatch(/^tasks-\d{8}-\d{6}\.csv$/);
  const csv = readFileSync(await download.path(), 'utf8');
  expect(csv.startsWith('\ufeffuuid,file_name,'), csv.slice(0, 40)).toBe(true);
  const lines = csv.trim().split('\n');
  expect(lines.length).toBe(2);
  expect(lines[0]).toContain(',no_forbidden_phrases,');
  expect(lines[1]).toContain(',e2e-chat-1.json,');
  await expect(page.getByText(/^Exported tasks-/)).toBeVisible();
  await shot(page, 'tasks-export');

  // A task someone else uploads waits above the list, which stays in place.
  await page.getByRole('button', { name: 'Clear filters' }).click();
  await expect.poll(() => new URL(page.url()).search).toBe('');
  await expect(page.locator('.table-wrap[aria-busy="false"]')).toBeVisible(); // the whole list, not the filtered one still shown
  await expect(row).toBeVisible();
  const shown = await page.locator('tbody tr').count();
  const other = await devToken(base, 'uma', ['quality']);
  await upload(base, other, 'e2e-chat-4.json', chat('Ursula'));
  const fresh = page.getByRole('button', { name: 'New tasks: 1 (show them)' });
  await expect(fresh).toBeVisible();
  await expect(page.locator('tbody tr'), 'the rows stay').toHaveCount(shown);
  await shot(page, 'tasks-new');
  await fresh.click();
  await expect(page.locator('tbody tr').filter({ hasText: 'e2e-chat-4.json' })).toBeVisible();
  await expect(page.locator('tbody tr'), 'shown on asking').toHaveCount(shown + 1);

  // The agent sees the task as theirs.
  const oriol = await devToken(base, 'oriol', ['operator']);
  const mine = await api(base, oriol, 'GET', '/tasks?file_name=e2e-chat-1');
  expect(mine.tasks.length).toBe(1);
});

test('bulk: a filtered list re-audited as a whole, its progress live, in English and Spanish', async ({ page, base, browser }) => {
  const bea = await devToken(base, 'bea', ['quality']);
  const ids: string[] = [];
  for (let i = 1; i <= 5; i++) ids.push(await upload(base, bea, `e2e-bulk-${i}.json`, chat(`Bea ${i}`)));
  for (const id of ids) await audited(base, bea, id);
  // One failed meanwhile (set in the database, as in the test of a failed
  // task): the re-audit skips it, saying why.
  psql(`UPDATE tasks SET status = 'failed', error = 'down (e2e)' WHERE uuid = '${ids[4]}'`);

  /** reaudit selects every task the list's filter matches, runs the re-audit and waits for its end, live. */
  const reaudit = async (p: Page, words: Record<string, string>, suffix: string) => {
    const rows = p.locator('tbody tr');
    await expect(rows).toHaveCount(5);
    await rows.first().getByRole('checkbox').check();
    await expect(p.getByTestId('bulk-selected').getByText(words.one)).toBeVisible();
    await p.getByRole('button', { name: words.selectAll }).click();
    await expect(p.getByTestId('bulk-selected').getByText(words.all)).toBeVisible();
    await p.getByLabel(words.action, { exact: true }).selectOption('reaudit');
    await shot(p, `bulk-selected${suffix}`);
    await p.getByRole('button', { name: words.run }).click();
    const dialog = p.getByRole('dialog', { name: words.confirmTitle });
    await expect(dialog.getByText(words.irreversible)).toBeVisible();
    await expect(dialog.getByText('(file_name=e2e-bulk)', { exact: false })).toBeVisible();
    await shot(p, `bulk-confirm${suffix}`);
    await dialog.getByRole('button', { name: words.confirm }).click();
    // The panel follows the action through its events alone.
    const panel = p.getByTestId('bulk-progress');
    await expect(panel.getByRole('heading', { name: words.panel })).toBeVisible();
    await expect(panel).toHaveAttribute('data-status', 'done', { timeout: 20_000 });
    await expect(panel.getByText(words.finished)).toBeVisible();
    for (const [k, v] of Object.entries({ matched: '5', done: '5', succeeded: '4', skipped: '1', failed: '0' })) {
      await expect(panel.getByTestId(`bulk-${k}`)).toHaveText(v);
    }
    await expect(panel.getByRole('link', { name: 'e2e-bulk-5.json' })).toBeVisible();
    // Why, in the reader's language.
    await expect(panel.getByText(words.failedReason)).toBeVisible();
    await expect(p.getByTestId('bulk-selected'), 'the selection is cleared').toHaveCount(0);
    await shot(p, `bulk-progress${suffix}`);
  };

  await page.goto(`${base}/app/tasks?file_name=e2e-bulk`);
  await signIn(page, { username: 'bea', roles: ['quality'] });
  await expect(page.getByRole('heading', { name: 'Tasks' })).toBeVisible();
  await reaudit(
    page,
    {
      one: '1 selected',
      selectAll: 'Select all 5 matching the filters',
      all: 'All 5 tasks matching the filters are selected',
      action: 'Action',
      run: 'Run…',
      confirmTitle: 'Re-audit: are you sure?',
      irreversible: 'This cannot be undone.',
      confirm: 'Re-audit 5 tasks',
      panel: 'Bulk action: Re-audit',
      finished: 'Finished: 5 tasks.',
      failedReason: 'it has failed: retry it instead',
    },
    '',
  );
  // A new engine revision of each audit, against the current scorecard.
  for (const id of ids.slice(0, 4)) {
    const { audit } = await api(base, bea, 'GET', `/tasks/${id}`);
    expect({ revision: audit.revision, source: audit.source }, id).toEqual({ revision: 2, source: 'engine' });
  }
  // The requester is notified at the end; the notification leads back to the action.
  await page.goto(`${base}/app/notifications`);
  const note = page
    .getByRole('main')
    .locator('li.notification')
    .filter({ hasText: 'Bulk action “re-audit” on 5 tasks finished: 4 succeeded, 1 skipped, 0 failed.' });
  await expect(note).toBeVisible();
  await note.getByRole('link', { name: 'Open' }).click();
  await expect.poll(() => new URL(page.url()).pathname + new URL(page.url()).search).toMatch(/^\/app\/tasks\?bulk=[0-9a-f-]{36}$/);
  await expect(page.getByTestId('bulk-progress').getByText('Finished: 5 tasks.')).toBeVisible();
  await inSpanish(browser, `${base}/app/tasks?file_name=e2e-bulk`, { username: 'bea', roles: ['quality'] }, async (p) => {
    await expect(p.getByRole('heading', { name: 'Tareas' })).toBeVisible();
    await reaudit(
      p,
      {
        one: '1 seleccionada',
        selectAll: 'Seleccionar las 5 que cumplen los filtros',
        all: 'Seleccionadas las 5 tareas que cumplen los filtros',
        action: 'Acción',
        run: 'Ejecutar…',
        confirmTitle: 'Reauditar: ¿seguro?',
        irreversible: 'No se puede deshacer.',
        confirm: 'Reauditar 5 tareas',
        panel: 'Acción masiva: Reauditar',
        finished: 'Terminada: 5 tareas.',
        failedReason: 'ha fallado: reinténtala en su lugar',
      },
      '-es',
    );
  });
});

test('bulk: an analyst’s tasks unassigned, then found among the recent bulk actions with their results, in English and Spanish', async ({
  page,
  base,
  browser,
}) => {
  const sol = await devToken(base, 'sol', ['supervisor']);
  await api(base, await devToken(base, 'nia', ['quality']), 'GET', '/users/me');
  const ids: string[] = [];
  for (let i = 1; i <= 3; i++) ids.push(await uploadAudited(base, sol, `e2e-unassign-${i}.json`, chat(`Sol ${i}`), {}));
  /** assign gives nia the first two tasks, as a bulk assign through the API. */
  const assign = async () => {
    const a = await api(base, sol, 'POST', '/bulk-actions', { action: 'assign', task_uuids: ids.slice(0, 2), assignee: 'nia' });
    await expect.poll(async () => (await api(base, sol, 'GET', `/bulk-actions/${a.id}`)).status).toBe('done');
  };

  /** unassign unassigns every task the list's filter matches, then opens it from the recent bulk actions. */
  const unassign = async (p: Page, words: Record<string, string>, suffix: string) => {
    const rows = p.locator('tbody tr');
    await expect(rows).toHaveCount(3);
    await rows.first().getByRole('checkbox').check();
    await p.getByRole('button', { name: words.selectAll }).click();
    await p.getByLabel(words.action, { exact: true }).selectOption('unassign');
    await p.getByRole('button', { name: words.run }).click();
    const dialog = p.getByRole('dialog', { name: words.confirmTitle });
    await expect(dialog.getByText(words.explain)).toBeVisible();
    await shot(p, `bulk-unassign-confirm${suffix}`);
    await dialog.getByRole('button', { name: words.confirm }).click();
    const panel = p.getByTestId('bulk-progress');
    await expect(panel).toHaveAttribute('data-status', 'done', { timeout: 20_000 });
    for (const [k, v] of Object.entries({ matched: '3', succeeded: '2', skipped: '1', failed: '0' })) {
      await expect(panel.getByTestId(`bulk-${k}`)).toHaveText(v);
    }
    await expect(panel.getByText(words.notAssigned)).toBeVisible();
    await shot(p, `bulk-unassign-progress${suffix}`);

    // The recent bulk actions, newest first: this one, then the assign.
    await p.getByRole('link', { name: words.recent }).click();
    await expect(p.getByRole('heading', { name: words.recent, level: 1 })).toBeVisible();
    const listed = p.getByTestId('bulk-actions').locator('tbody tr');
    await expect(listed.first(), 'the newest is not the unassign').toHaveAttribute('data-action', 'unassign');
    await expect(listed.first(), 'the unassign is not done').toHaveAttribute('data-status', 'done');
    await expect(listed.first().getByText(words.statusDone)).toBeVisible();
    await expect(listed.nth(1).getByText(words.assign, { exact: true })).toBeVisible();
    // Filtered by action, in the URL.
    await p.getByLabel(words.action, { exact: true }).selectOption('unassign');
    await p.getByRole('button', { name: words.apply }).click();
    await expect.poll(() => new URL(p.url()).search).toBe('?action=unassign');
    await expect(async () => {
      const kinds = await listed.evaluateAll((rows) => rows.map((r) => r.getAttribute('data-action')));
      expect(new Set(kinds), 'the actions listed').toEqual(new Set(['unassign']));
    }).toPass();
    await shot(p, `bulk-list${suffix}`);

    // Opened: its result on each task, said in the reader's language.
    await listed.first().getByRole('link').click();
    await expect(p.getByRole('heading', { name: words.panel, level: 1 })).toBeVisible();
    const results = p.getByTestId('bulk-results').locator('tbody tr');
    await expect(results).toHaveCount(3);
    for (const id of ids.slice(0, 2)) await expect(p.locator(`tr[data-uuid="${id}"]`).getByText(words.unassigned)).toBeVisible();
    await expect(p.locator(`tr[data-uuid="${ids[2]}"]`).getByText(words.notAssigned)).toBeVisible();
    await p.getByLabel(words.outcome, { exact: true }).selectOption('skipped');
    await expect(results).toHaveCount(1);
    await shot(p, `bulk-results${suffix}`);
  };

  await assign();
  await page.goto(`${base}/app/tasks?file_name=e2e-unassign`);
  await signIn(page, { username: 'sol', roles: ['supervisor'] });
  await unassign(
    page,
    {
      selectAll: 'Select all 3 matching the filters',
      action: 'Action',
      run: 'Run…',
      confirmTitle: 'Unassign: are you sure?',
      explain: 'Each task is left assigned to no one, without a due date; tasks assigned to no one are skipped.',
      confirm: 'Unassign 3 tasks',
      notAssigned: 'it is not assigned to anyone',
      unassigned: 'no longer assigned to nia',
      recent: 'Recent bulk actions',
      statusDone: 'done',
      assign: 'Assign',
      apply: 'Apply filters',
      panel: 'Bulk action: Unassign',
      outcome: 'Outcome',
    },
    '',
  );
  for (const id of ids) expect((await api(base, sol, 'GET', `/tasks/${id}`)).assignee_id, `${id} still assigned`).toBeFalsy();

  await assign();
  await inSpanish(browser, `${base}/app/tasks?file_name=e2e-unassign`, { username: 'sol', roles: ['supervisor'] }, async (p) => {
    await expect(p.getByRole('heading', { name: 'Tareas' })).toBeVisible();
    await unassign(
      p,
      {
        selectAll: 'Seleccionar las 3 que cumplen los filtros',
        action: 'Acción',
        run: 'Ejecutar…',
        confirmTitle: 'Desasignar: ¿seguro?',
        explain: 'Cada tarea queda sin asignar y sin fecha límite; las que no están asignadas a nadie se omiten.',
        confirm: 'Desasignar 3 tareas',
        notAssigned: 'no está asignada a nadie',
        unassigned: 'ya no está asignada a nia',
        recent: 'Acciones masivas recientes',
        statusDone: 'terminada',
        assign: 'Asignar',
        apply: 'Aplicar filtros',
        panel: 'Acción masiva: Desasignar',
        outcome: 'Resultado',
      },
      '-es',
    );
  });
});

test('saved view: filters and sort saved under a name, changed, applied again; renamed and deleted; in English and Spanish', async ({
  page,
  base,
  browser,
}) => {
  const quality = await devToken(base, 'e2e-views-up', ['quality']);
  for (const name of ['e2e-view-a.json', 'e2e-view-b.json']) await upload(base, quality, name, chat(name));
  const rowA = (p: Page) => p.locator('tbody tr').filter({ hasText: 'e2e-view-a.json' });
  const rowB = (p: Page) => p.locator('tbody tr').filter({ hasText: 'e2e-view-b.json' });

  await page.goto(base + '/app/tasks');
  await signIn(page, { username: 'sara', name: 'Sara Analyst', roles: ['quality'] });
  const views = page.getByRole('region', { name: 'Saved views' });
  await expect(views.getByText('No saved views yet')).toBeVisible();
  // The filters and the sort of a list worth keeping.
  await page.getByLabel('File name contains').fill('e2e-view-a');
  await page.getByRole('button', { name: 'Apply filters' }).click();
  await page.getByRole('button', { name: 'Score' }).click();
  await expect.poll(() => new URL(page.url()).search).toBe('?file_name=e2e-view-a&sort=score');
  await expect(rowA(page)).toBeVisible();
  await expect(rowB(page)).toBeHidden();

  // Saved under a name; the API's refusals stay in the dialog.
  await views.getByRole('button', { name: 'Save these filters…' }).click();
  const dialog = page.getByRole('dialog', { name: 'Save the filters as a view' });
  await expect(dialog.getByText('Filters and order saved: file_name=e2e-view-a&sort=score')).toBeVisible();
  await dialog.getByLabel('Name').fill('   ');
  await dialog.getByRole('button', { name: 'Save view' }).click();
  await expect(dialog.getByRole('alert').getByText('The name must be 1 to 80 characters, without tabs or line breaks.')).toBeVisible();
  await expect(dialog.getByRole('alert').getByText("a view's name cannot be blank")).toBeVisible();
  await shot(page, 'saved-views-invalid');
  await dialog.getByLabel('Name').fill('Chats of A');
  await dialog.getByRole('button', { name: 'Save view' }).click();
  await expect(dialog).toBeHidden();
  await expect(page.getByText('Saved the view “Chats of A”.')).toBeVisible();
  const link = views.getByRole('link', { name: 'Chats of A' });
  await expect(link).toBeVisible();
  await expect(link, 'the view shown now is not marked').toHaveAttribute('aria-current', 'true');
  // The same name in another case is taken: said in the dialog.
  await views.getByRole('button', { name: 'Save these filters…' }).click();
  await dialog.getByLabel('Name').fill('CHATS OF A');
  await dialog.getByRole('button', { name: 'Save view' }).click();
  await expect(dialog.getByRole('alert').getByText('You already have a view called “CHATS OF A”: choose another name.')).toBeVisible();
  await expect(dialog.getByRole('alert').getByText('you have a saved view called "CHATS OF A" already; choose another name')).toBeVisible();
  await shot(page, 'saved-views-taken');
  await dialog.getByRole('button', { name: 'Cancel' }).click();
  await expect(dialog).toBeHidden();

  // Other filters, then the view again: its list, its filters in the form and the URL.
  await page.getByRole('button', { name: 'Clear filters' }).click();
  await page.getByLabel('File name contains').fill('e2e-view-b');
  await page.getByRole('button', { name: 'Apply filters' }).click();
  await expect(rowB(page)).toBeVisible();
  await expect(rowA(page)).toBeHidden();
  await expect(link, 'a view is marked as shown with other filters').not.toHaveAttribute('aria-current');
  await link.click();
  await expect.poll(() => new URL(page.url()).search).toBe('?file_name=e2e-view-a&sort=score');
  await expect(rowA(page)).toBeVisible();
  await expect(rowB(page)).toBeHidden();
  await expect(page.getByLabel('File name contains'), 'the filter form').toHaveValue('e2e-view-a');
  await expect(page.getByRole('columnheader', { name: 'Score' }).and(page.locator('[aria-sort="descending"]'))).toBeVisible();
  await expect(link, 'not marked once applied').toHaveAttribute('aria-current', 'true');
  await shot(page, 'saved-views');

  // Renamed, then deleted after asking.
  await views.getByRole('button', { name: 'Rename the view Chats of A' }).click();
  const renaming = page.getByRole('dialog', { name: 'Rename the view “Chats of A”' });
  await renaming.getByLabel('Name').fill('Agent A, by score');
  await renaming.getByRole('button', { name: 'Rename' }).click();
  await expect(views.getByRole('link', { name: 'Agent A, by score' })).toBeVisible();
  await views.getByRole('button', { name: 'Delete the view Agent A, by score' }).click();
  const confirm = page.getByRole('dialog', { name: 'Delete the view “Agent A, by score”?' });
  await expect(confirm).toBeVisible();
  await shot(page, 'saved-views-delete');
  await confirm.getByRole('button', { name: 'Delete the view' }).click();
  await expect(page.getByText('Deleted the view “Agent A, by score”.')).toBeVisible();
  await expect(views.getByText('No saved views yet')).toBeVisible();
  const sara = await devToken(base, 'sara', ['quality']);
  expect((await api(base, sara, 'GET', '/views')).items.length, 'the view is still in the API').toBe(0);

  // In Spanish, another analyst's views, saved and applied the same way.
  await api(base, sara, 'POST', '/views', { name: 'De Sara', query: 'kind=call' });
  await inSpanish(browser, base + '/app/tasks', { username: 'sofia', roles: ['quality'] }, async (p) => {
    const vistas = p.getByRole('region', { name: 'Vistas guardadas' });
    await expect(vistas.getByText('Aún no hay vistas guardadas')).toBeVisible();
    await p.getByLabel('El nombre del archivo contiene').fill('e2e-view-b');
    await p.getByRole('button', { name: 'Aplicar filtros' }).click();
    await expect(rowB(p)).toBeVisible();
    await expect(rowA(p)).toBeHidden();
    await vistas.getByRole('button', { name: 'Guardar estos filtros…' }).click();
    const dlg = p.getByRole('dialog', { name: 'Guardar los filtros como vista' });
    await dlg.getByLabel('Nombre').fill('Chats de B');
    await dlg.getByRole('button', { name: 'Guardar vista' }).click();
    await expect(p.getByText('Vista «Chats de B» guardada.')).toBeVisible();
    await vistas.getByRole('button', { name: 'Guardar estos filtros…' }).click();
    await dlg.getByLabel('Nombre').fill('chats de b');
    await dlg.getByRole('button', { name: 'Guardar vista' }).click();
    await expect(dlg.getByRole('alert').getByText('Ya tienes una vista llamada «chats de b»: elige otro nombre.')).toBeVisible();
    await shot(p, 'saved-views-taken-es');
    await dlg.getByRole('button', { name: 'Cancelar' }).click();
    await p.getByLabel('El nombre del archivo contiene').fill('e2e-view-a');
    await p.getByRole('button', { name: 'Aplicar filtros' }).click();
    await expect(rowA(p)).toBeVisible();
    await expect(rowB(p)).toBeHidden();
    await vistas.getByRole('link', { name: 'Chats de B' }).click();
    await expect.poll(() => new URL(p.url()).search).toBe('?file_name=e2e-view-b');
    await expect(rowB(p)).toBeVisible();
    await expect(rowA(p)).toBeHidden();
    await expect(vistas.getByRole('link'), 'another user’s view is listed').toHaveCount(1);
    await shot(p, 'saved-views-es');
  });
});

test('search: the words said found in every chat, the passages marked, in English and Spanish', async ({ page, browser, base }) => {
  const quality = await devToken(base, 'sara', ['quality']);
  await uploadAudited(
    base,
    quality,
    'e2e-search-1.txt',
    'Agente: Buenos días, le atiende Sara.\nCliente: Tengo la tarjeta bloqueada desde ayer.\nAgente: Lo siento. Le tramito el reembolso de la comisión y la desbloqueo ahora.\nAgente: Que tenga buen día.\n',
    {},
    'text/plain',
  );
  await uploadAudited(
    base,
    quality,
    'e2e-search-2.txt',
    'Agente: Buenas tardes, soy Sara.\nCliente: Quería cambiar de tarifa.\nAgente: Hecho, ya tiene la nueva tarifa.\n',
    {},
    'text/plain',
  );

  await page.goto(base + '/app/tasks');
  await signIn(page, { username: 'sara', roles: ['quality'] });
  await page.getByLabel('Words said or written').fill('"tarjeta bloqueada" reembolsos');
  await page.getByRole('button', { name: 'Apply filters' }).click();
  await expect.poll(() => new URL(page.url()).searchParams.get('q')).toBe('"tarjeta bloqueada" reembolsos');
  const rows = page.locator('tbody tr');
  const found = rows.filter({ hasText: 'e2e-search-1.txt' });
  await expect(found.getByTestId('snippet')).toBeVisible();
  const marked = await found.locator('mark').allTextContents();
  expect(marked).toEqual(expect.arrayContaining(['tarjeta', 'bloqueada', 'reembolso']));
  await expect(rows).toHaveCount(1);
  await shot(page, 'tasks-search');

  // A search the service cannot run says why.
  await page.getByLabel('Words said or written').fill('"tarjeta');
  await page.getByRole('button', { name: 'Apply filters' }).click();
  await expect(page.getByText(/quotation mark that opens a phrase/).first()).toBeVisible();

  await inSpanish(
    browser,
    base + '/app/tasks?q=' + encodeURIComponent('tarifa OR desbloqueo'),
    { username: 'sara', roles: ['quality'] },
    async (es) => {
      await expect(es.getByLabel('Palabras dichas o escritas')).toBeVisible();
      const hits = es.locator('tbody tr');
      await expect(hits.filter({ hasText: 'e2e-search-2.txt' }).locator('mark', { hasText: 'tarifa' }).first()).toBeVisible();
      await expect(hits.filter({ hasText: 'e2e-search-1.txt' }).locator('mark', { hasText: 'desbloqueo' })).toBeVisible();
      await shot(es, 'tasks-search-es');
    },
  );
});

test("call metadata: the list filtered by direction and queue, the call's facts on its page", async ({ page, base }) => {
  await callChats(base, 'Ventes');
  await page.setViewportSize({ width: 1440, height: 900 });
  await page.goto(base + '/app/tasks');
  await signIn(page, { username: 'marta', roles: ['quality'] });
  await openMoreFilters(page);
  await page.getByLabel('Direction').selectOption('inbound');
  await page.locator('#tasks-queue').fill('billing');
  await page.locator('#tasks-campaign').fill('Ventes');
  await page.getByRole('button', { name: 'Apply filters' }).click();
  await expect(page.locator('tbody tr')).toHaveCount(1);
  await expect(page.locator('tbody tr').filter({ hasText: 'Ventes-inbound.json' })).toBeVisible();
  expect(page.url()).toContain('direction=inbound');
  expect(page.url()).toContain('queue=billing');
  await page.getByRole('link', { name: 'Ventes-inbound.json' }).click();
  await expect(page.getByTestId('task-call-id'), 'no call id').toHaveText('Ventes-7781');
  await expect(page.getByTestId('task-queue'), 'no queue').toHaveText('billing');
  await expect(page.getByTestId('task-direction'), 'no direction').toHaveText('Inbound');
  await expect(page.getByTestId('task-caller'), 'the caller is not its digits').toHaveText('+33612345678');
  await expect(page.getByTestId('task-metadata'), 'no metadata').toContainText('tier: gold');
  await shot(page, 'task-call-metadata');
});

test("call metadata in Spanish: the filters read from the URL, the call's facts named", async ({ browser, base }) => {
  await callChats(base, 'Ventas');
  const url = `${base}/app/tasks?campaign=Ventas&direction=inbound&queue=billing`;
  await inSpanish(browser, url, { username: 'marta', roles: ['quality'] }, async (p) => {
    await p.setViewportSize({ width: 1440, height: 900 });
    await expect(p.locator('tbody tr').filter({ hasText: 'Ventas-inbound.json' })).toBeVisible();
    await expect(p.locator('tbody tr'), 'más de una tarea').toHaveCount(1);
    await expect(p.locator('#tasks-direction'), 'el filtro de sentido no se lee de la URL').toHaveValue('inbound');
    await p.getByRole('link', { name: 'Ventas-inbound.json' }).click();
    await expect(p.getByTestId('task-direction'), 'el sentido no está en español').toHaveText('Entrante');
    await expect(p.getByText('Id. de la llamada').first()).toBeVisible();
    await expect(p.getByText('Llamante').first()).toBeVisible();
    await shot(p, 'task-call-metadata-es');
  });
});
