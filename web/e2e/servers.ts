// The processes the end-to-end tests run against: `auditd` (AUDITD_BIN,
// built by scripts/e2e.sh) on DATABASE_URL, its log among the artifacts.
import { spawn } from 'node:child_process';
import { createWriteStream, mkdirSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { createServer } from 'node:net';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** artifacts is where screenshots, logs and the files tests make go (E2E_ARTIFACTS, else e2e/artifacts). */
export const artifacts = process.env.E2E_ARTIFACTS ?? join(dirname(fileURLToPath(import.meta.url)), 'artifacts');

/** databaseURL is the fresh database scripts/e2e.sh made for this run. */
export const databaseURL = process.env.DATABASE_URL ?? '';

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as AddressInfo;
      srv.close(() => resolve(port));
    });
  });
}

/** children are the auditd processes still running: killed if the process that started them exits first. */
const children = new Set<ReturnType<typeof spawn>>();
process.on('exit', () => {
  for (const c of children) c.kill('SIGKILL');
});

export interface Auditd {
  base: string;
  stop: () => Promise<void>;
}

/** startAuditd runs `auditd <cmd>` with env and waits until it is ready; its log goes to the artifacts as name.log. */
export async function startAuditd(name: string, cmd: string, env: Record<string, string>): Promise<Auditd> {
  const bin = process.env.AUDITD_BIN;
  if (!bin || !databaseURL) throw new Error('set AUDITD_BIN and DATABASE_URL (scripts/e2e.sh does)');
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  mkdirSync(artifacts, { recursive: true });
  const log = createWriteStream(join(artifacts, `${name}.log`));
  const proc = spawn(bin, [cmd], {
    env: {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      DATABASE_URL: databaseURL,
      LISTEN_ADDR: `127.0.0.1:${port}`,
      LOG_LEVEL: 'info',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  proc.stdout.pipe(log);
  proc.stderr.pipe(log);
  let exited: number | null = null;
  children.add(proc);
  proc.on('exit', (code) => {
    exited = code ?? -1;
    children.delete(proc);
  });
  const deadline = Date.now() + 30_000;
  for (;;) {
    if (exited !== null) throw new Error(`auditd ${cmd} exited with ${exited}; see ${name}.log`);
    try {
      if ((await fetch(`${base}/ready`)).ok) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      proc.kill('SIGKILL');
      throw new Error(`auditd ${cmd} not ready after 30s; see ${name}.log`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    base,
    stop: () =>
      new Promise((resolve) => {
        if (exited !== null) return resolve();
        proc.on('exit', () => resolve());
        proc.kill('SIGTERM');
      }),
  };
}
