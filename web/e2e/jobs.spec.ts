import { expect, test, psql, shot, signIn, inSpanish, openAdminMenu } from './fixtures';

test('admin jobs: the canary job is listed, filtered and retried; states in Spanish', async ({ page, base, browser }) => {
  await page.goto(base + '/');
  await signIn(page, { username: 'root', name: 'Rosa Admin', roles: ['admin'] });
  await openAdminMenu(page);
  await page.getByRole('link', { name: 'Background jobs' }).click();
  await expect(page.getByRole('heading', { name: 'Background jobs' })).toBeVisible();
  await page.getByRole('button', { name: 'Run canary job' }).click();
  const ok = page.getByText(/^Canary job #(\d+) completed in [\d.]+ ms/);
  await expect(ok).toBeVisible();
  const id = (await ok.textContent())!.match(/#(\d+)/)![1];
  const row = page.locator(`tr[data-kind="canary"]`).filter({ has: page.getByRole('cell', { name: id, exact: true }) });
  await expect(row).toBeVisible();
  await expect(row.getByText('completed')).toBeVisible();
  await shot(page, 'jobs');

  // Filters live in the URL.
  await page.getByRole('checkbox', { name: 'completed' }).check();
  await page.getByLabel('Kinds').fill('canary');
  await page.getByRole('button', { name: 'Apply filters' }).click();
  await expect.poll(() => new URL(page.url()).search).toBe('?state=completed&kind=canary');
  await expect(row).toBeVisible();
  // The URL changes before the filtered page arrives.
  await expect(async () => {
    const kinds = await page.locator('tbody tr').evaluateAll((rows) => rows.map((r) => r.dataset.kind));
    expect(new Set(kinds), 'the kinds of the rows').toEqual(new Set(['canary']));
  }).toPass();

  await row.getByRole('button', { name: `Retry #${id}` }).click();
  await expect(page.getByText(new RegExp(`^Job #${id} is (available|running|completed)\\.$`))).toBeVisible();
  await row.locator('summary').click();
  await expect(row.getByText('"requested_by": "root"')).toBeVisible();

  // The retried job may still be on its way: the Spanish screen runs a canary of its own.
  await inSpanish(browser, `${base}/app/admin/jobs?kind=canary`, { username: 'root', roles: ['admin'] }, async (p) => {
    await expect(p.getByRole('checkbox', { name: 'completado' })).toBeVisible();
    await expect(p.getByRole('checkbox', { name: 'por reintentar' })).toBeVisible();
    await p.getByRole('button', { name: 'Lanzar trabajo canario' }).click();
    const done = p.getByText(/^El trabajo canario #(\d+) /);
    await expect(done).toBeVisible();
    const own = (await done.textContent())!.match(/#(\d+)/)![1];
    const mine = p.locator('tr[data-kind="canary"]').filter({ has: p.getByRole('cell', { name: own, exact: true }) });
    await expect(mine.getByText('completado', { exact: true })).toBeVisible();
    await shot(p, 'jobs-es');
  });
});

test('River UI: opened from Background jobs, a failed job retried there completes', async ({ page, base }) => {
  await page.goto(base + '/');
  await signIn(page, { username: 'root', roles: ['admin'] });
  await openAdminMenu(page);
  await page.getByRole('link', { name: 'Background jobs' }).click();
  await page.getByRole('button', { name: 'Run canary job' }).click();
  const ok = page.getByText(/^Canary job #(\d+) completed in [\d.]+ ms/);
  await expect(ok).toBeVisible();
  const id = (await ok.textContent())!.match(/#(\d+)/)![1];
  // The job failed for good, as one does when what it calls is down (set
  // in River's own table: no outside service fails on demand).
  const failure = JSON.stringify({ at: new Date().toISOString(), attempt: 1, error: 'the mail server is down (e2e)', trace: '' });
  psql(`UPDATE river_job SET state = 'discarded', finalized_at = now(), errors = ARRAY['${failure}'::jsonb] WHERE id = ${id}`);

  await page.getByRole('button', { name: 'Open River UI' }).click();
  await expect.poll(() => new URL(page.url()).pathname).toMatch(/^\/riverui\//);
  await page.goto(base + `/riverui/jobs/${id}`);
  await expect(page.getByText('the mail server is down (e2e)').first()).toBeVisible();
  await shot(page, 'riverui-failed', { ours: false });
  await page.getByRole('button', { name: 'Retry', exact: true }).click();
  await expect.poll(() => psql(`SELECT state FROM river_job WHERE id = ${id}`)).toBe('completed');
  await page.reload();
  await expect(page.getByText(/completed/i).first()).toBeVisible();
  await shot(page, 'riverui-completed', { ours: false });

  // Signed out, the session is over: River UI sends the browser to sign
  // in, and then back to the page it asked for.
  await page.goto(base + '/app/profile');
  await page.getByRole('button', { name: /, account menu$/ }).click();
  await page.getByRole('button', { name: 'Sign out' }).click();
  await expect(page.getByRole('heading', { name: 'Sign in to auditd' })).toBeVisible();
  await page.goto(base + `/riverui/jobs/${id}`);
  await expect(page.getByRole('heading', { name: 'Sign in to auditd' })).toBeVisible();
  await signIn(page, { username: 'root', roles: ['admin'] });
  await expect.poll(() => new URL(page.url()).pathname).toBe(`/riverui/jobs/${id}`);
  await expect(page.getByText(/completed/i).first()).toBeVisible();
  // Only a River UI page is returned to.
  await page.goto(base + '/app/admin/jobs?riverui=//evil.example/riverui/');
  await expect(page.getByRole('heading', { name: 'Background jobs' })).toBeVisible();
  expect(new URL(page.url()).host).toBe(new URL(base).host);
});
