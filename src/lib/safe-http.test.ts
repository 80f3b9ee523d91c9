import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RefusedAddressError, refusedAddress, refusedHost, safeAgents, safeRequest } from './safe-http.js';

interface Hit {
  url: string;
  headers: http.IncomingHttpHeaders;
  /** The client's port: the same for requests over one kept connection. */
  port: number;
}

/** A local HTTP server that records requests; `/to?url=…` redirects (302) to `url`. */
async function server() {
  const hits: Hit[] = [];
  const perSocket = new WeakMap<object, number>();
  const srv = http.createServer((req, res) => {
    hits.push({ url: req.url!, headers: req.headers, port: req.socket.remotePort! });
    const n = (perSocket.get(req.socket) ?? 0) + 1;
    perSocket.set(req.socket, n);
    const u = new URL(req.url!, 'http://x');
    // As a receiver closing an idle kept connection just as the client reuses it.
    if (u.pathname === '/reset-reused' && n > 1) return req.socket.destroy();
    if (u.pathname === '/to') return res.writeHead(302, { location: u.searchParams.get('url')! }).end();
    res.writeHead(200).end('ok');
  });
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  const port = (srv.address() as AddressInfo).port;
  return { hits, port, base: `http://127.0.0.1:${port}`, close: () => new Promise<void>((r) => srv.close(() => r())) };
}

const opts = (allowPrivate: boolean) => ({ allowPrivate, signal: AbortSignal.timeout(5000) });

