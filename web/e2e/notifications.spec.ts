import { expect, test, api, devToken, shot, signIn, inSpanish, openUpload, chat } from './fixtures';

test('notifications arrive live, are marked read and deleted', async ({ page, base }) => {
  const admin = await devToken(base, 'e2e-admin', ['admin']);
  await page.goto(base + '/app/notifications');
  await signIn(page, { username: 'maria', name: 'María López', roles: ['quality'] });
  await expect(page.getByRole('heading', { name: 'Notifications' })).toBeVisible();
  await expect(page.getByRole('main').getByText('Live')).toBeVisible();
  // Other tests' notifications for everyone may be there already.
  const before = await api(base, admin, 'GET', '/notifications?user_id=maria');
  const bell = page.locator('button.bell');
  const unread = (n: number) => expect(page.getByTestId('unread-count').getByText(String(n), { exact: true })).toBeVisible();

  // Created through the API by an admin, it reaches the open page at once.
  await api(base, admin, 'POST', '/notifications', { text: 'The audit of call 4711 is ready', variant: 'success', user_id: 'maria' });
  await unread(before.unread + 1);
  await expect(bell, 'bell label').toHaveAttribute('aria-label', `Notifications, ${before.unread + 1} unread`);
  await expect(page.getByText(`${before.unread + 1} unread of ${before.total + 1}`)).toBeVisible();

  // By keyboard: Enter opens the panel, Escape closes it and gives the focus back.
  await bell.focus();
  await page.keyboard.press('Enter');
  const panel = page.getByRole('banner').getByRole('region', { name: 'Notifications' });
  const item = panel.locator('li.notification').filter({ hasText: 'The audit of call 4711 is ready' });
  await expect(item).toBeVisible();
  await shot(page, 'bell');
  await item.getByRole('button', { name: 'Mark as read' }).click();
  await expect(item.getByRole('button', { name: 'Mark as unread' })).toBeVisible();
  await expect(page.getByText(`${before.unread} unread of ${before.total + 1}`)).toBeVisible();
  await page.keyboard.press('Escape');
  await expect(panel).toBeHidden();
  await expect(bell, 'the focus did not return to the bell').toBeFocused();

  await api(base, admin, 'POST', '/notifications', { text: 'Scorecard "Retention" was published', variant: 'warning', user_id: 'maria' });
  const global = await api(base, admin, 'POST', '/notifications', {
    text: 'Maintenance tonight at 22:00',
    variant: 'info',
    is_global: true,
  });
  try {
    await unread(before.unread + 2);
    await expect(page.getByText(`${before.unread + 2} unread of ${before.total + 3}`)).toBeVisible();
    // The badge of a notification for everyone (a closed dialog's text names them too).
    await expect(page.getByRole('main').getByText('For everyone', { exact: true }).first()).toBeVisible();
    await shot(page, 'notifications');

    // Delete all: the user's own go, the global ones stay.
    await page.getByRole('button', { name: 'Delete all' }).click();
    const dialog = page.getByRole('dialog', { name: 'Delete all your notifications?' });
    await expect(dialog).toBeVisible();
    await shot(page, 'notifications-delete-all');
    await dialog.getByRole('button', { name: 'Delete them' }).click();
    await expect(page.getByText('Deleted 2 notifications.')).toBeVisible();
    await expect(page.getByText(`${before.unread + 1} unread of ${before.total + 1}`)).toBeVisible();
    await expect(page.getByRole('main').getByText('Maintenance tonight at 22:00')).toBeVisible();
    const left = await api(base, admin, 'GET', '/notifications?user_id=maria');
    expect(
      left.items.every((n: any) => n.is_global),
      `the API still has ${JSON.stringify(left.items)}`,
    ).toBeTruthy();
    await expect(page.getByRole('main').locator('li.notification')).toHaveCount(left.total);
  } finally {
    await api(base, admin, 'DELETE', `/notifications/${global.id}`);
  }
});

