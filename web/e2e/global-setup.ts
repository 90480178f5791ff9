// Playwright's global setup: the servers every test shares, started once
// before the first test and stopped after the last. A fake SMTP server
// receives the validation e-mails; `auditd all` serves the dashboard with the
// development sign-in; a second API process on the same database signs in
// through a fake OIDC provider on loopback (its wire protocol only). The
// workers find them through the E2E_* variables set here.
import { mkdirSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { startFakeIssuer } from './oidc-issuer.mjs';
import { artifacts, startAuditd } from './servers';
import { startSMTPSink } from './smtp-sink.mjs';

export default async function globalSetup() {
  mkdirSync(artifacts, { recursive: true });
  // A previous run's screenshots and logs would be mistaken for this one's.
  for (const f of readdirSync(artifacts)) if (/\.(png|log)$/.test(f)) rmSync(join(artifacts, f));
  const smtp = await startSMTPSink();
  const issuer = await startFakeIssuer({
    clientId: 'auditd-dashboard',
    audience: 'auditd-e2e',
    tokenLifetime: 8,
    user: { sub: 'ines', name: 'Inés García', roles: ['supervisor'] },
  });
  // One after the other: the first migrates the database.
  const all = await startAuditd('auditd-all', 'all', {
    AUTH_DEV: 'true',
    SMTP_URL: smtp.url,
    MAIL_FROM: 'auditd@example.test',
    WEBHOOK_ALLOW_PRIVATE: 'true', // the webhooks test's receiver is on loopback
  });
  const serveOIDC = await startAuditd('auditd-serve-oidc', 'serve', {
    OIDC_ISSUER_URL: issuer.url,
    OIDC_AUDIENCE: 'auditd-e2e',
    OIDC_WEB_CLIENT_ID: 'auditd-dashboard',
  });
  const servers = [all, serveOIDC];
  process.env.E2E_BASE = all.base;
  process.env.E2E_OIDC_BASE = serveOIDC.base;
  process.env.E2E_ISSUER = issuer.url;
  process.env.E2E_SMTP_INBOX = smtp.inbox;
  return async () => {
    await Promise.all(servers.map((s) => s.stop()));
    await Promise.all([issuer.close(), smtp.close()]);
  };
}
