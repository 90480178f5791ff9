import { expect, test, api, devToken, shot, signIn, inSpanish, chat, rulesCampaign, uploadAudited } from './fixtures';

test('coaching: a supervisor opens coaching from a failed criterion, the agent acknowledges and comments, the report counts it; in English and Spanish', async ({
  page,
  browser,
  base,
}) => {
  const sup = await devToken(base, 'cora', ['supervisor']);
  const quality = await devToken(base, 'quin', ['quality']);
  await api(base, await devToken(base, 'abel', ['operator']), 'GET', '/users/me');
  await rulesCampaign(base, sup, 'e2e-coaching');
  // No callback offered: that criterion fails.
  const task = await uploadAudited(base, quality, 'e2e-coaching-1.json', chat('Abel'), { campaign: 'e2e-coaching', operator: 'abel' });
  await api(base, quality, 'POST', '/validate-audit', {
    task_uuid: task,
    notes: 'Validated for coaching.',
    isCall: false,
    accept_pending: true,
  });

  // The supervisor opens coaching from the failed criterion.
  await page.goto(`${base}/app/tasks/${task}`);
  await signIn(page, { username: 'cora', name: 'Cora Coach', roles: ['supervisor'] });
  await page.getByRole('button', { name: 'Open coaching: Did the agent offer to call back?' }).click();
  const dialog = page.getByRole('dialog', { name: 'Open coaching for abel' });
  await expect(dialog).toBeVisible();
  await dialog.getByLabel('What to work on').fill('Offer a call back before closing when the problem stays open.');
  await shot(page, 'coaching-open');
  await dialog.getByRole('button', { name: 'Open coaching' }).click();
  await expect(page.getByRole('heading', { name: 'Did the agent offer to call back?' })).toBeVisible();
  await expect(page.getByTestId('coaching-status').getByText('Open')).toBeVisible();
  await expect(page.getByRole('link', { name: 'e2e-coaching-1.json' })).toBeVisible();
  await shot(page, 'coaching-item');

  // The agent, in Spanish, is told in her notifications and opens it from there, finds it in her list too,
  // acknowledges it and comments.
  await inSpanish(browser, `${base}/app/notifications`, { username: 'abel', roles: ['operator'] }, async (p) => {
    const note = p.getByRole('main').locator('li.notification', { hasText: 'Did the agent offer to call back?' });
    await expect(note).toBeVisible();
    await shot(p, 'coaching-notification-es');
    await note.getByRole('link', { name: 'Abrir' }).click();
    await expect(p.getByRole('heading', { name: 'Did the agent offer to call back?' })).toBeVisible();
    await p.getByRole('link', { name: 'Coaching', exact: true }).click();
    await expect(p.getByRole('heading', { name: 'Tu coaching' })).toBeVisible();
    await p.getByRole('main').getByRole('link', { name: 'Did the agent offer to call back?' }).click();
    await p.getByRole('button', { name: 'Confirmar lectura' }).click();
    await expect(p.getByTestId('coaching-status').getByText('Leído')).toBeVisible();
    await p.getByLabel('Tu comentario').fill('Lo practico esta semana.');
    await p.getByRole('button', { name: 'Comentar' }).click();
    await expect(p.getByText('Lo practico esta semana.')).toBeVisible();
    await expect(p.getByRole('button', { name: 'Dar por completado' }), 'an agent is offered to close').toHaveCount(0);
    await shot(p, 'coaching-agent-es');
  });

  // The supervisor's page follows live; the report counts it per team, with the criterion's score before.
  await expect(page.getByText('Lo practico esta semana.')).toBeVisible();
  await expect(page.getByTestId('coaching-status').getByText('Acknowledged')).toBeVisible();
  await page.goto(`${base}/app/reports?campaign=e2e-coaching`);
  const card = page.getByTestId('coaching-report');
  await expect(card.getByRole('heading', { name: 'Coaching' })).toBeVisible();
  await expect(card.getByTestId('coaching-teams').locator('tr', { hasText: 'e2e-coaching' })).toBeVisible();
  await expect(card.getByTestId('coaching-criteria').getByText('0 % (1 audits)')).toBeVisible();
  await card.scrollIntoViewIfNeeded();
  await shot(page, 'coaching-report');
  await inSpanish(browser, `${base}/app/reports?campaign=e2e-coaching`, { username: 'cora', roles: ['supervisor'] }, async (p) => {
    const es = p.getByTestId('coaching-report');
    await expect(es.getByTestId('coaching-criteria').getByText('0 % (1 auditorías)')).toBeVisible();
    await es.scrollIntoViewIfNeeded();
    await shot(p, 'coaching-report-es');
  });
});
