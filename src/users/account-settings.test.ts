import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUser, uniqueEmail } from '../../test/factories.js';
import { createHarness, type Harness } from '../../test/harness.js';
import { outboxTo, waitForMail } from '../../test/outbox.js';

const login = (h: Harness, email: string, password: string) =>
  h.request('POST', '/auth/login', { body: { email, password } });
const cookieOf = (res: { headers: Headers }) => /session=[^;]+/.exec(res.headers.get('set-cookie') ?? '')![0];

/** The account screen's routes: change the password, move to a new address; and how account mails read. */
describe('account settings', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await createHarness();
  });
  afterAll(() => h.close());

  it('changes the password only with the right current one, and ends the other sessions but this one', async () => {
    const u = await createUser(h);
    const other = cookieOf(await login(h, u.email, u.password));
    const wrong = await h.request('POST', '/users/@me/password', {
      cookie: u.cookie,
      body: { currentPassword: 'not my password', newPassword: 'a new long password' },
    });
    expect(wrong.status).toBe(422);
    expect(wrong.body.error.errors).toEqual([
      expect.objectContaining({ field: 'currentPassword', code: 'wrong_password' }),
    ]);
    // Nothing changed: the old password still works, the other session is still open.
    expect((await login(h, u.email, u.password)).status).toBe(200);
    expect((await h.request('GET', '/users/@me', { cookie: other })).status).toBe(200);
    const short = await h.request('POST', '/users/@me/password', {
      cookie: u.cookie,
      body: { currentPassword: u.password, newPassword: 'short' },
    });
    expect(short.status).toBe(422);
    expect(
      (await h.request('POST', '/users/@me/password', { body: { currentPassword: 'x', newPassword: 'y' } })).status,
    ).toBe(401);

    const ok = await h.request('POST', '/users/@me/password', {
      cookie: u.cookie,
      body: { currentPassword: u.password, newPassword: 'a new long password' },
    });
    expect(ok.status).toBe(200);
    expect((await login(h, u.email, u.password)).status).toBe(401);
    expect((await login(h, u.email, 'a new long password')).status).toBe(200);
    expect((await h.request('GET', '/users/@me', { cookie: u.cookie })).status).toBe(200);
    expect((await h.request('GET', '/users/@me', { cookie: other })).status).toBe(401);
  });

  it('moves the account to a new address only when the link mailed there is followed', async () => {
    const u = await createUser(h);
    const next = uniqueEmail('moved');
    const wrong = await h.request('POST', '/users/@me/email', {
      cookie: u.cookie,
      body: { password: 'not my password', newEmail: next },
    });
    expect(wrong.status).toBe(422);
    expect(wrong.body.error.errors).toEqual([expect.objectContaining({ field: 'password', code: 'wrong_password' })]);
    const same = await h.request('POST', '/users/@me/email', {
      cookie: u.cookie,
      body: { password: u.password, newEmail: u.email },
    });
    expect(same.body.error.errors).toEqual([expect.objectContaining({ field: 'newEmail', code: 'same_email' })]);
    expect(await outboxTo(h.dataDir, next)).toHaveLength(0);

    const asked = await h.request('POST', '/users/@me/email', {
      cookie: u.cookie,
      body: { password: u.password, newEmail: next.toUpperCase() },
    });
    expect(asked.status).toBe(202);
    // Asking changes nothing yet.
    expect((await h.request('GET', '/users/@me', { cookie: u.cookie })).body.email).toBe(u.email);
    const mail = await waitForMail(h.dataDir, next, 'Confirm your new email address for Pigeon');
    expect(mail.html).toContain('Use this address');
    const token = /confirm-email\?token=([A-Za-z0-9_.-]+)/.exec(mail.text ?? '')![1];
    // An edited address in the token matches nothing.
    const [random] = token.split('.');
    const forged = `${random}.${Buffer.from(uniqueEmail('thief')).toString('base64url')}`;
    expect((await h.request('POST', '/auth/confirm-email-change', { body: { token: forged } })).status).toBe(400);
    expect((await h.request('POST', '/auth/confirm-email-change', { body: { token: 'nope' } })).status).toBe(400);

    const done = await h.request('POST', '/auth/confirm-email-change', { body: { token } });
    expect(done.status).toBe(200);
    expect(done.body).toEqual({ email: next });
    const me = await h.request('GET', '/users/@me', { cookie: u.cookie });
    expect(me.body).toMatchObject({ email: next, emailVerified: true });
    expect((await login(h, next, u.password)).status).toBe(200);
    expect((await login(h, u.email, u.password)).status).toBe(401);
    expect((await h.request('POST', '/auth/confirm-email-change', { body: { token } })).status).toBe(400);
    // The old address is told.
    const notice = await outboxTo(h.dataDir, u.email);
    expect(notice.map((m) => m.subject)).toContain('Your Pigeon account has a new email address');
  });

  it('mails nothing for an address another account has, and answers the same', async () => {
    const u = await createUser(h);
    const taken = await createUser(h);
    const before = (await outboxTo(h.dataDir, taken.email)).length;
    const res = await h.request('POST', '/users/@me/email', {
      cookie: u.cookie,
      body: { password: u.password, newEmail: taken.email },
    });
    expect(res.status).toBe(202);
    expect(await outboxTo(h.dataDir, taken.email)).toHaveLength(before);
  });

  it('sends account mails as HTML with a text part, dates and lifetimes in words, no API instructions', async () => {
    const u = await createUser(h);
    const [mail] = await outboxTo(h.dataDir, u.email);
    expect(mail.subject).toBe('Verify your email address');
    expect(mail.text).toContain('expires in 24 hours');
    expect(mail.text).toMatch(/\/verify-email\?token=/);
    expect(mail.text).not.toMatch(/POST \/|\d{4}-\d\d-\d\dT/);
    expect(mail.html).toContain('Confirm my address');
    expect(mail.html).toContain('Pigeon');
  });
});
