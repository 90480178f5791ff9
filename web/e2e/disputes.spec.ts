import { expect, test, api, devToken, shot, signIn, inSpanish, chat, rulesCampaign, uploadAudited } from './fixtures';

test('disputes: an agent disputes a criterion, a supervisor accepts it (new revision, new score), the agent sees the outcome; in English and Spanish', async ({
  page,
  browser,
  base,
}) => {
  const sup = await devToken(base, 'dina', ['supervisor']);
  const quality = await devToken(base, 'vera', ['quality']);
  // The agent exists before the upload, so that the task's agent is her id.
  await api(base, await devToken(base, 'dora', ['operator']), 'GET', '/users/me');
  await rulesCampaign(base, sup, 'e2e-disputes');
  const camp = (await api(base, sup, 'GET', '/campaigns')).find((c: any) => c.name === 'e2e-disputes');
  await api(base, sup, 'PATCH', `/campaigns/${camp.id}`, { supervisor_emails: ['dina@example.test'] });
  // No callback offered: 2 of 3 criteria met.
  const task = await uploadAudited(base, quality, 'e2e-dispute-1.json', chat('Dora'), { campaign: 'e2e-disputes', operator: 'dora' });
  // Its verdicts still to review are accepted as the validator's: revision 2.
  await api(base, quality, 'POST', '/validate-audit', {
    task_uuid: task,
    notes: 'Validated for the dispute test.',
    isCall: false,
    accept_pending: true,
  });

  // The agent disputes the callback criterion.
  await page.goto(`${base}/app/tasks/${task}`);
  await signIn(page, { username: 'dora', name: 'Dora Agent', roles: ['operator'] });
  const card = page.getByTestId('feedback');
  await expect(card.getByRole('heading', { name: 'Acknowledgement and disputes' })).toBeVisible();
  await expect(card.getByText(/^You may dispute this evaluation until /)).toBeVisible();
  await expect(page.getByTestId('task-score').getByText('66.7')).toBeVisible();
  await card.getByRole('button', { name: 'Dispute' }).click();
  const dialog = page.getByRole('dialog', { name: 'Dispute the evaluation' });
  await expect(dialog).toBeVisible();
  await dialog.getByRole('checkbox', { name: /Did the agent offer to call back\?/ }).check();
  await dialog.getByLabel('Why the verdict on “Did the agent offer to call back?” is wrong').fill('I offered a call back in my last turn.');
  await shot(page, 'dispute-dialog');
  await dialog.getByRole('button', { name: 'Send the dispute' }).click();
  await expect(dialog.getByText('Your dispute was sent; you will be notified of its outcome.')).toBeVisible();
  await dialog.getByRole('button', { name: 'Close' }).click();
  await expect(card.getByRole('heading', { name: /^Dispute of .*: open$/ })).toBeVisible();
  await expect(card.getByRole('button', { name: 'Dispute' }), 'a second dispute is offered while one is open').toHaveCount(0);
  await expect(card.getByTestId('why-not').getByText('Your dispute awaits its outcome.')).toBeVisible();

  // The supervisor, in Spanish, finds it among the disputes and accepts it.
  await inSpanish(browser, `${base}/app/disputes`, { username: 'dina', roles: ['supervisor'] }, async (p) => {
    await expect(p.getByRole('heading', { name: 'Impugnaciones' })).toBeVisible();
    const row = p.locator('tr', { hasText: 'e2e-dispute-1.json' });
    await expect(row.getByText('Did the agent offer to call back?')).toBeVisible();
    // Filtered by campaign and agent, picked by name.
    await p.getByLabel('Campaña').fill('e2e-disputes');
    await p.getByRole('option', { name: 'e2e-disputes' }).click();
    await p.getByLabel('Agente', { exact: true }).fill('dora');
    await p.getByRole('option', { name: /dora/ }).first().click();
    await expect(row).toBeVisible();
    await shot(p, 'disputes-es');
    await row.getByRole('button', { name: 'Resolver: e2e-dispute-1.json' }).click();
    const resolve = p.getByRole('dialog', { name: 'Resolver la impugnación de e2e-dispute-1.json' });
    await expect(resolve.getByText('I offered a call back in my last turn.')).toBeVisible();
    await resolve.getByRole('radio', { name: 'Aceptar: invertir el veredicto' }).check();
    await resolve.getByLabel('Motivo para el agente').fill('Cierto: ofreció volver a llamar.');
    await shot(p, 'disputes-resolve-es');
    await resolve.getByRole('button', { name: 'Resolver', exact: true }).click();
    await expect(resolve.getByText(/^Impugnación aceptada\. La auditoría se ha revisado: revisión 3, nota 66,7 → 100,0\.$/)).toBeVisible();
    await resolve.getByRole('button', { name: 'Cerrar' }).click();
    await expect(p.getByText('No hay impugnaciones.')).toBeVisible();
  });

  // The agent's page follows live: the outcome, the new revision and score.
  await expect(card.getByText('The audit was revised: revision 3, score 66.7 → 100.0.')).toBeVisible();
  await expect(card.getByText('Accepted (dina): Cierto: ofreció volver a llamar.')).toBeVisible();
  await expect(page.getByTestId('task-score').getByText('100.0')).toBeVisible();
  await expect(page.getByTestId('feedback-steps').getByText(/Dispute accepted by /)).toBeVisible();
  await shot(page, 'task-dispute-outcome');
  const revisions = (await api(base, quality, 'GET', `/tasks/${task}`)).revisions;
  expect(revisions.length, `revisions: ${JSON.stringify(revisions)}`).toBe(3);
  expect(revisions[2].score).toBe(100);
  // Her disputes, and nobody else's; she resolves none.
  await page.getByRole('link', { name: 'Disputes' }).click();
  await expect(page.getByRole('heading', { name: 'Disputes' })).toBeVisible();
  await page.getByLabel('Status').selectOption('all');
  await expect(page.locator('tr', { hasText: 'e2e-dispute-1.json' }).getByText('accepted')).toBeVisible();
  await expect(page.locator('tbody tr'), 'an agent sees other disputes').toHaveCount(1);
  await expect(page.getByRole('button', { name: /^Resolve/ }), 'an agent is offered to resolve').toHaveCount(0);
  await shot(page, 'disputes-agent');
  await inSpanish(browser, `${base}/app/tasks/${task}`, { username: 'dora', roles: ['operator'] }, async (p) => {
    const es = p.getByTestId('feedback');
    await expect(es.getByRole('heading', { name: 'Conformidad e impugnaciones' })).toBeVisible();
    await expect(es.getByText('La auditoría se ha revisado: revisión 3, nota 66,7 → 100,0.')).toBeVisible();
    await es.getByRole('button', { name: 'Dar conformidad' }).click();
    await expect(es.getByText(/^Conformidad de /)).toBeVisible();
    await shot(p, 'task-dispute-outcome-es');
  });
});
