import {
  expect,
  test,
  api,
  devToken,
  psql,
  shot,
  signIn,
  inSpanish,
  chat,
  rulesCampaign,
  uploadAudited,
  confirmPending,
  analysedCall,
} from './fixtures';

test('dashboard: figures and charts of the period, filters in the URL', async ({ page, base }) => {
  const quality = await devToken(base, 'dana', ['quality']);
  const pablo = await uploadAudited(base, quality, 'e2e-chat-3.json', chat('Pablo'), { operator: 'pablo' });
  // Pending verdicts count only as pending review until an analyst confirms them.
  await confirmPending(base, quality, pablo);
  await page.goto(base + '/');
  await signIn(page, { username: 'dana', roles: ['quality'] });
  await page.getByRole('link', { name: 'Dashboard' }).click();
  await expect(page.getByRole('heading', { name: 'Dashboard' })).toBeVisible();
  const figures = page.getByTestId('dash-figures');
  await expect(figures).toBeVisible();
  await expect(figures.locator('div').filter({ hasText: 'Audited' }).locator('dd')).not.toHaveText('0');
  await expect(page.getByRole('heading', { name: 'Tasks per day' })).toBeVisible();
  // Every chart is drawn: the library loaded (lazily) and painted its canvas.
  await expect(async () => {
    const drawn = await page
      .getByTestId('chart')
      .evaluateAll((cs) => cs.map((c) => (c as HTMLCanvasElement).width > 0 && !!window.getComputedStyle(c).height));
    expect(drawn).toEqual([true, true, true, true, true]);
  }).toPass();
  await page.getByRole('region', { name: 'Agents by average score, lowest first' }).getByText('Figures as a table').click();
  await expect(
    page.getByRole('region', { name: 'Agents by average score, lowest first' }).getByRole('cell', { name: 'pablo' }),
  ).toBeVisible();
  await shot(page, 'dashboard');
  // A chart leads to the tasks behind it: the agent's bar (here its row in
  // the table, the same link) opens the list filtered to them, over the
  // dashboard's period.
  await page.getByRole('region', { name: 'Agents by average score, lowest first' }).getByRole('link', { name: 'pablo' }).click();
  await expect(page.getByRole('heading', { name: 'Tasks' })).toBeVisible();
  const behind = new URL(page.url()).searchParams;
  expect(behind.get('operator')).toBe('pablo');
  expect(behind.get('from'), page.url()).toBeTruthy();
  expect(behind.get('to'), page.url()).toBeTruthy();
  await expect(page.locator('tbody tr').filter({ hasText: 'e2e-chat-3.json' })).toBeVisible();
  await expect(page.locator('tbody tr')).toHaveCount(1);
  await shot(page, 'dashboard-click-through');
  await page.goBack();
  await expect(page.getByRole('heading', { name: 'Dashboard' })).toBeVisible();
  // The criteria failed most lead to the audits that failed them.
  const criteria = page.getByRole('region', { name: 'Criteria failed most' });
  await criteria.getByText('Figures as a table').click();
  await criteria.getByRole('link').first().click();
  await expect(page.getByRole('heading', { name: 'Tasks' })).toBeVisible();
  expect(new URL(page.url()).searchParams.get('failed_criterion'), page.url()).toBeTruthy();
  await expect(page.locator('tbody tr').first()).toBeVisible();
  await shot(page, 'dashboard-criterion-tasks');
  await page.goBack();
  await expect(page.getByRole('heading', { name: 'Dashboard' })).toBeVisible();
  await page.getByLabel('Agent', { exact: true }).fill('nobody-here');
  await page.getByRole('button', { name: 'Apply filters' }).click();
  await expect.poll(() => new URL(page.url()).search).toBe('?operator=nobody-here');
  await expect(figures.locator('div').filter({ hasText: 'Tasks' }).getByText('0', { exact: true })).toBeVisible();
});

