import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { uniqueEmail } from '../../test/factories.js';
import { createHarness, type Harness } from '../../test/harness.js';

const PER_IP = 3;
const login = (h: Harness, xff?: string) =>
  h.request('POST', '/auth/login', {
    body: { email: uniqueEmail(), password: 'whatever123' },
    headers: xff ? { 'x-forwarded-for': xff } : {},
  });

/** Which address the per-IP throttles count (`TRUST_PROXY`, finding 2 of "Hardening II"). */
describe('the client address behind TRUST_PROXY', () => {
  let plain: Harness;
  let hops: Harness;
  beforeAll(async () => {
    [plain, hops] = await Promise.all([
      createHarness({ env: { AUTH_RATE_LIMIT_PER_IP: String(PER_IP) } }),
      // The test client on 127.0.0.1 plays the one proxy in front.
      createHarness({ env: { AUTH_RATE_LIMIT_PER_IP: String(PER_IP), TRUST_PROXY: '1' } }),
    ]);
  });
  afterAll(async () => {
    await Promise.all([plain?.close(), hops?.close()]);
  });

  it('by default believes no proxy: a new X-Forwarded-For per request does not escape the throttle', async () => {
    for (let i = 1; i <= PER_IP; i++) expect((await login(plain, `203.0.113.${i}`)).status).toBe(401);
    const res = await login(plain, '203.0.113.200');
    expect(res.status).toBe(429);
    expect(res.body.error).toMatchObject({ code: 'RATE_LIMIT_EXCEEDED' });
    expect((await login(plain)).status).toBe(429);
  });

  it('with a hop count, counts the address the nearest proxy saw, whatever the client wrote before it', async () => {
    for (let i = 1; i <= PER_IP; i++) expect((await login(hops, `10.9.9.${i}, 198.51.100.7`)).status).toBe(401);
    expect((await login(hops, '10.9.9.99, 198.51.100.7')).status).toBe(429);
    // Another client behind the same proxy has its own budget.
    expect((await login(hops, '10.9.9.1, 198.51.100.8')).status).toBe(401);
  });
});
