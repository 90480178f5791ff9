import type { Page } from '@playwright/test';
import { expect, test, api, devToken, shot, signIn, inSpanish, chat, rulesCampaign, uploadAudited } from './fixtures';

/** alphaOf is Krippendorff's alpha (nominal) of units, each the list of values coders gave it; null when undefined. */
function alphaOf(units: string[][]) {
  let n = 0;
  let agree = 0;
  const totals: Record<string, number> = {};
  for (const values of units) {
    if (values.length < 2) continue;
    const counts: Record<string, number> = {};
    for (const v of values) counts[v] = (counts[v] ?? 0) + 1;
    for (const [v, c] of Object.entries(counts)) {
      agree += (c * (c - 1)) / (values.length - 1);
      totals[v] = (totals[v] ?? 0) + c;
    }
    n += values.length;
  }
  const expected = n * n - Object.values(totals).reduce((sum, c) => sum + c * c, 0);
  return n < 2 || expected === 0 ? null : 1 - ((n - 1) * (n - agree)) / expected;
}

test('calibration: a supervisor runs a session with three analysts who score blind; the agreement read in English and Spanish', async ({
  page,
  browser,
  base,
}) => {
  const sup = await devToken(base, 'carmen', ['supervisor']);
  const quality = await devToken(base, 'rosa', ['quality']);
  const analysts = ['ana-cal', 'ben-cal', 'cris-cal'];
  for (const who of analysts) await api(base, await devToken(base, who, ['quality']), 'GET', '/users/me');
  await rulesCampaign(base, sup, 'e2e-calibration');
  const send = (name: string, operator: string, body: string) =>
    uploadAudited(base, quality, name, body, { campaign: 'e2e-calibration', operator });
  const first = await send('e2e-calibration-1.json', 'xavi', chat('Calixto'));
  await send('e2e-calibration-2.json', 'yara', chat('Calista').replace('goodbye', 'we will call you back tomorrow, goodbye'));

  // The supervisor starts it from the dashboard.
  await page.goto(base + '/');
  await signIn(page, { username: 'carmen', roles: ['supervisor'] });
  await page.getByRole('link', { name: 'Calibration', exact: true }).click();
  await expect(page.getByRole('heading', { name: 'Calibration sessions' })).toBeVisible();
  await page.getByRole('link', { name: 'New session' }).click();
  await expect(page.getByRole('heading', { name: 'New calibration session' })).toBeVisible();
  await page.getByLabel('Name').fill('E2E calibration');
  for (const who of analysts) await page.locator(`input[name="analyst"][value="${who}"]`).check();
  for (const file of ['e2e-calibration-1.json', 'e2e-calibration-2.json']) {
    await page.getByRole('checkbox', { name: new RegExp(file.replace('.', '\\.')) }).check();
  }
  await shot(page, 'calibration-new');
  await page.getByRole('button', { name: 'Start the session' }).click();
  await expect(page.getByRole('heading', { name: 'E2E calibration' })).toBeVisible();
  await expect(page.getByRole('heading', { name: 'Waiting for 3 analysts to submit' })).toBeVisible();
  const id = new URL(page.url()).pathname.split('/').pop();

  // Each analyst answers blind: ana all complies; ben fails the first
  // chat's call back; cris finds it not applicable and fails the second's
  // greeting. cris works in Spanish.
  const plan: Record<string, Record<string, string>> = {
    'ana-cal': {},
    'ben-cal': { 'e2e-calibration-1.json/callback': 'does_not_comply' },
    'cris-cal': { 'e2e-calibration-1.json/callback': 'not_applicable', 'e2e-calibration-2.json/greeting': 'does_not_comply' },
  };
  const score = async (p: Page, who: string, { submit, submitted }: { submit: string; submitted: string }) => {
    await expect(p.locator('.calibration-item').first()).toBeVisible();
    await expect(p.getByText('Automatic', { exact: true }), 'the automatic verdict is hidden').toHaveCount(0);
    for (const task of ['e2e-calibration-1.json', 'e2e-calibration-2.json']) {
      for (const criterion of ['greeting', 'polite', 'callback']) {
        const answer = plan[who][`${task}/${criterion}`] ?? 'complies';
        await p.locator(`section[data-task="${task}"] fieldset[data-criterion="${criterion}"] input[value="${answer}"]`).check();
      }
    }
    await p.locator('section[data-task="e2e-calibration-1.json"] details summary').click();
    await expect(p.getByText('My invoice is wrong this month.').first()).toBeVisible();
    await shot(p, `calibration-scoring-${who}`);
    await p.getByRole('button', { name: submit }).click();
    await expect(p.getByText(submitted).first()).toBeVisible();
  };
  for (const who of ['ana-cal', 'ben-cal']) {
    const ctx = await browser.newContext({ locale: 'en-GB', viewport: { width: 1280, height: 800 } });
    const p = await ctx.newPage();
    await p.goto(`${base}/app/calibration/${id}`);
    await signIn(p, { username: who, roles: ['quality'] });
    if (who === 'ana-cal') {
      // The task's own page is blind too until she submits.
      await p.goto(`${base}/app/tasks/${first}`);
      await expect(p.getByTestId('calibration-blind')).toBeVisible();
      await shot(p, 'calibration-task-blind');
      await p.getByTestId('calibration-blind').getByRole('link', { name: 'Open the session' }).click();
    }
    await score(p, who, { submit: 'Submit my answers', submitted: 'Your answers are submitted.' });
    await ctx.close();
  }
  await expect(page.getByRole('heading', { name: 'Waiting for 1 analyst to submit' })).toBeVisible();
  await inSpanish(browser, `${base}/app/calibration/${id}`, { username: 'cris-cal', roles: ['quality'] }, (p) =>
    score(p, 'cris-cal', { submit: 'Enviar mis respuestas', submitted: 'Resultados' }),
  );

  // The last submission closed it: the supervisor's screen shows the
  // results live, and the alpha shown is the one computed from the answers.
  await expect(page.getByRole('heading', { name: 'Results' }).first()).toBeVisible();
  const detail = await api(base, sup, 'GET', `/calibration-sessions/${id}`);
  const units = detail.items.map((it: any) =>
    detail.answers.filter((a: any) => a.task_uuid === it.task_uuid && a.criterion_id === it.criterion_id).map((a: any) => a.answer),
  );
  const alpha = alphaOf(units);
  expect(alpha).not.toBeNull();
  expect(alpha!).toBeCloseTo(detail.results.overall.alpha, 12);
  await expect(page.getByTestId('overall-alpha')).toHaveText(alpha!.toFixed(2));
  await expect(page.getByTestId('overall-outliers').getByText('cris-cal')).toBeVisible();
  const callback = page.getByTestId('calibration-criteria').locator('tr[data-criterion="callback"]');
  await expect(callback.getByText('Did the agent offer to call back?')).toBeVisible();
  await shot(page, 'calibration-results');

  // The calibrated answer, applied to the audit as a revision naming the session.
  const row = page.locator('section[data-task="e2e-calibration-1.json"] tr[data-criterion="callback"]');
  await row.getByRole('combobox').selectOption('does_not_comply');
  await row.getByRole('textbox').fill('Agreed: no call back was offered.');
  await page.getByRole('button', { name: 'Save the calibrated answers' }).click();
  await expect(page.getByText('Calibrated answers saved.')).toBeVisible();
  await page.locator('section[data-task="e2e-calibration-1.json"]').getByRole('button', { name: 'Apply to the audit' }).click();
  await expect(page.locator('section[data-task="e2e-calibration-1.json"]').getByText(/^Applied/)).toBeVisible();

  // The history: the list with its alpha and the chart of agreement.
  await page.getByRole('link', { name: 'Calibration', exact: true }).click();
  const listed = page.getByTestId('calibration-sessions').locator('tr[data-session="E2E calibration"]');
  await expect(listed).toBeVisible();
  await expect(listed.getByTestId('session-alpha'), 'alpha in the list').toHaveText(alpha!.toFixed(2));
  await expect(async () => {
    const drawn = await page.getByTestId('chart').evaluateAll((cs) => cs.map((c) => (c as HTMLCanvasElement).width > 0));
    expect(drawn, 'history chart').toEqual([true]);
  }).toPass();
  await shot(page, 'calibration-list');

  // In Spanish, the supervisor reads the same results.
  await inSpanish(browser, `${base}/app/calibration/${id}`, { username: 'carmen', roles: ['supervisor'] }, async (p) => {
    await expect(p.getByRole('heading', { name: 'Resultados' }).first()).toBeVisible();
    await expect(p.getByTestId('overall-alpha')).toHaveText(alpha!.toFixed(2).replace('.', ','));
    await expect(p.getByRole('columnheader', { name: 'Alfa de Krippendorff' }).first()).toBeVisible();
    await shot(p, 'calibration-results-es');
    await p.getByRole('link', { name: 'Calibración', exact: true }).click();
    await expect(p.getByRole('heading', { name: 'Sesiones de calibración' })).toBeVisible();
    await shot(p, 'calibration-list-es');
  });
});