test('reports: agents and criteria by week, analysts; each figure opens its tasks; in English and Spanish', async ({
  page,
  browser,
  base,
}) => {
  // A campaign of its own, whose rules give known verdicts: a chat
  // without "we will call you back" fails the callback (score 66.67).
  const sup = await devToken(base, 'sofia', ['supervisor']);
  const quality = await devToken(base, 'rosa', ['quality']);
  await rulesCampaign(base, sup, 'e2e-reports');
  const send = (name: string, operator: string, body: string) =>
    uploadAudited(base, quality, name, body, { campaign: 'e2e-reports', operator });
  // xavi: 100 and 66.67; yara: 66.67, which rosa corrects to 100; rosa validates xavi's 100.
  const full = await send('e2e-reports-1.json', 'xavi', chat('Xavi').replace('goodbye', 'we will call you back tomorrow, goodbye'));
  const second = await send('e2e-reports-2.json', 'xavi', chat('Xavi'));
  const yara = await send('e2e-reports-3.json', 'yara', chat('Yara'));
  // Verdicts the rules are unsure of count only once an analyst confirms them.
  const quinn = await devToken(base, 'quinn', ['quality']); // another analyst: rosa's figures stay hers
  for (const uuid of [full, second, yara]) await confirmPending(base, quinn, uuid);
  const task = await api(base, quality, 'GET', `/tasks/${yara}`);
  const item = task.audit.items.find((i: any) => i.criterion_id === 'callback');
  await api(base, quality, 'POST', '/compute-audit-results', {
    task_uuid: yara,
    file_name: 'e2e-reports-3.json',
    isCall: false,
    audit: [{ category: item.category, question: item.question, complies: true, explanation: 'Offered a call back in other words.' }],
  });
  await expect.poll(async () => (await api(base, quality, 'GET', `/tasks/${yara}`)).audit.score).toBe(100);
  await api(base, quality, 'POST', '/validate-audit', { task_uuid: full, notes: 'Good call.', isCall: false, accept_pending: true });
  // xavi's 100 was uploaded a week ago: his average fell by 33.3 since.
  psql(`UPDATE tasks SET created_at = created_at - interval '7 days' WHERE uuid = '${full}'`);

  await page.goto(base + '/');
  await signIn(page, { username: 'rosa', roles: ['quality'] });
  await page.getByRole('link', { name: 'Reports', exact: true }).click();
  await expect(page.getByRole('heading', { name: 'Reports' })).toBeVisible();
  await page.getByLabel('Campaign').fill('e2e-reports');
  await page.getByRole('button', { name: 'Apply filters' }).click();
  await expect.poll(() => new URL(page.url()).search).toBe('?campaign=e2e-reports');
  const agents = page.getByTestId('agents');
  const xavi = agents.locator('tr[data-agent="xavi"]');
  await expect(xavi).toBeVisible();
  await expect(xavi.locator('td').nth(0)).toHaveText('2');
  await expect(xavi.locator('td').nth(1)).toHaveText('83.3');
  await expect(xavi.locator('td').nth(2)).toHaveText('50%');
  await expect(xavi.locator('td').nth(4)).toHaveText(/^66\.7/);
  await expect(xavi.locator('td').nth(5)).toHaveText('-33.3');
  const yaraRow = agents.locator('tr[data-agent="yara"]');
  await expect(yaraRow.locator('td').nth(1)).toHaveText('100');
  await expect(agents.locator('tbody tr'), 'other agents in the campaign').toHaveCount(2);
  // Each agent's line of weekly averages is drawn.
  await expect(async () => {
    const drawn = await agents.getByTestId('sparkline').evaluateAll((cs) => cs.map((c) => (c as HTMLCanvasElement).width > 0));
    expect(drawn, 'sparklines').toEqual([true, true]);
  }).toPass();
  const criteria = page.getByRole('region', { name: 'Failed share of each criterion by week (%)' });
  await expect(criteria.getByTestId('chart')).toBeVisible();
  await criteria.getByText('Figures as a table').click();
  const callback = criteria.locator('tbody tr').filter({ hasText: 'Did the agent offer to call back?' });
  await expect(callback.getByText('33.3% (1/3)')).toBeVisible();
  await expect(callback.getByRole('link', { name: '0% (0/1)' })).toBeVisible();
  const analysts = page.getByTestId('analysts');
  const rosa = analysts.locator('tr[data-analyst="rosa"]');
  await expect(rosa).toBeVisible();
  const cells = await rosa.locator('td').allTextContents();
  expect([cells[0], cells[1], cells[2], cells[4]], 'rosa').toEqual(['1', '1', '1', '2']);
  expect(cells[3]).toMatch(/\d+ (sec|min)/);
  await page.evaluate(() => window.scrollTo(0, 0));
  await shot(page, 'reports');

  // An agent's week opens their tasks of that week.
  await page.getByText('Average score by week, as a table').click();
  await expect(page.getByRole('link', { name: '100 (1)' }).first()).toBeVisible();
  await page.getByRole('link', { name: '66.7 (1)' }).click();
  await expect(page.getByRole('heading', { name: 'Tasks' })).toBeVisible();
  const behind = new URL(page.url()).searchParams;
  expect([behind.get('operator'), behind.get('campaign')]).toEqual(['xavi', 'e2e-reports']);
  const [from, to] = [behind.get('from'), behind.get('to')];
  expect(from && to, page.url()).toBeTruthy();
  expect(Date.parse(to!) - Date.parse(from!), `more than a week: ${page.url()}`).toBeLessThanOrEqual(6 * 86400_000);
  await expect(page.locator('tbody tr').filter({ hasText: 'e2e-reports-2.json' })).toBeVisible();
  await expect(page.locator('tbody tr')).toHaveCount(1);
  await shot(page, 'reports-click-through');
  // A criterion's week opens the audits that failed it then.
  await page.goBack();
  await expect(page.getByRole('heading', { name: 'Reports' })).toBeVisible();
  await criteria.getByText('Figures as a table').click();
  await criteria
    .locator('tbody tr')
    .filter({ hasText: 'Did the agent offer to call back?' })
    .getByRole('link', { name: '50% (1/2)' })
    .click();
  await expect(page.getByRole('heading', { name: 'Tasks' })).toBeVisible();
  expect(new URL(page.url()).searchParams.get('failed_criterion')).toBe('callback');
  await expect(page.locator('tbody tr')).toHaveCount(1);
  await expect(page.locator('tbody tr').filter({ hasText: 'e2e-reports-2.json' })).toBeVisible();
  await shot(page, 'reports-criterion-tasks');

  await inSpanish(
    browser,
    `${base}/app/reports?campaign=e2e-reports&sort=change&order=asc`,
    { username: 'rosa', roles: ['quality'] },
    async (p) => {
      await expect(p.getByRole('heading', { name: 'Informes' })).toBeVisible();
      await expect(p.getByRole('heading', { name: 'Agentes semana a semana' })).toBeVisible();
      const row = p.getByTestId('agents').locator('tbody tr').first();
      await expect(row).toBeVisible();
      await expect(row, 'the change of -33.3 first').toHaveAttribute('data-agent', 'xavi');
      await expect(row.locator('td').nth(1)).toHaveText('83,3');
      await expect(row.locator('td').nth(5)).toHaveText('-33,3');
      await expect(p.getByRole('columnheader', { name: 'Cambio' })).toBeVisible();
      await expect(p.getByRole('columnheader', { name: /Cambio/ }), 'sorted by change').toHaveAttribute('aria-sort', 'ascending');
      await expect(p.getByRole('heading', { name: 'Productividad de los analistas' })).toBeVisible();
      await expect(p.getByTestId('analysts').getByRole('rowheader', { name: 'Todos' })).toBeVisible();
      await expect(
        p.getByRole('region', { name: 'Porcentaje de incumplimiento de cada criterio por semana (%)' }).getByTestId('chart'),
      ).toBeVisible();
      await shot(p, 'reports-es');
    },
  );
});