test('the event stream reconnects with a fresh token and misses nothing', async ({ page, base }) => {
  const admin = await devToken(base, 'e2e-admin', ['admin']);
  const streams: URLSearchParams[] = [];
  page.on('request', (req) => {
    if (new URL(req.url()).pathname === '/notifications/events') streams.push(new URL(req.url()).searchParams);
  });
  await page.goto(base + '/app/notifications');
  // The server ends a stream when its token expires: a 6 s token makes it happen now.
  await signIn(page, { username: 'tomas', roles: ['quality'], lifetime: 6 });
  await expect(page.getByRole('main').getByText('Live')).toBeVisible();
  await api(base, admin, 'POST', '/notifications', { text: 'before the token expired', variant: 'info', user_id: 'tomas' });
  await expect(page.getByRole('main').getByText('before the token expired')).toBeVisible();
  await expect.poll(() => streams.length, { timeout: 20_000 }).toBeGreaterThanOrEqual(2);
  const [first, second] = streams;
  expect(first.get('access_token'), 'the stream reconnected with the expired token').not.toBe(second.get('access_token'));
  expect(second.get('last_event_id') ?? '').toMatch(/^\d+$/);
  await api(base, admin, 'POST', '/notifications', { text: 'after the reconnection', variant: 'info', user_id: 'tomas' });
  await expect(page.getByRole('main').getByText('after the reconnection')).toBeVisible();
  const now = await api(base, admin, 'GET', '/notifications?user_id=tomas');
  await expect(page.getByText(`${now.unread} unread of ${now.total}`)).toBeVisible();
});

test('server notifications in the language of the user: Spanish from the dashboard, English once switched', async ({ browser, base }) => {
  await inSpanish(browser, base + '/', { username: 'ines', roles: ['quality'] }, async (p) => {
    // Signed in from a Spanish dashboard: the token says so, the server writes in it.
    await expect(p.getByRole('heading', { name: 'Tareas' })).toBeVisible();
    await expect(p.getByRole('main').getByText('En directo')).toBeVisible();
    await openUpload(p);
    await p
      .getByLabel('Elegir archivos')
      .setInputFiles({ name: 'e2e-ines.json', mimeType: 'application/json', buffer: Buffer.from(chat('Inés')) });
    await p.getByRole('link', { name: 'Notificaciones' }).click();
    // Through the pipeline: upload to audited.
    await expect(
      p.getByRole('main').getByText(/e2e-ines\.json se ha auditado: \d+,\d\d, (aprobada|no aprobada) \(nota de aprobado 85,00\)\./),
    ).toBeVisible({ timeout: 40_000 });
    await shot(p, 'notifications-es');

    // Switched to English in the account menu: what the server writes next is English.
    await p.getByRole('button', { name: /, menú de la cuenta$/ }).click();
    await p.getByLabel('Idioma').selectOption('en');
    await expect(p.getByRole('heading', { name: 'Notifications' })).toBeVisible();
    await expect(p.locator('html'), 'still Spanish').toHaveAttribute('lang', 'en');
    const token = await devToken(base, 'ines', ['quality']);
    await expect.poll(async () => (await api(base, token, 'GET', '/users/me')).locale).toBe('en');
    await p.getByRole('link', { name: 'Tasks' }).click();
    await openUpload(p);
    await p.getByLabel('Choose files').setInputFiles({
      name: 'e2e-ines-2.json',
      mimeType: 'application/json',
      buffer: Buffer.from(chat('Inés').replace('goodbye', 'bye now, goodbye')),
    });
    await p.getByRole('link', { name: 'Notifications' }).click();
    // Through the pipeline: upload to audited.
    await expect(
      p.getByRole('main').getByText(/e2e-ines-2\.json was audited: \d+\.\d\d, (passed|did not pass) \(passing score 85\.00\)\./),
    ).toBeVisible({ timeout: 40_000 });
  });
});
