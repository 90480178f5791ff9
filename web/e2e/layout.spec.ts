import type { Page } from '@playwright/test';
import {
  expect,
  test,
  api,
  devToken,
  fitsWidth,
  shot,
  signIn,
  inSpanish,
  openMoreFilters,
  openAdminMenu,
  chat,
  uploadAudited,
} from './fixtures';

/** oneLine checks that the navigation's links and its administration menu share one line. */
async function oneLine(page: Page) {
  const ys = await page
    .locator('.nav > ul > li > .nav-link, .nav-menu > summary')
    .evaluateAll((xs) => xs.map((x) => Math.round(x.getBoundingClientRect().y)));
  expect(ys.length).toBeGreaterThan(8);
  expect(new Set(ys).size, `the navigation takes more than one line: ${ys}`).toBe(1);
}

/** listTop is where the task list's table starts, and where its first row ends, from the top of the page. */
async function listTop(page: Page) {
  const table = (await page.locator('table.table').first().boundingBox())!;
  const row = (await page.locator('tbody tr').first().boundingBox())!;
  return { table: table.y, row: row.y + row.height };
}

test('layout: the list above the fold at 1440×900 and 1280×720, pickers by name, the admin menu on one line, the privacy screen in tabs', async ({
  page,
  base,
}) => {
  const root = await devToken(base, 'lay-root', ['admin']);
  const res = await fetch(`${base}/dev-oidc/token`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ username: 'lay-lola', name: 'Lola Agent', roles: ['operator'] }),
  });
  const lola = (await res.json()).details.access_token;
  const me = await api(base, lola, 'GET', '/users/me');
  await uploadAudited(base, root, 'lay-chat.json', chat('Lola'), { operator: me.id });

  await page.setViewportSize({ width: 1440, height: 900 });
  await page.goto(base + '/app/tasks');
  await signIn(page, { username: 'lay-root', name: 'Root Admin', roles: ['admin'] });
  await expect(page.locator('tbody tr').first()).toBeVisible();
  let top = await listTop(page);
  expect(top.row).toBeLessThan(900);
  await oneLine(page);
  await shot(page, 'layout-tasks-1440');

  // The agent picked by name; the URL keeps the id, the field shows the name again.
  await page.locator('#tasks-operator').fill('lola');
  await page.getByRole('option', { name: /Lola Agent/ }).click();
  await page.getByRole('button', { name: 'Apply filters' }).click();
  await expect.poll(() => new URL(page.url()).searchParams.get('operator')).toBe(me.id);
  await expect(page.locator('#tasks-operator'), 'the agent is not named').toHaveValue('Lola Agent');
  // A failed criterion by its question, among "More filters"; with the keyboard.
  await openMoreFilters(page);
  await page.locator('#tasks-failed').fill('greet the customer');
  await page.locator('#tasks-failed').press('ArrowDown');
  await page.locator('#tasks-failed').press('ArrowDown');
  await page.locator('#tasks-failed').press('Enter');
  await page.getByRole('button', { name: 'Apply filters' }).click();
  await expect.poll(() => new URL(page.url()).searchParams.get('failed_criterion')).toBe('greeting');
  await expect(page.getByText('More filters (1 set)')).toBeVisible();
  await shot(page, 'layout-pickers');

  await page.setViewportSize({ width: 1280, height: 720 });
  await page.goto(base + '/app/tasks');
  await expect(page.locator('tbody tr').first()).toBeVisible();
  top = await listTop(page);
  expect(top.row).toBeLessThan(720);
  await oneLine(page);
  await shot(page, 'layout-tasks-1280');

  // The privacy screen: one part a page, nothing wider than the screen.
  await openAdminMenu(page);
  await page.getByRole('link', { name: 'Privacy' }).click();
  const tabs = page.getByRole('navigation', { name: 'Privacy' }).getByRole('link');
  await expect(tabs).toHaveCount(4);
  for (const [name, tab] of [
    ['Access record', 'access'],
    ['Erasures', 'erasures'],
    ['Deleted by retention and erasures', 'deletions'],
    ['Everything held about a user', 'subject'],
  ]) {
    await page.getByRole('navigation', { name: 'Privacy' }).getByRole('link', { name, exact: true }).click();
    await expect.poll(() => new URL(page.url()).searchParams.get('tab')).toBe(tab);
    await fitsWidth(page, `the ${tab} page`);
    const rows = await page.locator('main tbody tr').count();
    expect(rows).toBeLessThanOrEqual(50);
  }
  await page.getByRole('navigation', { name: 'Privacy' }).getByRole('link', { name: 'Access record', exact: true }).click();
  await expect(page.getByTestId('access-records').getByRole('link', { name: 'lay-chat.json' }).first()).toBeVisible();
  await shot(page, 'layout-privacy');
});

test('layout: one session across tabs, signed out in all; the list above the fold and the pickers in Spanish', async ({
  page,
  base,
  browser,
}) => {
  const root = await devToken(base, 'lay-root', ['admin']);
  // Content of its own: the other layout test's would be a duplicate, its task returned.
  const uuid = await uploadAudited(base, root, 'lay-tab.json', chat('Lola').replace('invoice', 'parcel'), {});
  await page.goto(base + '/app/tasks');
  await signIn(page, { username: 'lay-root', roles: ['admin'] });
  await expect(page.locator('tbody tr').first()).toBeVisible();

  // A task opened in a new tab is signed in; signing out there signs this tab out too.
  const tab = await page.context().newPage();
  await tab.goto(`${base}/app/tasks/${uuid}`);
  await expect(tab.getByRole('heading', { name: 'lay-tab.json' })).toBeVisible();
  await expect(tab.getByLabel('Username'), 'the new tab asks to sign in').toHaveCount(0);
  await tab.getByRole('button', { name: /, account menu$/ }).click();
  await tab.getByRole('button', { name: 'Sign out' }).click();
  await expect(page.getByLabel('Username')).toBeVisible();
  await expect(page.getByText('You signed out in another tab.')).toBeVisible();
  await tab.close();

  await inSpanish(browser, `${base}/app/tasks`, { username: 'lay-root', roles: ['admin'] }, async (es) => {
    await es.setViewportSize({ width: 1440, height: 900 });
    await expect(es.locator('tbody tr').first()).toBeVisible();
    const esTop = await listTop(es);
    expect(esTop.row).toBeLessThan(900);
    await oneLine(es);
    await es.locator('#tasks-operator').fill('lay-root');
    await expect(es.getByRole('option', { name: /lay-root/ })).toBeVisible();
    await shot(es, 'layout-tasks-es');
    await es.locator('#tasks-operator').press('Escape');
    await es.setViewportSize({ width: 1280, height: 720 });
    expect((await listTop(es)).row, 'at 1280×720 in Spanish the list is below the fold').toBeLessThan(720);
    await oneLine(es);
    await es.goto(`${base}/app/admin/privacy?tab=erasures`);
    await expect(es.getByRole('link', { name: 'Supresiones', exact: true })).toBeVisible();
    await shot(es, 'layout-privacy-es');
  });
});
