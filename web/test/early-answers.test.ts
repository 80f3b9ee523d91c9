import { afterEach, describe, expect, it } from 'vitest';
import { withEarlyAnswers } from '../src/api/early.js';

// The answers of public/early-requests.js: each used once, fresh only, and never after a write.
describe('withEarlyAnswers', () => {
  const g = globalThis as unknown as {
    window?: { __pigeonEarly?: Record<string, { at: number; response: Promise<Response> }> };
  };
  afterEach(() => {
    delete g.window;
  });
  const early = (status: number) => ({ at: Date.now(), response: Promise.resolve(new Response(null, { status })) });
  const network: string[] = [];
  const fetchVia = withEarlyAnswers(async (req) => {
    network.push(`${req.method} ${new URL(req.url).pathname}`);
    return new Response(null, { status: 200 });
  });
  const req = (method: string, path: string) => new Request(`http://pigeon.test${path}`, { method });

  it('answers a matching GET once from the early request, then from the network', async () => {
    network.length = 0;
    g.window = { __pigeonEarly: { 'GET /users/@me ': early(401) } };
    expect((await fetchVia(req('GET', '/users/@me'))).status).toBe(401);
    expect((await fetchVia(req('GET', '/users/@me'))).status).toBe(200);
    expect(network).toEqual(['GET /users/@me']);
  });

  it("drops every early answer at the first write: a sign-up never gets the signed-out page load's 401", async () => {
    network.length = 0;
    g.window = { __pigeonEarly: { 'GET /users/@me/projects ': early(401), 'GET /users/@me ': early(401) } };
    await fetchVia(req('POST', '/auth/signup'));
    expect((await fetchVia(req('GET', '/users/@me/projects'))).status).toBe(200);
    expect((await fetchVia(req('GET', '/users/@me'))).status).toBe(200);
    expect(network).toEqual(['POST /auth/signup', 'GET /users/@me/projects', 'GET /users/@me']);
  });
});
