import { expect, test, api, devToken, shot, signIn, inSpanish, chat, rulesCampaign, uploadAudited } from './fixtures';

test('QA workflow: a supervisor sets a sampling rule, the analysts’ queues fill, an analyst opens one from My reviews; in English and Spanish', async ({
  page,
  browser,
  base,
}) => {
  // A campaign of its own, with its own two analysts, and four audited chats of one agent.
  const sup = await devToken(base, 'qa-sue', ['supervisor']);
  const analysts = { 'qa-ana': await devToken(base, 'qa-ana', ['quality']), 'qa-leo': await devToken(base, 'qa-leo', ['quality']) };
  for (const token of Object.values(analysts)) await api(base, token, 'GET', '/users/me');
  await rulesCampaign(base, sup, 'e2e-qa');
  const campaign = (await api(base, sup, 'GET', '/campaigns')).find((c: any) => c.name === 'e2e-qa');
  await api(base, sup, 'PATCH', `/campaigns/${campaign.id}`, { review_analysts: Object.keys(analysts) });
  for (const n of [1, 2, 3, 4]) {
    await uploadAudited(base, analysts['qa-ana'], `e2e-qa-${n}.json`, chat(`Agent ${n}`), { campaign: 'e2e-qa', operator: 'qa-agent' });
  }

  // The supervisor adds a rule in the campaign's settings and runs it at once.
  await page.goto(base + '/app/admin/campaigns');
  await signIn(page, { username: 'qa-sue', roles: ['supervisor'] });
  await page.getByRole('button', { name: 'Edit e2e-qa' }).click();
  const rules = page.getByRole('region', { name: 'Sampling rules' });
  await expect(rules.getByText('No sampling rules yet.')).toBeVisible();
  await rules.getByLabel('Name').fill('Two per agent a week');
  await rules.getByLabel('Picks').selectOption('per_agent');
  await rules.getByLabel('Tasks per agent').fill('2');
  await rules.getByLabel('Assign').selectOption('round_robin');
  await rules.getByLabel('Due in (days)').fill('3');
  await rules.getByRole('button', { name: 'Add the rule' }).click();
  await expect(rules.getByText('Rule added.')).toBeVisible();
  await expect(rules.getByRole('rowheader', { name: 'Two per agent a week' })).toBeVisible();
  await expect(rules.getByText('N per agent · 2 a week')).toBeVisible();
  await rules.getByRole('button', { name: 'Run the rules now' }).click();
  await expect(rules.getByText(/^The rules ran: \d+ tasks? picked and assigned\.$/)).toBeVisible({ timeout: 20_000 });
  await expect(rules.getByText(/: 2 picked \(2 in all\)$/)).toBeVisible();
  await shot(page, 'sampling-rules');

  // Each analyst got one, due in three days; the supervisor sees their progress.
  for (const token of Object.values(analysts)) {
    const queue = await api(base, token, 'GET', '/reviews/mine');
    expect(queue.total).toBe(1);
  }
  await page.getByRole('link', { name: 'My reviews' }).click();
  await expect(page.getByRole('heading', { name: 'My reviews' })).toBeVisible();
  await expect(page.getByText('Nothing is waiting for your review.')).toBeVisible();
  const progress = page.getByTestId('review-progress');
  await page.getByLabel('Campaign').fill('e2e-qa');
  await page.getByRole('option', { name: 'e2e-qa' }).click();
  for (const who of Object.keys(analysts)) {
    await expect(progress.locator(`tr[data-analyst="${who}"]`)).toBeVisible();
    expect(await progress.locator(`tr[data-analyst="${who}"] td`).first().innerText()).toBe('1');
  }
  await shot(page, 'review-progress');

  // An analyst opens hers from My reviews, and marks it reviewed.
  const ctx = await browser.newContext({ locale: 'en-GB', viewport: { width: 1280, height: 800 } });
  try {
    const ana = await ctx.newPage();
    await ana.goto(base + '/app/reviews');
    await signIn(ana, { username: 'qa-ana', roles: ['quality'] });
    const queue = ana.getByTestId('my-reviews');
    await expect(queue).toBeVisible();
    await expect(queue.locator('tbody tr'), 'not one task in her queue').toHaveCount(1);
    await expect(queue.getByText('automatic')).toBeVisible();
    await expect(ana.getByText('To review: 1. Overdue on this page: 0.')).toBeVisible();
    await shot(ana, 'my-reviews');
    await queue.getByRole('link', { name: /^e2e-qa-\d\.json$/ }).click();
    await expect(ana.getByTestId('task-review-state').getByText('automatic')).toBeVisible();
    await expect(ana.getByTestId('task-review-state').getByText(/^\s*Assigned to qa-ana, due /)).toBeVisible();
    await shot(ana, 'review-task');
    await ana.getByRole('button', { name: 'Mark as reviewed' }).click();
    await expect(ana.getByTestId('task-review-state').getByText('reviewed')).toBeVisible();
    await ana.getByRole('link', { name: 'My reviews' }).click();
    await expect(ana.getByText('Nothing is waiting for your review.')).toBeVisible();
  } finally {
    await ctx.close();
  }

  // The other analyst's queue and the rules, in Spanish.
  await inSpanish(browser, base + '/app/reviews', { username: 'qa-leo', roles: ['quality'] }, async (es) => {
    await expect(es.getByRole('heading', { name: 'Mis revisiones' })).toBeVisible();
    await expect(es.getByTestId('my-reviews').getByText('automática')).toBeVisible();
    await expect(es.getByText('Por revisar: 1. Vencidas en esta página: 0.')).toBeVisible();
    await shot(es, 'my-reviews-es');
  });
  await inSpanish(browser, base + '/app/admin/campaigns', { username: 'qa-sue', roles: ['supervisor'] }, async (es) => {
    await es.getByRole('button', { name: 'Editar e2e-qa' }).click();
    const reglas = es.getByRole('region', { name: 'Reglas de muestreo' });
    await expect(reglas.getByText('N por agente · 2 por semana')).toBeVisible();
    await expect(reglas.getByText(/: \d+ elegidas? \(\d+ en total\)$/)).toBeVisible(); // the count was read in English; a periodic run may have come since
    await shot(es, 'sampling-rules-es');
    await es.getByRole('link', { name: 'Mis revisiones' }).click();
    await es.getByLabel('Campaña').fill('e2e-qa');
    await es.getByRole('option', { name: 'e2e-qa' }).click();
    await expect(es.getByTestId('review-progress').locator('tr[data-analyst="qa-ana"]')).toBeVisible();
    await shot(es, 'review-progress-es');
  });
});
