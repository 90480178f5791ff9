import { expect, test, api, devToken, shot, signIn, inSpanish, uploadAudited } from './fixtures';

test('redaction: a Spanish campaign redacts the defaults of its language, changed on its screen (a bad pattern refused), a chat shown with placeholders; in English and Spanish', async ({
  page,
  browser,
  base,
}) => {
  const sup = await devToken(base, 'sue', ['supervisor']);
  await api(base, sup, 'POST', '/campaigns', { name: 'e2e-redaction', language: 'es' });
  await page.goto(base + '/app/admin/campaigns');
  await signIn(page, { username: 'sue', roles: ['supervisor'] });
  await page.getByRole('button', { name: 'Edit e2e-redaction' }).click();
  await expect(page.getByRole('heading', { name: 'Redaction', exact: true })).toBeVisible();
  await expect(
    page.getByRole('checkbox', { name: 'Card numbers and their expiry dates [CARD] [EXPIRY]' }),
    'cards by default',
  ).toBeChecked();
  await expect(page.getByRole('checkbox', { name: 'DNI and NIE [DNI]' }), 'DNI by default in Spanish').toBeChecked();
  await expect(page.getByRole('checkbox', { name: 'E-mail addresses [EMAIL]' }), 'no e-mail by default in Spanish').not.toBeChecked();
  await expect(page.getByTestId('redaction-source').getByText('defaults of the campaign’s language (es)')).toBeVisible();
  await page.getByRole('checkbox', { name: 'E-mail addresses [EMAIL]' }).check();
  await page.getByRole('button', { name: 'Add a pattern' }).click();
  // The campaign's screen has other names (its sampling rules'): the pattern's.
  const patterns = page.getByRole('group', { name: 'Own patterns' });
  await patterns.getByLabel('Name', { exact: true }).fill('order ref');
  await patterns.getByLabel('Regular expression').fill('PED-[0-9');
  await page.getByRole('button', { name: 'Save redaction' }).click();
  await expect(page.getByRole('alert').getByText('body.redaction.patterns[0].name')).toBeVisible();
  await expect(page.getByRole('alert').getByText('body.redaction.patterns[0].regexp')).toBeVisible();
  await patterns.getByLabel('Name', { exact: true }).fill('ORDER_REF');
  await patterns.getByLabel('Regular expression').fill('PED-[0-9]{6}');
  await page.getByRole('button', { name: 'Save redaction' }).click();
  await expect(page.getByText('Redaction saved.')).toBeVisible();
  await expect(page.getByTestId('redaction-source').getByText('Set for this campaign')).toBeVisible();
  await shot(page, 'campaign-redaction');

  const quality = await devToken(base, 'sara', ['quality']);
  const uuid = await uploadAudited(
    base,
    quality,
    'e2e-redaction.txt',
    'Agente: Buenos días, le atiende Sara. ¿Me confirma su DNI?\nCliente: 12345678Z, y pago con la tarjeta 4500 1234 5678 9012.\nAgente: Gracias, su pedido PED-123456 queda pagado.\n',
    { campaign: 'e2e-redaction' },
  );
  await page.goto(`${base}/app/tasks/${uuid}`);
  await expect(page.getByText('[DNI], y pago con la tarjeta [CARD].')).toBeVisible();
  await expect(page.getByText('su pedido [ORDER_REF] queda pagado')).toBeVisible();
  const html = await page.content();
  for (const value of ['4500', '12345678', 'PED-123456']) expect(html, 'no redacted value on the page').not.toContain(value);
  await shot(page, 'task-redacted');

  await inSpanish(browser, base + '/app/admin/campaigns', { username: 'sue', roles: ['supervisor'] }, async (es) => {
    await es.getByRole('button', { name: 'Editar e2e-redaction' }).click();
    await expect(es.getByRole('heading', { name: 'Anonimización' })).toBeVisible();
    await expect(es.getByRole('checkbox', { name: 'Correos electrónicos [EMAIL]' }), 'e-mail saved').toBeChecked();
    await expect(es.getByTestId('redaction-source').getByText('Fijado para esta campaña')).toBeVisible();
    const patterns = es.getByRole('group', { name: 'Patrones propios' });
    await expect(patterns.getByLabel('Nombre', { exact: true }), 'pattern saved').toHaveValue('ORDER_REF');
    await shot(es, 'campaign-redaction-es');
    await es.goto(`${base}/app/tasks/${uuid}`);
    await expect(es.getByText('su pedido [ORDER_REF] queda pagado')).toBeVisible();
    await shot(es, 'task-redacted-es');
  });
});