// Issue "Hardening" 10: only global unicast addresses, with ipaddr.js; credentials stay at their origin.
describe('SSRF-safe HTTP client', () => {
  // Every form that passed the hand-written block list, and the ranges it did refuse.
  const BYPASSES = [
    '::127.0.0.1',
    '::7f00:1',
    '::ffff:127.0.0.1',
    '::ffff:7f00:1',
    '0:0:0:0:0:ffff:127.0.0.1',
    '::ffff:0:7f00:1',
    '::ffff:0:a00:1',
    '::ffff:10.0.0.1',
    '::ffff:169.254.169.254',
    '2002:7f00:1::',
    '2002:a9fe:a9fe::1',
    '2001::1',
    '2001:0:4136:e378:8000:63bf:3fff:fdd2',
    'fec0::1',
    'feff::1',
    '0.0.0.0',
    '0.1.2.3',
    '100.64.0.1',
    '100.127.255.254',
    '169.254.169.254',
    '169.254.1.1',
    '64:ff9b::7f00:1',
    '64:ff9b::808:808',
    '64:ff9b:1::1',
    '100::1',
    '2001:db8::1',
    '3fff::1',
    '::',
    '::1',
    '::2',
  ];
  const PRIVATE = [
    '127.0.0.1',
    '127.255.0.9',
    '10.1.2.3',
    '172.16.0.1',
    '192.168.1.1',
    '::1',
    'fd00::1',
    'fc00::1',
    '100.64.0.1',
    '::ffff:127.0.0.1',
    '::ffff:192.168.0.1',
  ];
  const OTHER = [
    'fe80::1',
    '224.0.0.1',
    'ff02::1',
    '255.255.255.255',
    '192.0.2.1',
    '198.18.0.1',
    '240.0.0.1',
    '192.0.0.8',
  ];
  const PUBLIC = [
    '8.8.8.8',
    '1.1.1.1',
    '93.184.216.34',
    '2606:4700::1111',
    '2a00:1450:4001:81b::200e',
    '::ffff:8.8.8.8',
  ];

  it('allows only global unicast addresses: every listed bypass, private, link-local and reserved range is refused', () => {
    for (const a of [...BYPASSES, ...PRIVATE, ...OTHER]) expect(refusedAddress(a, false), a).toMatch(/address/);
    for (const a of PUBLIC) expect(refusedAddress(a, false), a).toBeNull();
    expect(refusedAddress('127.0.0.1', false)).toContain('loopback');
    expect(refusedAddress('2002:7f00:1::', false)).toContain('6to4');
    expect(refusedAddress('2001::1', false)).toContain('Teredo');
    expect(refusedAddress('169.254.169.254', false)).toContain('metadata');
    expect(refusedAddress('not-an-ip', false)).toContain('not an IP address');
  });

  it('with allowPrivate lets loopback, private, unique local and shared addresses through; metadata, link-local and tunnels stay refused', () => {
    for (const a of PRIVATE) expect(refusedAddress(a, true), a).toBeNull();
    for (const a of [
      '169.254.169.254',
      '169.254.170.2',
      '100.100.100.200',
      'fd00:ec2::254',
      '::ffff:169.254.169.254',
      '169.254.1.1',
      'fe80::1',
      '2002:7f00:1::',
      '2001::1',
      '::7f00:1',
      'fec0::1',
      '0.0.0.0',
      '224.0.0.1',
    ]) {
      expect(refusedAddress(a, true), a).not.toBeNull();
    }
    for (const a of PUBLIC) expect(refusedAddress(a, true), a).toBeNull();
  });

  it('refuses cloud metadata host names whatever the setting', () => {
    for (const h of [
      'metadata.google.internal',
      'METADATA.GOOGLE.INTERNAL.',
      'metadata',
      'metadata.goog',
      'instance-data',
      'instance-data.ec2.internal',
    ]) {
      expect(refusedHost(h, true), h).toContain('metadata');
    }
    expect(refusedHost('[::ffff:127.0.0.1]', false)).toContain('loopback');
    expect(refusedHost('example.com', false)).toBeNull();
  });

  describe('requests', () => {
    let a: Awaited<ReturnType<typeof server>>;
    let b: Awaited<ReturnType<typeof server>>;
    beforeAll(async () => {
      a = await server();
      b = await server();
    });
    afterAll(async () => {
      await a?.close();
      await b?.close();
    });

    it('sends nothing to a refused address, however the URL spells it, and re-checks every redirect', async () => {
      const before = a.hits.length;
      const urls = [
        `http://[::ffff:127.0.0.1]:${a.port}/`,
        `http://[::127.0.0.1]:${a.port}/`,
        `http://[::ffff:7f00:1]:${a.port}/`,
        `http://0.0.0.0:${a.port}/`,
        `http://2130706433:${a.port}/`,
        `http://0x7f.1:${a.port}/`,
        `http://localhost:${a.port}/`,
        `http://[2002:7f00:1::]:${a.port}/`,
        'http://metadata.google.internal/computeMetadata/v1/',
        'http://169.254.169.254/latest/meta-data/',
        `ftp://127.0.0.1:${a.port}/`,
      ];
      for (const url of urls) {
        await expect(safeRequest({ url, method: 'GET' }, opts(false)), url).rejects.toSatisfy(
          (e: Error) =>
            e instanceof RefusedAddressError || (e as { cause?: unknown }).cause instanceof RefusedAddressError,
        );
      }
      expect(a.hits.length).toBe(before);
      // Allowed in, refused on the hop: the first server is called, the metadata address is not.
      await expect(
        safeRequest(
          { url: `${a.base}/to?url=${encodeURIComponent('http://[::ffff:a9fe:a9fe]/')}`, method: 'GET' },
          opts(true),
        ),
      ).rejects.toThrow(/metadata/);
    });

    it('drops Authorization, Proxy-Authorization and Cookie on a redirect to another origin, keeps them on the same origin', async () => {
      const headers = {
        Authorization: 'Bearer s3cret',
        'proxy-authorization': 'Basic eDp5',
        Cookie: 'sid=1',
        'X-Signature': 'sig',
      };
      const cross = await safeRequest(
        { url: `${a.base}/to?url=${encodeURIComponent(`${b.base}/hook`)}`, method: 'POST', headers, body: '{}' },
        opts(true),
      );
      expect(cross).toMatchObject({ status: 200, url: `${b.base}/hook` });
      const atA = a.hits.at(-1)!;
      expect(atA.headers).toMatchObject({
        authorization: 'Bearer s3cret',
        'proxy-authorization': 'Basic eDp5',
        cookie: 'sid=1',
        'x-signature': 'sig',
      });
      const atB = b.hits.at(-1)!;
      expect(atB.url).toBe('/hook');
      expect(atB.headers['x-signature']).toBe('sig');
      for (const h of ['authorization', 'proxy-authorization', 'cookie']) expect(atB.headers[h], h).toBeUndefined();

      // localhost and 127.0.0.1 are different origins too; and once dropped, they stay dropped.
      const back = `${a.base}/back`;
      await safeRequest(
        {
          url: `${a.base}/to?url=${encodeURIComponent(`http://localhost:${a.port}/to?url=${encodeURIComponent(back)}`)}`,
          method: 'GET',
          headers,
        },
        opts(true),
      );
      const [viaLocalhost, backAtA] = a.hits.slice(-2);
      expect(viaLocalhost.headers.authorization).toBeUndefined();
      expect(backAtA.url).toBe('/back');
      expect(backAtA.headers.authorization).toBeUndefined();

      const same = await safeRequest(
        { url: `${a.base}/to?url=${encodeURIComponent('/same')}`, method: 'GET', headers },
        opts(true),
      );
      expect(same.url).toBe(`${a.base}/same`);
      expect(a.hits.at(-1)!.headers).toMatchObject({ authorization: 'Bearer s3cret', cookie: 'sid=1' });
    });
    it('keeps connections alive with safe agents, still refuses what the rules refuse, and resends once when a kept connection was closed', async () => {
      const agents = safeAgents(true);
      try {
        const first = await safeRequest(
          { url: `${a.base}/keep`, method: 'POST', body: '{}' },
          { ...opts(true), agents },
        );
        const second = await safeRequest(
          { url: `${a.base}/keep`, method: 'POST', body: '{}' },
          { ...opts(true), agents },
        );
        expect([first.status, second.status]).toEqual([200, 200]);
        const kept = a.hits.filter((x) => x.url === '/keep');
        expect(kept[1].port).toBe(kept[0].port);
        // Without agents, a connection per request.
        await safeRequest({ url: `${a.base}/alone`, method: 'GET' }, opts(true));
        await safeRequest({ url: `${a.base}/alone`, method: 'GET' }, opts(true));
        const alone = a.hits.filter((x) => x.url === '/alone');
        expect(alone[1].port).not.toBe(alone[0].port);

        const strict = safeAgents(false);
        await expect(
          safeRequest({ url: `${a.base}/keep`, method: 'GET' }, { ...opts(false), agents: strict }),
        ).rejects.toThrow(/loopback/);
        strict.destroy();

        await safeRequest({ url: `${a.base}/reset-reused`, method: 'POST', body: '{}' }, { ...opts(true), agents });
        const again = await safeRequest(
          { url: `${a.base}/reset-reused`, method: 'POST', body: '{}' },
          { ...opts(true), agents },
        );
        expect(again.status).toBe(200);
        expect(a.hits.filter((x) => x.url === '/reset-reused').length).toBe(3);
      } finally {
        agents.destroy();
      }
    });
  });
});