test("reports: what the calls' channels tell, week by week; each figure opens that week's calls; in English and Spanish", async ({
  page,
  base,
  browser,
}) => {
  await analysedCall(base, 'e2e-report-channels.wav', 'leo', 'nuria');
  await page.setViewportSize({ width: 1440, height: 900 });
  // The period, then the weeks (this one first), each figure opening its calls.
  await page.goto(base + '/app/reports?operator=leo');
  await signIn(page, { username: 'nuria', roles: ['quality'] });
  const report = page.getByTestId('report-channels');
  await expect(report.getByRole('heading', { name: "What the calls' channels tell, week by week" })).toBeVisible();
  await expect(report.getByText(/^Over 1 call with its channels analysed \(1 stereo\);/)).toBeVisible();
  const deadAir = report.getByTestId('dash-channels-dead-air').locator('td');
  await expect(deadAir.nth(0), 'the period has not the dead air').toHaveText('1 (100.0 %)');
  await expect(deadAir.nth(1), 'this week has not the dead air').toHaveText('1 (100.0 %)');
  await expect(deadAir.nth(2), 'last week has calls').toHaveText('—');
  await expect(report.getByTestId('dash-channels-talk').locator('td').nth(1), "the week's talk ratio is not a percentage").toHaveText(
    /^\d+(\.\d)? %$/,
  );
  await report.scrollIntoViewIfNeeded();
  await shot(page, 'reports-channels');
  await deadAir.nth(1).getByRole('link').click();
  await expect(page.locator('tbody tr').filter({ hasText: 'e2e-report-channels.wav' })).toBeVisible();
  expect(page.url(), "not the week's calls with dead air").toContain('min_dead_air=1');
  expect(page.url(), "not the week's calls with dead air").toContain('operator=leo');
  await inSpanish(browser, `${base}/app/reports?operator=leo`, { username: 'nuria', roles: ['quality'] }, async (p) => {
    await p.setViewportSize({ width: 1440, height: 900 });
    const informe = p.getByTestId('report-channels');
    await expect(informe.getByRole('heading', { name: 'Lo que dicen los canales de las llamadas, semana a semana' })).toBeVisible();
    await expect(informe.getByRole('rowheader', { name: 'Llamadas con silencios muertos' })).toBeVisible();
    await expect(
      informe.getByTestId('dash-channels-dead-air').locator('td').nth(1),
      'el silencio muerto de la semana no lleva coma decimal',
    ).toHaveText('1 (100,0 %)');
    await informe.scrollIntoViewIfNeeded();
    await shot(p, 'reports-channels-es');
  });
});
