import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createProject, createUser, createVerifiedUser, uniqueEmail, type TestUser } from '../../test/factories.js';
import { createHarness, type Harness } from '../../test/harness.js';
import { outboxTo, waitForMail } from '../../test/outbox.js';

const tokenIn = (text: string | undefined) => /token=([A-Za-z0-9_-]+)/.exec(text ?? '')?.[1];
const INVITE_SUBJECT = 'You are invited to join “Test project” on Pigeon';

/**
 * Adding members by address: a verified account joins at once; any other
 * address gets an invitation its owner accepts once the address is verified, so that nobody can take a
 * colleague's seat by signing up with their address first.
 */
describe('invitations', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await createHarness({ worker: true });
  });
  afterAll(() => h.close());

  /** Verifies `u`'s address the way its owner does: with the token of the mailed link. */
  async function verifyThroughMail(u: TestUser) {
    const mail = (await outboxTo(h.dataDir, u.email)).find((m) => m.subject === 'Verify your email address')!;
    // From the browser that signed up (its session): the token alone confirms the address.
    const res = await h.request('POST', '/auth/verify-email', {
      cookie: u.cookie,
      body: { token: tokenIn(mail.text) },
    });
    expect(res.status).toBe(200);
  }

  it('adds a verified user at once, with the 201 list item of before', async () => {
    const p = await createProject(h, await createVerifiedUser(h));
    const u = await createVerifiedUser(h);
    const res = await h.request('POST', `/projects/${p.id}/members`, {
      cookie: p.owner.cookie,
      body: { email: u.email, role: 'MEMBER' },
    });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({ userId: u.id, email: u.email, role: 'MEMBER', createdAt: expect.any(String) });
    expect((await h.request('GET', `/projects/${p.id}/invitations`, { cookie: p.owner.cookie })).body).toEqual([]);
  });

  it('does not add a squatted unverified account: it gets an invitation it can accept only once verified', async () => {
    const p = await createProject(h, await createVerifiedUser(h));
    // Someone signs up with a colleague's address before the colleague does, and cannot verify it.
    const squatter = await createUser(h);
    const res = await h.request('POST', `/projects/${p.id}/members`, {
      cookie: p.owner.cookie,
      body: { email: squatter.email, role: 'ADMIN' },
    });
    expect(res.status).toBe(202);
    expect(res.body).toEqual({
      invitationId: expect.stringMatching(/^[0-9a-f-]{36}$/),
      projectId: p.id,
      projectName: 'Test project',
      email: squatter.email,
      role: 'ADMIN',
      status: 'pending',
      invitedBy: p.owner.email,
      createdAt: expect.any(String),
      expiresAt: expect.any(String),
    });
    const id = res.body.invitationId;
    expect(await h.sql('select 1 from memberships where user_id = $1', [squatter.id])).toEqual([]);
    const members = await h.request('GET', `/projects/${p.id}/members`, { cookie: p.owner.cookie });
    expect(members.body.map((m: { email: string }) => m.email)).toEqual([p.owner.email]);
    expect((await h.request('GET', `/projects/${p.id}/invitations`, { cookie: p.owner.cookie })).body).toEqual([
      res.body,
    ]);

    // The invitee is mailed (by the worker) a link naming the invitation.
    const mail = await waitForMail(h.dataDir, squatter.email, INVITE_SUBJECT);
    expect(mail.text).toContain(`/invitations/${id}`);
    expect(mail.text).toContain(p.owner.email);

    // Unverified: cannot see, accept or decline it, and is no member of anything.
    for (const [method, path] of [
      ['GET', '/users/@me/invitations'],
      ['POST', `/users/@me/invitations/${id}/accept`],
      ['POST', `/users/@me/invitations/${id}/decline`],
    ]) {
      const r = await h.request(method, path, { cookie: squatter.cookie });
      expect(r.status, `${method} ${path}`).toBe(403);
      expect(r.body.error.code).toBe('FORBIDDEN');
    }
    expect(await h.sql('select 1 from memberships where user_id = $1', [squatter.id])).toEqual([]);
    expect((await h.request('GET', `/projects/${p.id}/members`, { cookie: squatter.cookie })).status).toBe(404);

    // Whoever owns the mailbox verifies the address: now the invitation can be taken.
    await verifyThroughMail(squatter);
    const mine = await h.request('GET', '/users/@me/invitations', { cookie: squatter.cookie });
    expect(mine.body).toEqual([res.body]);
    const accept = await h.request('POST', `/users/@me/invitations/${id}/accept`, { cookie: squatter.cookie });
    expect(accept.status).toBe(200);
    expect(accept.body).toEqual({
      projectId: p.id,
      userId: squatter.id,
      email: squatter.email,
      role: 'ADMIN',
      createdAt: expect.any(String),
    });
    const after = await h.request('GET', `/projects/${p.id}/members`, { cookie: squatter.cookie });
    expect(after.body.map((m: { email: string; role: string }) => [m.email, m.role])).toEqual([
      [p.owner.email, 'OWNER'],
      [squatter.email, 'ADMIN'],
    ]);
    expect((await h.request('GET', `/projects/${p.id}/invitations`, { cookie: p.owner.cookie })).body).toEqual([]);
    expect(await h.sql('select status, accepted_by from invitations where id = $1', [id])).toEqual([
      { status: 'accepted', accepted_by: squatter.id },
    ]);
    const again = await h.request('POST', `/users/@me/invitations/${id}/accept`, { cookie: squatter.cookie });
    expect(again.status).toBe(409);
  });

  it('cannot be accepted or declined by anyone but the invited address', async () => {
    const p = await createProject(h, await createVerifiedUser(h));
    const invitee = uniqueEmail('invitee');
    const res = await h.request('POST', `/projects/${p.id}/members`, {
      cookie: p.owner.cookie,
      body: { email: invitee, role: 'MEMBER' },
    });
    expect(res.status).toBe(202);
    const other = await createVerifiedUser(h);
    for (const action of ['accept', 'decline']) {
      const r = await h.request('POST', `/users/@me/invitations/${res.body.invitationId}/${action}`, {
        cookie: other.cookie,
      });
      expect(r.status).toBe(404);
      expect(r.body.error.code).toBe('RESOURCE_NOT_FOUND');
    }
    expect((await h.request('GET', '/users/@me/invitations', { cookie: other.cookie })).body).toEqual([]);
    expect(await h.sql('select 1 from memberships where user_id = $1', [other.id])).toEqual([]);
    expect(await h.sql('select status from invitations where id = $1', [res.body.invitationId])).toEqual([
      { status: 'pending' },
    ]);

    // The invitee signs up later, verifies, and joins.
    const u = await createUser(h, invitee);
    expect(
      (await h.request('POST', `/users/@me/invitations/${res.body.invitationId}/accept`, { cookie: u.cookie })).status,
    ).toBe(403);
    await verifyThroughMail(u);
    const accept = await h.request('POST', `/users/@me/invitations/${res.body.invitationId}/accept`, {
      cookie: u.cookie,
    });
    expect(accept.status).toBe(200);
    expect(accept.body.role).toBe('MEMBER');
  });

  it('refuses a second invitation to the same address, and resends, revokes and declines', async () => {
    const p = await createProject(h, await createVerifiedUser(h));
    const email = uniqueEmail('inv');
    const first = await h.request('POST', `/projects/${p.id}/members`, {
      cookie: p.owner.cookie,
      body: { email, role: 'MEMBER' },
    });
    const id = first.body.invitationId;
    const dup = await h.request('POST', `/projects/${p.id}/members`, {
      cookie: p.owner.cookie,
      body: { email, role: 'ADMIN' },
    });
    expect(dup.status).toBe(409);
    expect(dup.body.error.details).toEqual({ invitationId: id });
    await waitForMail(h.dataDir, email, INVITE_SUBJECT);

    // Resend: a second mail and a renewed expiry.
    h.clock.advance(3600_000);
    try {
      const resent = await h.request('POST', `/projects/${p.id}/invitations/${id}/resend`, { cookie: p.owner.cookie });
      expect(resent.status).toBe(200);
      expect(new Date(resent.body.expiresAt).getTime()).toBeGreaterThan(new Date(first.body.expiresAt).getTime());
      const until = Date.now() + 15_000;
      while ((await outboxTo(h.dataDir, email)).length < 2 && Date.now() < until)
        await new Promise((r) => setTimeout(r, 100));
      expect(await outboxTo(h.dataDir, email)).toHaveLength(2);
    } finally {
      h.clock.set(new Date());
    }

    // Revoke: gone from the list, cannot be accepted, resent or revoked again.
    const revoke = await h.request('DELETE', `/projects/${p.id}/invitations/${id}`, { cookie: p.owner.cookie });
    expect(revoke.status).toBe(204);
    expect(revoke.text).toBe('');
    expect((await h.request('GET', `/projects/${p.id}/invitations`, { cookie: p.owner.cookie })).body).toEqual([]);
    const u = await createVerifiedUser(h, email);
    expect((await h.request('POST', `/users/@me/invitations/${id}/accept`, { cookie: u.cookie })).status).toBe(404);
    expect(
      (await h.request('POST', `/projects/${p.id}/invitations/${id}/resend`, { cookie: p.owner.cookie })).status,
    ).toBe(409);
    expect((await h.request('DELETE', `/projects/${p.id}/invitations/${id}`, { cookie: p.owner.cookie })).status).toBe(
      409,
    );

    // A new invitation after a revoked one is allowed; the invitee may decline it.
    const other = uniqueEmail('inv');
    const second = await h.request('POST', `/projects/${p.id}/members`, {
      cookie: p.owner.cookie,
      body: { email: other, role: 'MEMBER' },
    });
    const invitee = await createVerifiedUser(h, other);
    const decline = await h.request('POST', `/users/@me/invitations/${second.body.invitationId}/decline`, {
      cookie: invitee.cookie,
    });
    expect(decline.status).toBe(204);
    expect(
      (await h.request('POST', `/users/@me/invitations/${second.body.invitationId}/accept`, { cookie: invitee.cookie }))
        .status,
    ).toBe(409);
    expect(await h.sql('select 1 from memberships where user_id = $1', [invitee.id])).toEqual([]);
    // Another project's id in the path: 404.
    const q = await createProject(h, await createVerifiedUser(h));
    expect(
      (
        await h.request('POST', `/projects/${q.id}/invitations/${second.body.invitationId}/resend`, {
          cookie: q.owner.cookie,
        })
      ).status,
    ).toBe(404);
  });

  it('expires after 7 days until resent', async () => {
    const p = await createProject(h, await createVerifiedUser(h));
    const u = await createUser(h);
    const inv = await h.request('POST', `/projects/${p.id}/members`, {
      cookie: p.owner.cookie,
      body: { email: u.email, role: 'MEMBER' },
    });
    const valid = new Date(inv.body.expiresAt).getTime() - new Date(inv.body.createdAt).getTime();
    expect(valid).toBe(7 * 24 * 3600_000);
    await verifyThroughMail(u);
    // Seven days later (moved in the row: sessions last seven days too).
    await h.sql(`update invitations set expires_at = now() - interval '1 minute' where id = $1`, [
      inv.body.invitationId,
    ]);
    const list = await h.request('GET', `/projects/${p.id}/invitations`, { cookie: p.owner.cookie });
    expect(list.body.map((i: { status: string }) => i.status)).toEqual(['expired']);
    const late = await h.request('POST', `/users/@me/invitations/${inv.body.invitationId}/accept`, {
      cookie: u.cookie,
    });
    expect(late.status).toBe(409);
    expect(late.body.error.message).toMatch(/expired/);
    expect(
      (
        await h.request('POST', `/projects/${p.id}/invitations/${inv.body.invitationId}/resend`, {
          cookie: p.owner.cookie,
        })
      ).body.status,
    ).toBe('pending');
    expect(
      (await h.request('POST', `/users/@me/invitations/${inv.body.invitationId}/accept`, { cookie: u.cookie })).status,
    ).toBe(200);
  });

  it('closes a pending invitation when its address, now verified, is added directly', async () => {
    const p = await createProject(h, await createVerifiedUser(h));
    const u = await createUser(h);
    const inv = await h.request('POST', `/projects/${p.id}/members`, {
      cookie: p.owner.cookie,
      body: { email: u.email, role: 'MEMBER' },
    });
    await verifyThroughMail(u);
    const add = await h.request('POST', `/projects/${p.id}/members`, {
      cookie: p.owner.cookie,
      body: { email: u.email, role: 'ADMIN' },
    });
    expect(add.status).toBe(201);
    expect(await h.sql('select status from invitations where id = $1', [inv.body.invitationId])).toEqual([
      { status: 'accepted' },
    ]);
    expect(
      (
        await h.request('POST', `/projects/${p.id}/members`, {
          cookie: p.owner.cookie,
          body: { email: u.email, role: 'ADMIN' },
        })
      ).status,
    ).toBe(409);
  });

  it('lets members list invitations and only OWNER and ADMIN resend or revoke them', async () => {
    const p = await createProject(h, await createVerifiedUser(h));
    const member = await createVerifiedUser(h);
    await h.request('POST', `/projects/${p.id}/members`, {
      cookie: p.owner.cookie,
      body: { email: member.email, role: 'MEMBER' },
    });
    const inv = await h.request('POST', `/projects/${p.id}/members`, {
      cookie: p.owner.cookie,
      body: { email: uniqueEmail(), role: 'MEMBER' },
    });
    expect((await h.request('GET', `/projects/${p.id}/invitations`, { cookie: member.cookie })).body).toHaveLength(1);
    expect(
      (
        await h.request('POST', `/projects/${p.id}/invitations/${inv.body.invitationId}/resend`, {
          cookie: member.cookie,
        })
      ).status,
    ).toBe(403);
    expect(
      (await h.request('DELETE', `/projects/${p.id}/invitations/${inv.body.invitationId}`, { cookie: member.cookie }))
        .status,
    ).toBe(403);
    expect(
      (
        await h.request('POST', `/projects/${p.id}/members`, {
          cookie: member.cookie,
          body: { email: uniqueEmail(), role: 'MEMBER' },
        })
      ).status,
    ).toBe(403);
    expect(await h.sql('select status from invitations where project_id = $1', [p.id])).toEqual([
      { status: 'pending' },
    ]);
  });

  it('documents the invitation shapes in the OpenAPI document', async () => {
    const spec = (await h.request('GET', '/openapi.json')).body;
    const add = spec.paths['/projects/{id}/members'].post.responses;
    expect(Object.keys(add)).toEqual(expect.arrayContaining(['201', '202']));
    expect(add['202'].content['application/json'].schema.properties).toHaveProperty('invitationId');
    for (const path of [
      '/projects/{id}/invitations',
      '/projects/{id}/invitations/{invitationId}/resend',
      '/projects/{id}/invitations/{invitationId}',
      '/users/@me/invitations',
      '/users/@me/invitations/{invitationId}/accept',
      '/users/@me/invitations/{invitationId}/decline',
    ]) {
      expect(spec.paths, path).toHaveProperty([path]);
    }
  });
});
