import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SMTPServer } from 'smtp-server';
import { smtpTransport } from './transport.js';

/**
 * SMTP credentials and TLS: with a user and password, `smtp://` requires STARTTLS (nodemailer
 * `requireTLS`) unless the URL says `?requireTLS=false`, so that a server, or an attacker on the path,
 * that offers no STARTTLS never receives the password in clear.
 */
describe('SMTP transport with credentials', () => {
  let server: SMTPServer;
  let port: number;
  const logins: string[] = [];
  const received: string[] = [];
  beforeAll(async () => {
    server = new SMTPServer({
      disabledCommands: ['STARTTLS'],
      allowInsecureAuth: true,
      logger: false,
      onAuth(auth, _session, cb) {
        logins.push(`${auth.username}:${auth.password}`);
        cb(null, { user: auth.username });
      },
      onData(stream, session, cb) {
        stream.resume();
        stream.on('end', () => {
          received.push(session.envelope.rcptTo[0].address);
          cb();
        });
      },
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.server.address() as { port: number }).port;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  const message = (to: string) => ({ from: 'a@example.test', to, subject: 's', text: 't' });

  it.each(['?requireTLS=true', ''])(
    'refuses to authenticate over a connection without STARTTLS (URL suffix %j: required by default)',
    async (suffix) => {
      const t = smtpTransport(`smtp://mailer:secret@127.0.0.1:${port}${suffix}`);
      try {
        await expect(t.send(message('plain@example.test'))).rejects.toThrow(/STARTTLS/i);
        await expect(t.send(message('handoff@example.test'), { beforeHandOff: async () => undefined })).rejects.toThrow(
          /STARTTLS/i,
        );
      } finally {
        await t.close();
      }
      expect(logins).toEqual([]);
      expect(received).toEqual([]);
    },
  );

  it('sends the credentials in clear only when the URL says requireTLS=false', async () => {
    const t = smtpTransport(`smtp://mailer:secret@127.0.0.1:${port}?requireTLS=false`);
    try {
      await t.send(message('clear@example.test'));
    } finally {
      await t.close();
    }
    expect(logins).toEqual(['mailer:secret']);
    expect(received).toEqual(['clear@example.test']);
  });
});
