import { readFileSync, rmSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { createServer as createHTTPServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import {
  expect,
  test,
  api,
  audited,
  devToken,
  psql,
  shot,
  signIn,
  inSpanish,
  openUpload,
  upload,
  stereoCall,
  analysedCall,
} from './fixtures';
import { artifacts, databaseURL, startAuditd, type Auditd } from './servers';

test('a call: its language checked at upload, transcribed, played from an authorised blob, a segment seeks the player', async ({
  page,
  base,
  browser,
}) => {
  // A few spoken seconds, as a contact centre's 8 kHz mono recording.
  const wav = join(artifacts, 'e2e-call.wav');
  execFileSync('espeak-ng', ['-w', wav + '.tmp.wav', 'Good morning, my name is Olga. How can I help you? Thank you for calling, goodbye.']);
  execFileSync('ffmpeg', ['-loglevel', 'error', '-y', '-i', wav + '.tmp.wav', '-ar', '8000', '-ac', '1', wav]);
  rmSync(wav + '.tmp.wav');
  await page.goto(base + '/');
  await signIn(page, { username: 'carla', roles: ['quality'] });
  await expect(page.getByRole('main').getByText('Live')).toBeVisible();
  // The form says what the engine transcribes, and a call in another
  // language is refused at once, saying why.
  await openUpload(page);
  await expect(page.getByTestId('speech').getByText('Calls are transcribed in English (en), by pocketsphinx.')).toBeVisible();
  await page.getByLabel('Language (optional)').fill('es');
  await page.getByLabel('Choose files').setInputFiles(wav);
  const refused = page.getByRole('list', { name: 'Uploads' }).locator('li[data-file="e2e-call.wav"]').getByRole('alert');
  await expect(
    refused.getByText(
      /^e2e-call\.wav is a call in Spanish \(es\), which the speech engine does not transcribe: it transcribes English \(en\)\./,
    ),
  ).toBeVisible();
  await shot(page, 'upload-language-refused');
  await inSpanish(browser, base + '/', { username: 'carla', roles: ['quality'] }, async (p) => {
    await openUpload(p);
    await expect(p.getByTestId('speech').getByText('Las llamadas se transcriben en inglés (en), con pocketsphinx.')).toBeVisible();
    await p.getByLabel('Idioma (opcional)').fill('es-MX');
    await p.getByLabel('Elegir archivos').setInputFiles(wav);
    const alert = p.getByRole('list', { name: 'Subidas' }).locator('li[data-file="e2e-call.wav"]').getByRole('alert');
    await expect(
      alert.getByText(/^e2e-call\.wav es una llamada en español \(es-MX\), que el motor de voz no transcribe: transcribe inglés \(en\)\./),
    ).toBeVisible();
    await shot(p, 'upload-language-refused-es');
  });

  // With no language, the call takes the campaign's, Spanish: refused too,
  // never transcribed as English without being asked.
  await openUpload(page);
  await page.getByLabel('Language (optional)').fill('');
  await page.getByLabel('Choose files').setInputFiles(wav);
  const newest = page.getByRole('list', { name: 'Uploads' }).locator('li[data-file="e2e-call.wav"]').first().getByRole('alert');
  await expect(
    newest.getByText(
      /^e2e-call\.wav was sent with no language, so it takes its campaign’s \(default\): Spanish \(es\), which the speech engine does not transcribe: it transcribes English \(en\)\./,
    ),
  ).toBeVisible();
  // Said to be English, it is transcribed.
  await openUpload(page);
  await page.getByLabel('Language (optional)').fill('en');
  await page.getByLabel('Choose files').setInputFiles(wav);
  const row = page.locator('tbody tr').filter({ hasText: 'e2e-call.wav' });
  await expect(row).toBeVisible();
  await expect(row).toHaveAttribute('data-status', 'audited', { timeout: 40_000 });
  await row.getByRole('link', { name: 'e2e-call.wav' }).click();
  await expect(page.getByRole('heading', { name: 'e2e-call.wav' })).toBeVisible();
  const player = page.getByLabel('Recording');
  await expect(player).toBeVisible();
  await expect(player, 'the player does not play from a blob').toHaveAttribute('src', /^blob:/);
  await expect
    .poll(() => player.evaluate((a) => (a as HTMLAudioElement).readyState), { message: 'the recording did not load' })
    .toBeGreaterThanOrEqual(1);
  const segments = page.locator('.segment-button');
  await expect(segments).toBeVisible();
  const last = segments.last();
  await last.click();
  await expect(last.locator('xpath=..'), 'the segment is not highlighted').toHaveAttribute('aria-current', 'true');
  await shot(page, 'task-call');

  // A transcript the engine was unsure of is shown as such, with its reason,
  // in the task and in the list, which filters by it, in both languages (set
  // in the database: PocketSphinx is sure of this synthetic voice's words).
  psql(`UPDATE tasks SET transcript_unreliable = 'low_quality' WHERE file_name = 'e2e-call.wav'`);
  await page.reload();
  await expect(
    page.getByTestId('task-transcript').getByText('the speech engine was unsure of its words: every automatic verdict needs review.'),
  ).toBeVisible();
  await expect(page.getByTestId('task-transcript').getByText('Transcript unreliable')).toBeVisible();
  await shot(page, 'task-transcript-unreliable');
  await inSpanish(browser, base + '/app/tasks?transcript_unreliable=true', { username: 'carla', roles: ['quality'] }, async (p) => {
    await expect(p.locator('tbody tr').filter({ hasText: 'e2e-call.wav' }).getByText('Transcripción no fiable')).toBeVisible();
    await expect(p.getByLabel('Transcripción'), 'the filter is not shown').toHaveValue('true');
  });
  rmSync(wav);
});

test('a stereo call: what its channels tell, both sides on a timeline with dead air, in English and Spanish', async ({
  page,
  base,
  browser,
}) => {
  const wav = stereoCall('e2e-stereo.wav');
  await page.goto(base + '/');
  await signIn(page, { username: 'carla', roles: ['quality'] });
  await expect(page.getByRole('main').getByText('Live')).toBeVisible();
  await openUpload(page);
  await page.getByLabel('Language (optional)').fill('en');
  await page.getByLabel('Choose files').setInputFiles(wav);
  const row = page.locator('tbody tr').filter({ hasText: 'e2e-stereo.wav' });
  await expect(row).toBeVisible();
  await expect(row).toHaveAttribute('data-status', /^(audited|failed)$/, { timeout: 60_000 });
  await row.getByRole('link', { name: 'e2e-stereo.wav' }).click();
  const card = page.getByTestId('channels');
  await expect(card.getByRole('heading', { name: 'What the channels tell' })).toBeVisible();
  await expect(card.getByRole('img', { name: /^Timeline of the call \(/ })).toBeVisible();
  await expect(card.locator('rect.tl-agent').first(), 'no agent talk on the timeline').toBeAttached();
  await expect(card.locator('rect.tl-customer').first(), 'no customer talk on the timeline').toBeAttached();
  await expect(card.locator('rect.tl-dead-air'), 'the dead air is not marked').toHaveCount(1);
  await expect(card.getByTestId('channels-dead-air'), 'one dead air').toHaveText('1');
  await expect(card.getByTestId('channels-ratio'), 'the agent share is not a percentage').toHaveText(/^\d+(\.\d)? %$/);
  await expect(card.getByTestId('channels-longest-silence'), 'the longest silence is not in seconds').toHaveText(/^\d+(\.\d)? s$/);
  await expect(card.getByText('Dead air (≥ 10 s)')).toBeVisible();
  await card.scrollIntoViewIfNeeded();
  await shot(page, 'task-channels');
  await inSpanish(browser, page.url(), { username: 'carla', roles: ['quality'] }, async (p) => {
    const tarjeta = p.getByTestId('channels');
    await expect(tarjeta.getByRole('heading', { name: 'Lo que dicen los canales' })).toBeVisible();
    await expect(tarjeta.getByText('Silencios muertos (≥ 10 s)')).toBeVisible();
    await expect(tarjeta.getByText('Proporción de habla del agente')).toBeVisible();
    await expect(tarjeta.getByTestId('channels-ratio'), 'la proporción no lleva coma decimal').toHaveText(/^\d+(,\d)? %$/);
    await tarjeta.scrollIntoViewIfNeeded();
    await shot(p, 'task-channels-es');
  });
  rmSync(wav);
});

test("the calls' channels: the dashboard's card opens the calls behind each figure; the list filtered by them and the call's facts; an agent has no numbers to filter by; in English and Spanish", async ({
  page,
  base,
  browser,
}) => {
  // The default campaign redacts phone numbers: the caller is not kept, so not filtered by here.
  await analysedCall(base, 'e2e-channels.wav', 'luis', 'nuria', { metadata: '{"tier":"gold"}', started_at: new Date().toISOString() });

  await page.setViewportSize({ width: 1440, height: 900 });
  await page.goto(base + '/app/dashboard?operator=luis');
  await signIn(page, { username: 'nuria', roles: ['quality'] });
  const card = page.getByTestId('dash-channels');
  await expect(card.getByRole('heading', { name: "What the calls' channels tell" })).toBeVisible();
  await expect(card.getByText(/^Over 1 call with its channels analysed \(1 stereo\);/)).toBeVisible();
  await expect(card.getByTestId('dash-channels-calls').locator('dd'), 'not one call analysed').toHaveText('1');
  await expect(card.getByTestId('dash-channels-dead-air').locator('dd'), 'the dead air is not counted').toHaveText('1 (100.0 %)');
  await expect(card.getByTestId('dash-channels-talk').locator('dd'), 'the talk ratio is not a percentage').toHaveText(/^\d+(\.\d)? %$/);
  await card.scrollIntoViewIfNeeded();
  await shot(page, 'dashboard-channels');
  await card.getByTestId('dash-channels-dead-air').getByRole('link').click();
  const row = page.locator('tbody tr').filter({ hasText: 'e2e-channels.wav' });
  await expect(row).toBeVisible();
  expect(page.url(), 'not the calls with dead air').toContain('min_dead_air=1');
  expect(page.url(), 'not the calls with dead air').toContain('operator=luis');
  await expect(page.locator('#tasks-min-dead-air'), 'the dead-air filter is not read from the URL').toHaveValue('1');

  // The call's facts: its custom fields and start, kept in the URL.
  await expect(page.locator('#tasks-caller')).toBeVisible();
  await page.locator('#tasks-metadata').fill('tier=gold');
  await page.locator('#tasks-started-from').fill(await page.evaluate(() => new Date().toLocaleDateString('sv')));
  await page.locator('#tasks-max-silence').fill('1');
  await page.getByRole('button', { name: 'Apply filters' }).click();
  await expect.poll(() => page.url(), 'the metadata filter is not in the URL').toContain('metadata=tier%3Dgold');
  expect(page.url()).toContain('started_from=');
  expect(page.url()).toContain('max_silence_share=1');
  await expect(row).toBeVisible();
  await expect(page.locator('tbody tr'), 'more than the call').toHaveCount(1);
  await page.locator('#tasks-metadata').fill('tier=silver');
  await page.getByRole('button', { name: 'Apply filters' }).click();
  await expect(row).toBeHidden();
  await page.locator('#tasks-metadata').fill('tier=gold');
  await page.getByRole('button', { name: 'Apply filters' }).click();
  await expect(row).toBeVisible();
  await page.getByTestId('call-filters').scrollIntoViewIfNeeded();
  await shot(page, 'tasks-call-filters');

  await inSpanish(browser, `${base}/app/dashboard?operator=luis`, { username: 'nuria', roles: ['quality'] }, async (p) => {
    await p.setViewportSize({ width: 1440, height: 900 });
    const tarjeta = p.getByTestId('dash-channels');
    await expect(tarjeta.getByRole('heading', { name: 'Lo que dicen los canales de las llamadas' })).toBeVisible();
    await expect(tarjeta.getByText('Llamadas con silencios muertos')).toBeVisible();
    await expect(tarjeta.getByTestId('dash-channels-talk').locator('dd'), 'la proporción no lleva coma decimal').toHaveText(
      /^\d+(,\d)? %$/,
    );
    await expect(tarjeta.getByText(/^Sobre 1 llamada con sus canales analizados \(1 en estéreo\);/)).toBeVisible();
    await tarjeta.scrollIntoViewIfNeeded();
    await shot(p, 'dashboard-channels-es');
  });
  // An agent filters by what the channels tell of their calls, not by numbers or custom fields (403 for them).
  await inSpanish(browser, `${base}/app/tasks?min_dead_air=1`, { username: 'luis', roles: ['operator'], exact: true }, async (p) => {
    await p.setViewportSize({ width: 1440, height: 900 });
    await expect(p.locator('tbody tr').filter({ hasText: 'e2e-channels.wav' })).toBeVisible();
    await expect(p.getByLabel('Silencios muertos ≥')).toBeVisible();
    await expect(p.locator('#tasks-caller, #tasks-called, #tasks-metadata'), 'un agente ve los filtros de números').toHaveCount(0);
    await p.getByTestId('call-filters').scrollIntoViewIfNeeded();
    await shot(p, 'tasks-call-filters-agent-es');
  });
});

test('a call whose transcription is retried: analysts see the attempt, why and when the next is due, live, the agent not; gone once transcribed; in English and Spanish', async ({
  page,
  browser,
}) => {
  // An OpenAI-compatible speech server on loopback (its wire protocol
  // only): the first request fails with 503, the second waits until the
  // test has looked, then is answered with a transcript.
  let requests = 0;
  let release = () => {};
  const released = new Promise<void>((ok) => (release = ok));
  const speech = createHTTPServer((req, res) => {
    req.resume();
    req.on('end', async () => {
      requests++;
      if (requests === 1) {
        res.writeHead(503, { 'Content-Type': 'application/json' }).end('{"error":{"message":"Overloaded, try again"}}');
        return;
      }
      await released;
      res.writeHead(200, { 'Content-Type': 'application/json' }).end(
        JSON.stringify({
          task: 'transcribe',
          language: 'english',
          duration: 2,
          text: 'Good morning. How can I help?',
          segments: [
            { start: 0.2, end: 0.9, text: ' Good morning.' },
            { start: 1.0, end: 1.9, text: ' How can I help?' },
          ],
        }),
      );
    });
  });
  await new Promise<void>((ok) => speech.listen(0, '127.0.0.1', ok));
  // Its own auditd and database: the shared one's workers transcribe with
  // PocketSphinx and would take the call.
  const name = `e2e_retry_${Date.now()}`;
  const [path, query = ''] = databaseURL.split('?');
  const ownURL = `${path.slice(0, path.lastIndexOf('/'))}/${name}${query ? `?${query}` : ''}`;
  psql(`CREATE DATABASE ${name}`);
  let auditd: Auditd | undefined;
  try {
    auditd = await startAuditd('auditd-retry', 'all', {
      DATABASE_URL: ownURL,
      AUTH_DEV: 'true',
      ASR_ENGINE: 'openai',
      ASR_BASE_URL: `http://127.0.0.1:${(speech.address() as AddressInfo).port}`,
      ASR_API_KEY: 'sk-e2e',
      ASR_MODEL: 'whisper-1',
      JOB_RETRY_MAX_DELAY: '1s',
    });
    const base = auditd.base;
    const qa = await devToken(base, 'rita', ['quality']);
    const agent = await devToken(base, 'retry-agent', ['operator']);
    await api(base, agent, 'GET', '/users/me');
    const wav = join(artifacts, 'e2e-retry.wav');
    execFileSync('ffmpeg', ['-loglevel', 'error', '-y', '-f', 'lavfi', '-i', 'sine=frequency=440:duration=2', '-ar', '8000', wav]);
    const uuid = await upload(base, qa, 'e2e-retry.wav', readFileSync(wav), { language: 'en', operator: 'retry-agent' }, 'audio/wav');
    await expect.poll(() => requests, { timeout: 20_000 }).toBe(2);

    await page.goto(`${base}/app/tasks/${uuid}`);
    await signIn(page, { username: 'rita', roles: ['quality'] });
    const notice = page.getByTestId('task-retry');
    await expect(notice.getByText('Transcription: attempt 1 of 5 did not finish.')).toBeVisible();
    await expect(notice.getByText('The speech server answered with an error.')).toBeVisible();
    await expect(notice.getByText('Detail: the speech server answered 503 Service Unavailable: Overloaded, try again')).toBeVisible();
    await expect(notice.getByText(/^The next attempt (is due at .+|is under way)\.$/)).toBeVisible();
    await shot(page, 'task-retry');
    // Not the agent's.
    expect(await api(base, agent, 'GET', `/tasks/${uuid}`), 'the agent sees the retry').not.toHaveProperty('retry');
    await inSpanish(browser, `${base}/app/tasks/${uuid}`, { username: 'rita', roles: ['quality'] }, async (es) => {
      const aviso = es.getByTestId('task-retry');
      await expect(aviso.getByText('Transcripción: el intento 1 de 5 no terminó.')).toBeVisible();
      await expect(aviso.getByText('El servidor de voz respondió con un error.')).toBeVisible();
      await expect(aviso.getByText(/^Detalle \(en inglés\): the speech server answered 503/)).toBeVisible();
      await shot(es, 'task-retry-es');
    });

    // Answered: the notice goes, live, and the call is transcribed.
    release();
    await expect(notice).toBeHidden();
    await expect(page.getByText('How can I help?')).toBeVisible();
    await audited(base, qa, uuid);
  } finally {
    release();
    await auditd?.stop();
    speech.close();
    psql(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  }
});
