// The dashboard's end-to-end tests (e2e/*.spec.ts) in Debian's headless
// Chromium against a real `auditd all` (global-setup.ts), run by
// scripts/e2e.sh, which builds the binary and makes the database. One worker:
// the tests share one server on a 2-core machine. A failed test leaves its
// screenshot and error context in e2e/artifacts/results, and is run once
// more with a trace (`npx playwright show-trace <trace.zip>`, in its
// -retry1 folder): recording one for every test made a run about a third
// slower. A flaky test (failed, then passed) still fails the run.
import { defineConfig } from '@playwright/test';

export default defineConfig({
  testDir: 'e2e',
  outputDir: 'e2e/artifacts/results',
  globalSetup: './e2e/global-setup.ts',
  workers: 1,
  retries: 1,
  failOnFlakyTests: true,
  timeout: 45_000,
  // How long one expectation may take to come true.
  expect: { timeout: 10_000, toPass: { timeout: 10_000 } },
  reporter: 'list',
  forbidOnly: !!process.env.CI,
  use: {
    locale: 'en-GB',
    viewport: { width: 1280, height: 800 },
    trace: 'on-first-retry',
    screenshot: 'only-on-failure',
    launchOptions: {
      executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium',
      args: [
        '--headless',
        '--no-sandbox',
        '--disable-gpu',
        '--disable-background-networking',
        '--disable-component-update',
        '--no-first-run',
      ],
    },
  },
});
