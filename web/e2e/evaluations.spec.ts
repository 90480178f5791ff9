import type { Page } from '@playwright/test';
import { expect, test, api, devToken, fitsWidth, shot, signIn, inSpanish, chat, rulesCampaign, uploadAudited } from './fixtures';

/** weeksFit checks that the criteria's week table fits its card: no week hidden to the side. */
async function weeksFit(page: Page, when: string) {
  const box = page.locator('section[aria-labelledby="mine-criteria"] .table-scroll');
  const { scroll, client } = await box.evaluate((el) => ({ scroll: el.scrollWidth, client: el.clientWidth }));
  expect(scroll, `the week table scrolls sideways ${when}`).toBeLessThanOrEqual(client);
}

test('the agent: told of a validated evaluation, opens the task from the notification and acknowledges it, then follows it in My evaluations; in English and Spanish', async ({
  page,
  browser,
  base,
}) => {
  test.setTimeout(75_000); // the page photographed at two sizes in each language
  const sup = await devToken(base, 'sara', ['supervisor']);
  const quality = await devToken(base, 'quinn', ['quality']);
  // The agent exists (with her e-mail address) before the upload: the task's agent is her id, and she is told.
  await api(base, await devToken(base, 'ema', ['operator']), 'GET', '/users/me');
  await rulesCampaign(base, sup, 'e2e-agent');
  const task = await uploadAudited(base, quality, 'e2e-agent-1.json', chat('Ema'), { campaign: 'e2e-agent', operator: 'ema' });
  await api(base, quality, 'POST', '/validate-audit', { task_uuid: task, notes: 'Well done.', isCall: false, accept_pending: true });

  await page.goto(`${base}/app/notifications`);
  await signIn(page, { username: 'ema', name: 'Ema Agent', roles: ['operator'] });
  const note = page.getByRole('main').locator('li.notification', { hasText: 'Your evaluation of e2e-agent-1.json was validated' });
  await expect(note).toBeVisible();
  const actions = note.getByTestId('evaluation-actions');
  await expect(actions.getByRole('button', { name: 'Acknowledge' })).toBeVisible();
  await expect(actions.getByRole('link', { name: 'Dispute' })).toBeVisible();
  await shot(page, 'agent-notification');

  // Opened from the notification, the task shows her feedback card; she acknowledges there.
  await note.getByRole('link', { name: 'Open' }).click();
  const card = page.getByTestId('feedback');
  await expect(card.getByRole('heading', { name: 'Acknowledgement and disputes' })).toBeVisible();
  await card.getByRole('button', { name: 'Acknowledge' }).click();
  await expect(card.getByText(/^Acknowledged by /)).toBeVisible();
  await shot(page, 'agent-acknowledged');

  // My evaluations, from the menu: the evaluation acknowledged, her score by week, each criterion met.
  await page.getByRole('link', { name: 'My evaluations' }).click();
  await expect(page.getByRole('heading', { name: 'My evaluations' })).toBeVisible();
  const row = page.getByTestId('my-evaluations').locator('tr', { hasText: 'e2e-agent-1.json' });
  await expect(row.getByText(/^Acknowledged on /)).toBeVisible();
  await expect(row.getByText('e2e-agent', { exact: true })).toBeVisible(); // the campaign
  await expect(page.getByRole('heading', { name: 'My average score by week' })).toBeVisible();
  await expect(page.getByRole('heading', { name: 'Criteria met by week (%)' })).toBeVisible();
  await expect(page.getByRole('cell', { name: 'Did the agent greet the customer?' })).toBeVisible();
  await shot(page, 'my-evaluations');
  // At 1280×720 and 1440×900 the page is no wider than the window, and the week table fits its card, every week shown.
  for (const [width, height] of [
    [1280, 720],
    [1440, 900],
  ]) {
    await page.setViewportSize({ width, height });
    await fitsWidth(page, `My evaluations at ${width}×${height}`);
    await weeksFit(page, `at ${width}×${height}`);
    await shot(page, `my-evaluations-${width}`);
  }

  await inSpanish(browser, `${base}/app/evaluations`, { username: 'ema', roles: ['operator'], exact: true }, async (p) => {
    await expect(p.getByRole('heading', { name: 'Mis evaluaciones' })).toBeVisible();
    await expect(p.getByRole('link', { name: 'Mis evaluaciones' })).toBeVisible();
    await expect(p.getByTestId('my-evaluations').getByText(/^Conformidad dada el /)).toBeVisible();
    await expect(p.getByRole('heading', { name: 'Mi puntuación media por semana' })).toBeVisible();
    await shot(p, 'my-evaluations-es');
    for (const [width, height] of [
      [1280, 720],
      [1440, 900],
    ]) {
      await p.setViewportSize({ width, height });
      await fitsWidth(p, `Mis evaluaciones a ${width}×${height}`);
      await weeksFit(p, `a ${width}×${height}`);
      await shot(p, `my-evaluations-es-${width}`);
    }
  });
});
