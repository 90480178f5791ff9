import { createHmac } from 'node:crypto';
import { createServer as createHTTPServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect, test, devToken, shot, signIn, inSpanish, openAdminMenu, chat, api, uploadAudited } from './fixtures';

test('webhooks: a subscription made, its secret shown once, a test and an audited task delivered signed to a receiver on loopback, both in the delivery log; its secret rotated and both signatures sent; deleted through the app’s dialog; in English and Spanish', async ({
  page,
  browser,
  base,
}) => {
  const got: { headers: IncomingHttpHeaders; body: string }[] = [];
  const receiver = createHTTPServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      got.push({ headers: req.headers, body });
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((ok) => receiver.listen(0, '127.0.0.1', ok));
  try {
    const root = await devToken(base, 'hook-root', ['admin']);
    await page.goto(base + '/');
    await signIn(page, { username: 'hook-root', name: 'Hugo Admin', roles: ['admin'] });
    await openAdminMenu(page);
    await page.getByRole('link', { name: 'Webhooks' }).click();
    await page.getByRole('button', { name: 'New subscription' }).click();
    await page.getByLabel('Name', { exact: true }).fill('QA channel');
    await page.getByLabel('URL', { exact: true }).fill(`http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`);
    await page.getByLabel('Task audited').check();
    await page.getByLabel('Format').selectOption('slack');
    await page.getByRole('button', { name: 'Save' }).click();
    const secret = (await page.locator('.hook-secret').textContent()) ?? '';
    expect(secret).toMatch(/^whsec_[0-9a-f]{64}$/);
    await expect(page.getByRole('cell', { name: 'Slack message' }).first()).toBeVisible();

    await page.getByRole('button', { name: 'Send test' }).click();
    await expect(page.getByText(/^Test delivered: the receiver answered 204 in \d+ ms\.$/)).toBeVisible();
    expect(got.length).toBe(1);
    const [, ts, v1] = /^t=(\d+),v1=([0-9a-f]{64})$/.exec(String(got[0].headers['x-auditd-signature'])) ?? [];
    const mac = createHmac('sha256', secret).update(`${ts}.${got[0].body}`).digest('hex');
    expect(v1).toBe(mac);
    expect(got[0].headers['x-auditd-event']).toBe('webhook.test');

    await uploadAudited(base, root, 'hook-chat.json', chat('Wendy Hook'), { language: 'en' }); // content of its own: another test's would be a duplicate, audited already
    await expect(async () => {
      expect(got.length).toBe(2);
      await page.reload();
      await page.getByRole('button', { name: 'Delivery log' }).click();
      await expect(page.getByRole('cell', { name: 'Task audited' }).first()).toBeVisible({ timeout: 2_000 });
    }).toPass({ timeout: 20_000 });
    expect(JSON.parse(got[1].body).text).toMatch(/^Task audited/);
    await shot(page, 'webhooks');

    // The secret rotated through the app's dialog: the new one shown once,
    // and the next delivery signed with both.
    await page.getByRole('button', { name: 'Rotate secret' }).click();
    const rotateDialog = page.getByRole('dialog', { name: 'Rotate secret' });
    await expect(rotateDialog.getByText(/^Make a new signing secret for “QA channel”\? For 24 hours/)).toBeVisible();
    await shot(page, 'webhooks-rotate');
    await rotateDialog.getByRole('button', { name: 'Rotate secret' }).click();
    await expect(page.getByText(/^New secret for “QA channel”; the previous one also signs until /)).toBeVisible();
    const fresh = (await page.locator('.hook-secret').textContent()) ?? '';
    expect(fresh).toMatch(/^whsec_[0-9a-f]{64}$/);
    expect(fresh, 'the secret is not new').not.toBe(secret);
    await expect(page.getByText(/^Previous secret also signs until /)).toBeVisible();
    await page.getByRole('button', { name: 'Send test' }).click();
    await expect(page.getByText(/^Test delivered: the receiver answered 204 in \d+ ms\.$/)).toBeVisible();
    const last = got[got.length - 1];
    const [, ts2, v1New, v1Old] = /^t=(\d+),v1=([0-9a-f]{64}),v1=([0-9a-f]{64})$/.exec(String(last.headers['x-auditd-signature'])) ?? [];
    expect(v1New).toBe(createHmac('sha256', fresh).update(`${ts2}.${last.body}`).digest('hex'));
    expect(v1Old).toBe(createHmac('sha256', secret).update(`${ts2}.${last.body}`).digest('hex'));

    await inSpanish(browser, `${base}/app/admin/webhooks`, { username: 'hook-root', roles: ['admin'] }, async (es) => {
      await expect(es.getByRole('cell', { name: 'Mensaje de Slack' }).first()).toBeVisible();
      await es.getByRole('button', { name: 'Registro de entregas' }).click();
      await expect(es.getByRole('cell', { name: 'Tarea auditada' }).first()).toBeVisible();
      await expect(es.getByRole('cell', { name: 'Prueba', exact: true }).first()).toBeVisible();
      await expect(es.getByText(/^El secreto anterior también firma hasta el /)).toBeVisible();
      await shot(es, 'webhooks-es');
      await es.getByRole('button', { name: 'Eliminar' }).click();
      await expect(
        es.getByRole('dialog', { name: 'Eliminar' }).getByText('¿Eliminar la suscripción «QA channel» y su registro de entregas?'),
      ).toBeVisible();
      await shot(es, 'webhooks-delete-es');
      await es.getByRole('dialog', { name: 'Eliminar' }).getByRole('button', { name: 'Cancelar' }).click();
    });

    // Deleted through the app's dialog: Cancel keeps it, Delete deletes it.
    await page.reload();
    await page.getByRole('button', { name: 'Delete' }).click();
    const deleteDialog = page.getByRole('dialog', { name: 'Delete' });
    await expect(deleteDialog.getByText('Delete the subscription “QA channel” and its delivery log?')).toBeVisible();
    await shot(page, 'webhooks-delete');
    await deleteDialog.getByRole('button', { name: 'Cancel' }).click();
    await expect(deleteDialog).toBeHidden(); // the dialog closes once the app has re-rendered
    await expect(page.getByRole('cell', { name: 'QA channel' })).toBeVisible();
    await page.getByRole('button', { name: 'Delete' }).click();
    await deleteDialog.getByRole('button', { name: 'Delete' }).click();
    await expect(page.getByText('Subscription “QA channel” deleted.')).toBeVisible();
    await expect(page.getByText('No system is subscribed yet.')).toBeVisible();
    expect((await api(base, root, 'GET', '/webhooks')).items, 'subscriptions left').toEqual([]);
  } finally {
    receiver.close();
  }
});
