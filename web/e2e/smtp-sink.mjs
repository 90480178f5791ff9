// A minimal SMTP server on loopback for the end-to-end tests: it accepts
// every message (plain SMTP, no TLS, no auth) and keeps it, so a test can
// check what auditd sent: the messages are served as JSON at inbox, over
// HTTP on loopback (the tests run in Playwright's worker, another process).
// Only the commands a client sends to deliver are understood.
import { createServer as createHTTPServer } from 'node:http';
import { createServer } from 'node:net';

export async function startSMTPSink() {
  const messages = [];
  const server = createServer((sock) => {
    let buf = '';
    let data = null; // the message being received after DATA
    let rcpt = [];
    sock.write('220 e2e-smtp-sink ready\r\n');
    sock.on('data', (chunk) => {
      buf += chunk.toString('latin1');
      for (;;) {
        if (data !== null) {
          const end = buf.indexOf('\r\n.\r\n');
          if (end < 0) return;
          data += buf.slice(0, end);
          buf = buf.slice(end + 5);
          messages.push({ rcpt, data: data.replace(/\r\n\.\./g, '\r\n.') });
          data = null;
          rcpt = [];
          sock.write('250 queued\r\n');
          continue;
        }
        const nl = buf.indexOf('\r\n');
        if (nl < 0) return;
        const line = buf.slice(0, nl);
        buf = buf.slice(nl + 2);
        const verb = line.slice(0, 4).toUpperCase();
        if (verb === 'EHLO' || verb === 'HELO') sock.write('250-e2e-smtp-sink\r\n250 8BITMIME\r\n');
        else if (verb === 'RCPT') {
          rcpt.push(line.replace(/^RCPT TO:\s*<?([^>]*)>?.*$/i, '$1'));
          sock.write('250 ok\r\n');
        } else if (verb === 'DATA') {
          data = '';
          sock.write('354 go ahead\r\n');
        } else if (verb === 'QUIT') {
          sock.end('221 bye\r\n');
          return;
        } else sock.write('250 ok\r\n'); // MAIL, RSET, NOOP
      }
    });
    sock.on('error', () => {});
  });
  const inbox = createHTTPServer((_, res) => res.writeHead(200, { 'Content-Type': 'application/json' }).end(JSON.stringify(messages)));
  await Promise.all([server, inbox].map((s) => new Promise((resolve) => s.listen(0, '127.0.0.1', resolve))));
  return {
    url: `smtp://127.0.0.1:${server.address().port}?tls=none`,
    inbox: `http://127.0.0.1:${inbox.address().port}/`,
    close: () => Promise.all([server, inbox].map((s) => new Promise((resolve) => s.close(resolve)))),
  };
}
