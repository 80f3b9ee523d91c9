import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createProject, createUser, createVerifiedUser, uniqueEmail } from '../../test/factories.js';
import { createHarness, type Harness } from '../../test/harness.js';
import { outboxTo, waitForMail } from '../../test/outbox.js';
import { quotedText } from '../users/account-mail.js';
import { INVITATION_QUOTAS } from './invitations.service.js';

/** Invitations cannot be used to mail strangers (finding 6 of "Hardening II"). */
describe('invitations as a relay', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await createHarness({ worker: true, env: { RATE_LIMIT_PER_MINUTE: '0' } });
  });
  afterAll(() => h?.close());

  it('an account whose address is not confirmed cannot invite: 403, no invitation, no mail', async () => {
    const p = await createProject(h, await createUser(h));
    const target = uniqueEmail('target');
    const res = await h.request('POST', `/projects/${p.id}/members`, {
      cookie: p.owner.cookie,
      body: { email: target, role: 'MEMBER' },
    });
    expect(res.status).toBe(403);
    expect(res.body.error.message).toMatch(/^Confirm your own email address before inviting anyone/);
    expect(await h.sql('select 1 from invitations where project_id = $1', [p.id])).toEqual([]);
    // The verification mail of the owner is the only mail of this test; none went to the target.
    await waitForMail(h.dataDir, p.owner.email, 'Verify your email address');
    expect(await outboxTo(h.dataDir, target)).toEqual([]);
  });

  it('a confirmed account invites until its hourly quota, then 429 and no more mail', async () => {
    const p = await createProject(h, await createVerifiedUser(h));
    const perAccount = INVITATION_QUOTAS.find((q) => q.name === 'invitations-account')!.max;
    for (let i = 0; i < perAccount; i++) {
      expect(
        (
          await h.request('POST', `/projects/${p.id}/members`, {
            cookie: p.owner.cookie,
            body: { email: uniqueEmail(`q${i}`), role: 'MEMBER' },
          })
        ).status,
      ).toBe(202);
    }
    const over = await h.request('POST', `/projects/${p.id}/members`, {
      cookie: p.owner.cookie,
      body: { email: uniqueEmail('over'), role: 'MEMBER' },
    });
    expect(over.status).toBe(429);
    expect(over.body.error.message).toMatch(/^Too many invitations from this account/);
    expect(Number(over.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(await h.sql('select count(*)::int as n from invitations where project_id = $1', [p.id])).toEqual([
      { n: perAccount },
    ]);
    // Resends draw on the same quota.
    const [inv] = await h.sql('select id from invitations where project_id = $1 limit 1', [p.id]);
    expect(
      (await h.request('POST', `/projects/${p.id}/invitations/${inv.id}/resend`, { cookie: p.owner.cookie })).status,
    ).toBe(429);
  });

  it('quotes a project name in the mail on one line, cut short, with no link a mail client would follow', async () => {
    const owner = await createVerifiedUser(h);
    const p = await createProject(
      h,
      owner,
      'Win $$$ at http://evil.example/claim now\nClick www.evil.example or mail prize@evil.example today!!!',
    );
    const target = uniqueEmail('named');
    expect(
      (
        await h.request('POST', `/projects/${p.id}/members`, {
          cookie: owner.cookie,
          body: { email: target, role: 'MEMBER' },
        })
      ).status,
    ).toBe(202);
    const [mail] = await (async () => {
      for (let i = 0; i < 150; i++) {
        const m = await outboxTo(h.dataDir, target);
        if (m.length) return m;
        await new Promise((r) => setTimeout(r, 100));
      }
      throw new Error('no invitation mail');
    })();
    const quoted = quotedText(
      'Win $$$ at http://evil.example/claim now\nClick www.evil.example or mail prize@evil.example today!!!',
    );
    expect(quoted).toMatch(
      /^Win \$\$\$ at hxxp\[:\]\/\/evil\[\.\]example\/claim now Click www\[\.\]evil\[\.\]ex[^ ]*…$/,
    );
    expect(mail.subject).toBe(`You are invited to join “${quoted}” on Pigeon`);
    expect(mail.text).toContain(`the project “${quoted}”`);
    expect(mail.text).not.toMatch(/evil\.example|http:\/\/evil|prize@/);
  });
});

/** Session routes have a budget per user (finding 6 of "Hardening II"). */
describe('session routes per user', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await createHarness({ env: { RATE_LIMIT_PER_MINUTE: '5' } });
  });
  afterAll(() => h?.close());

  it('answers 429 past the per-minute limit to one user, not to another', async () => {
    const a = await createUser(h);
    const b = await createUser(h);
    for (let i = 0; i < 5; i++) expect((await h.request('GET', '/users/@me', { cookie: a.cookie })).status).toBe(200);
    const over = await h.request('GET', '/users/@me/projects', { cookie: a.cookie });
    expect(over.status).toBe(429);
    expect(over.body.error.code).toBe('RATE_LIMIT_EXCEEDED');
    expect((await h.request('GET', '/users/@me', { cookie: b.cookie })).status).toBe(200);
  });
});
