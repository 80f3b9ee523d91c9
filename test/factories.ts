import { randomUUID } from 'node:crypto';
import type { Harness } from './harness.js';

export interface TestUser {
  id: string;
  email: string;
  password: string;
  /** `session=…` (`__Host-session=…` over https), for the `cookie` request option. */
  cookie: string;
}

export interface TestProject {
  id: string;
  name: string;
  publicKey: string;
  secretKey: string;
  owner: TestUser;
}

/** A unique address on a reserved test domain. */
export const uniqueEmail = (prefix = 'user') => `${prefix}-${randomUUID().slice(0, 8)}@example.test`;

/** Signs up a new user through `POST /auth/signup`. */
export async function createUser(h: Harness, email = uniqueEmail()): Promise<TestUser> {
  const password = 'correct horse battery';
  const res = await h.request('POST', '/auth/signup', { body: { email, password } });
  if (res.status !== 201) throw new Error(`signup failed: ${res.status} ${res.text}`);
  const setCookie = res.headers.get('set-cookie') ?? '';
  // `session`, or `__Host-session` when PUBLIC_URL is https.
  const cookie = /(?:__Host-)?session=[^;]+/.exec(setCookie)?.[0];
  if (!cookie) throw new Error('signup set no session cookie');
  return { id: res.body.id, email, password, cookie };
}

/**
 * Signs up a user whose address counts as verified (set in the database: tests of the verification
 * mail itself go through `POST /auth/verify-email`). Only such users join a project at once on
 * `POST /projects/:id/members`; others get an invitation.
 */
export async function createVerifiedUser(h: Harness, email = uniqueEmail()): Promise<TestUser> {
  const user = await createUser(h, email);
  await h.sql('update users set email_verified = true where id = $1', [user.id]);
  return user;
}

/** Creates a user (or uses `owner`) and a project through the API; returns its full keys. */
export async function createProject(h: Harness, owner?: TestUser, name = 'Test project'): Promise<TestProject> {
  const user = owner ?? (await createUser(h));
  const res = await h.request('POST', '/users/@me/projects', { cookie: user.cookie, body: { name } });
  if (res.status !== 201) throw new Error(`project create failed: ${res.status} ${res.text}`);
  return { id: res.body.id, name, publicKey: res.body.public, secretKey: res.body.secret, owner: user };
}
