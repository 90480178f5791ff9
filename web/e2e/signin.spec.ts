import { expect, test, shot, signIn, inSpanish } from './fixtures';

test('dev sign-in shows the profile; operators get no admin screens', async ({ page, base }) => {
  await page.goto(base + '/');
  await expect(page.getByRole('heading', { name: 'Sign in to auditd' })).toBeVisible();
  await shot(page, 'signin');
  await signIn(page, { username: 'olga', name: 'Olga Ruiz', roles: ['operator'] });
  // "/" leads to the first screen of the navigation: the tasks, without upload for an operator.
  await expect(page.getByRole('heading', { name: 'Tasks' })).toBeVisible();
  expect(new URL(page.url()).pathname).toBe('/app/tasks');
  await expect(page.getByText('No tasks match these filters.')).toBeVisible();
  await expect(page.getByRole('heading', { name: 'Upload calls and chats' }), 'an operator can upload').toHaveCount(0);
  await page.getByRole('link', { name: 'Profile' }).click();
  await expect(page.getByRole('heading', { name: 'Your profile' })).toBeVisible();
  await expect(page.getByTestId('profile-name').getByText('Olga Ruiz')).toBeVisible();
  await expect(page.getByTestId('profile-username').getByText('olga')).toBeVisible();
  await expect(page.getByTestId('profile-role').getByText('operator')).toBeVisible();
  await expect(page.getByRole('link', { name: 'Background jobs' }), 'an operator sees the admin navigation').toHaveCount(0);
  await shot(page, 'profile');

  await page.goto(base + '/app/admin/jobs');
  await expect(page.getByRole('heading', { name: 'Not allowed' })).toBeVisible();
  await expect(page.getByText('This page needs the administrator role; you have operator.')).toBeVisible();
  await shot(page, 'forbidden');

  await page.goto(base + '/app/no-such-screen');
  await expect(page.getByRole('heading', { name: 'Page not found' })).toBeVisible();

  // The session survives a reload (kept for the tab) and ends on sign-out.
  await page.goto(base + '/app/profile');
  await expect(page.getByTestId('profile-username').getByText('olga')).toBeVisible();
  await page.getByRole('button', { name: /^Olga Ruiz\s*, account menu$/ }).click();
  await expect(page.getByRole('button', { name: 'Sign out' })).toBeVisible();
  await shot(page, 'user-menu');
  await page.getByRole('button', { name: 'Sign out' }).click();
  await expect(page.getByRole('heading', { name: 'Sign in to auditd' })).toBeVisible();
  await page.reload();
  await expect(page.getByRole('heading', { name: 'Sign in to auditd' })).toBeVisible();
});

test('API errors are shown by their code, translated, with the words of the API', async ({ page, base, browser }) => {
  await page.goto(base + '/');
  await signIn(page, { username: 'root', roles: ['admin'] });
  await page.goto(base + '/app/admin/jobs?state=bogus');
  const alert = page.getByRole('alert').filter({ hasText: 'query.state' });
  await expect(alert).toBeVisible();
  await expect(alert.getByText('Some of what you sent is not valid.', { exact: true })).toBeVisible();
  await expect(alert.getByText(/Request id: \w+/)).toBeVisible();
  await shot(page, 'jobs-error');

  // In Spanish, the same error in Spanish; the API's words stay below.
  await inSpanish(browser, base + '/', { username: 'root', roles: ['admin'] }, async (pes) => {
    await expect(pes.getByRole('heading', { name: 'Tareas' })).toBeVisible();
    await pes.goto(base + '/app/admin/jobs?state=bogus');
    const alertEs = pes.getByRole('alert').filter({ hasText: 'query.state' });
    await expect(alertEs.getByText('Parte de lo que has enviado no es válido.', { exact: true })).toBeVisible();
    await expect(alertEs.getByText(/Id de la petición: \w+/)).toBeVisible();
    await shot(pes, 'jobs-error-es');
  });

  // The sign-in form leaves checking to the API and shows what it says.
  const fresh = await browser.newContext();
  const p2 = await fresh.newPage();
  await p2.goto(base + '/');
  await expect(p2.getByLabel('Username')).toBeVisible();
  await p2.getByLabel('Username').fill('not a username');
  await p2.getByRole('button', { name: 'Sign in' }).click();
  await expect(p2.getByRole('alert').getByText('username must be 1 to 64 letters, digits or . _ @ -')).toBeVisible();
  await expect(p2.getByRole('alert').getByText('body.username')).toBeVisible();
  await shot(p2, 'signin-error');
  await fresh.close();
});

