// The dashboard's end-to-end tests (e2e/*.spec.ts) in Debian's headless
// Chromium against a real `auditd all` (global-setup.ts), run by
// scripts/e2e.sh, which builds the binary and makes the database. One worker:
// the tests share one server on a 2-core machine. A flaky test fails (no
// retries); a failed one leaves its trace and screenshot in
// e2e/artifacts/results (`npx playwright show-trace <trace.zip>`).
import { defineConfig } from '@playwright/test';

export default defineConfig({
  testDir: 'e2e',
  outputDir: 'e2e/artifacts/results',
  globalSetup: './e2e/global-setup.ts',
  workers: 1,
  retries: 0,
  timeout: 45_000,
  // How long one expectation may take to come true.
  expect: { timeout: 10_000, toPass: { timeout: 10_000 } },
  reporter: 'list',
  forbidOnly: !!process.env.CI,
  use: {
    locale: 'en-GB',
    viewport: { width: 1280, height: 800 },
    trace: 'retain-on-failure',
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