test('Spanish and English, chosen from the browser and switched', async ({ browser, base }) => {
  const ctx = await browser.newContext({ locale: 'es-ES', viewport: { width: 1280, height: 800 } });
  const page = await ctx.newPage();
  await page.goto(base + '/');
  await expect(page.getByRole('heading', { name: 'Iniciar sesión en auditd' })).toBeVisible();
  await shot(page, 'signin-es');
  await page.getByLabel('Usuario', { exact: true }).fill('lucia');
  await page.getByRole('button', { name: 'Iniciar sesión' }).click();
  await expect(page.getByRole('heading', { name: 'Tareas' })).toBeVisible();
  await expect(page.getByRole('button', { name: 'Exportar CSV' })).toBeVisible();
  await expect(page.getByRole('button', { name: 'Exportar Excel' })).toBeVisible();
  await shot(page, 'tasks-es');
  await page.getByRole('link', { name: 'Perfil' }).click();
  await expect(page.getByRole('heading', { name: 'Tu perfil' })).toBeVisible();
  await expect(page.getByRole('link', { name: 'Notificaciones' })).toBeVisible();
  await shot(page, 'profile-es');
  await page.getByRole('button', { name: /, menú de la cuenta$/ }).click();
  await page.getByLabel('Idioma').selectOption('en');
  await expect(page.getByRole('link', { name: 'Notifications' })).toBeVisible();
  await page.reload();
  await expect(page.getByRole('heading', { name: 'Your profile' })).toBeVisible();
  await expect(page.locator('html'), 'html lang').toHaveAttribute('lang', 'en');
  await ctx.close();
});

test('OIDC sign-in with PKCE, token refresh and sign-out', async ({ page, oidc }) => {
  await page.goto(oidc.dashboard + '/app/notifications');
  await page.getByRole('button', { name: 'Sign in with your organisation account' }).click();
  // The fake provider signs in at once and sends the browser back.
  await expect(page.getByRole('heading', { name: 'Notifications' })).toBeVisible();
  expect(new URL(page.url()).pathname).toBe('/app/notifications');
  await page.getByRole('link', { name: 'Profile' }).first().click();
  await expect(page.getByTestId('profile-username').getByText('ines')).toBeVisible();
  await expect(page.getByTestId('profile-role').getByText('supervisor')).toBeVisible();
  const asked = await oidc.asked();
  expect(asked.grants).toContain('authorization_code');
  expect(asked.pkce).toEqual(['S256']);
  // Its tokens live 8 s: the dashboard renews them with the refresh token.
  await expect.poll(async () => (await oidc.asked()).grants, { timeout: 15_000 }).toContain('refresh_token');
  await page.reload();
  await expect(page.getByTestId('profile-username').getByText('ines')).toBeVisible();
  await shot(page, 'profile-oidc');
  await page.getByRole('button', { name: /, account menu$/ }).click();
  await page.getByRole('button', { name: 'Sign out' }).click();
  await expect(page.getByRole('heading', { name: 'Sign in to auditd' })).toBeVisible();
  // The sign-in page can show before the provider's end-session request lands.
  await expect.poll(async () => (await oidc.asked()).signedOut, { timeout: 10_000 }).toBe(1);
});
