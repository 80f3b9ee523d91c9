import dns from 'node:dns';
import http from 'node:http';
import https from 'node:https';
import net from 'node:net';

/**
 * SSRF-safe outgoing HTTP for WEBHOOK steps (decisions.md "Workflows", **beyond**): only http(s);
 * the host is resolved and every address checked against loopback, private, link-local, CGNAT,
 * multicast, reserved and cloud-metadata ranges before connecting; the connection uses the checked
 * address (no second resolution an attacker's DNS could answer differently); redirects are followed
 * by hand (at most 5) and each hop is checked again. `allowPrivate`
 * (`WEBHOOK_ALLOW_PRIVATE_ADDRESSES`) lifts the check for self-hosters, except for the metadata
 * addresses, which no workflow has a reason to call.
 */

const PRIVATE = new net.BlockList();
for (const [a, p] of [
  ['0.0.0.0', 8], ['10.0.0.0', 8], ['100.64.0.0', 10], ['127.0.0.0', 8], ['169.254.0.0', 16], ['172.16.0.0', 12],
  ['192.0.0.0', 24], ['192.0.2.0', 24], ['192.88.99.0', 24], ['192.168.0.0', 16], ['198.18.0.0', 15],
  ['198.51.100.0', 24], ['203.0.113.0', 24], ['224.0.0.0', 4], ['240.0.0.0', 4],
] as const) PRIVATE.addSubnet(a, p, 'ipv4');
for (const [a, p] of [
  // No ::ffff:0:0/96 rule: BlockList matches IPv4 against IPv6 rules as mapped addresses, so that
  // rule would refuse every IPv4 address; mapped IPv6 forms are checked against the IPv4 rules.
  ['::', 128], ['::1', 128], ['64:ff9b::', 96], ['100::', 64], ['2001:db8::', 32],
  ['fc00::', 7], ['fe80::', 10], ['ff00::', 8],
] as const) PRIVATE.addSubnet(a, p, 'ipv6');

const METADATA = new net.BlockList();
METADATA.addAddress('169.254.169.254', 'ipv4');
METADATA.addAddress('169.254.170.2', 'ipv4');
METADATA.addAddress('100.100.100.200', 'ipv4');
METADATA.addAddress('fd00:ec2::254', 'ipv6');

/** The reason an address may not be called, or null. */
export function refusedAddress(address: string, allowPrivate: boolean): string | null {
  const family = net.isIP(address);
  if (!family) return `${address} is not an IP address`;
  const type = family === 6 ? 'ipv6' : 'ipv4';
  if (METADATA.check(address, type)) return `${address} is a cloud metadata address`;
  if (!allowPrivate && PRIVATE.check(address, type)) {
    return `${address} is a loopback, private, link-local or reserved address (set WEBHOOK_ALLOW_PRIVATE_ADDRESSES=true to allow)`;
  }
  return null;
}

export class RefusedAddressError extends Error {}

export interface WebhookRequest {
  url: string;
  method: string;
  headers?: Record<string, string>;
  body?: string;
}

export interface WebhookResponse {
  status: number;
  body: string;
  url: string;
}

const MAX_BODY = 64 * 1024;
const MAX_REDIRECTS = 5;

/** One request, following redirects by hand. @throws RefusedAddressError; network errors; AbortError on timeout. */
export async function safeRequest(req: WebhookRequest, opts: { allowPrivate: boolean; signal: AbortSignal }): Promise<WebhookResponse> {
  let url = new URL(req.url);
  let method = req.method;
  let body = req.body;
  for (let hop = 0; ; hop++) {
    if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new RefusedAddressError(`Only http and https URLs may be called (${url.protocol})`);
    const host = url.hostname.replace(/^\[|\]$/g, '');
    if (net.isIP(host)) {
      const why = refusedAddress(host, opts.allowPrivate);
      if (why) throw new RefusedAddressError(why);
    }
    const res = await once(url, method, req.headers ?? {}, body, opts);
    if ([301, 302, 303, 307, 308].includes(res.status) && res.location) {
      if (hop >= MAX_REDIRECTS) throw new Error(`More than ${MAX_REDIRECTS} redirects`);
      url = new URL(res.location, url);
      if (res.status === 303 || ((res.status === 301 || res.status === 302) && method === 'POST')) {
        method = 'GET';
        body = undefined;
      }
      continue;
    }
    return { status: res.status, body: res.body, url: url.toString() };
  }
}

function once(url: URL, method: string, headers: Record<string, string>, body: string | undefined, opts: { allowPrivate: boolean; signal: AbortSignal }) {
  return new Promise<{ status: number; body: string; location?: string }>((resolve, reject) => {
    // Resolves, checks every address, and hands the connection only checked ones.
    const lookup = ((hostname: string, options: dns.LookupOptions, cb: (...a: unknown[]) => void) => {
      dns.lookup(hostname, { all: true, family: options.family }, (err, addresses) => {
        if (err) return cb(err);
        for (const a of addresses) {
          const why = refusedAddress(a.address, opts.allowPrivate);
          if (why) return cb(new RefusedAddressError(`${hostname} resolves to ${why}`));
        }
        if (!addresses.length) return cb(new Error(`${hostname} has no address`));
        if (options.all) cb(null, addresses);
        else cb(null, addresses[0].address, addresses[0].family);
      });
    }) as unknown as net.LookupFunction;
    const mod = url.protocol === 'https:' ? https : http;
    const h: Record<string, string> = { 'user-agent': 'Pigeon-Webhook/1', ...headers };
    if (body !== undefined) {
      h['content-type'] ??= 'application/json';
      h['content-length'] = String(Buffer.byteLength(body));
    }
    const r = mod.request(url, { method, headers: h, lookup, signal: opts.signal, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      let size = 0;
      res.on('data', (c: Buffer) => {
        if (size < MAX_BODY) chunks.push(c);
        size += c.length;
      });
      res.on('end', () => resolve({
        status: res.statusCode ?? 0,
        body: Buffer.concat(chunks).toString('utf8').slice(0, MAX_BODY),
        location: typeof res.headers.location === 'string' ? res.headers.location : undefined,
      }));
      res.on('error', reject);
    });
    r.on('error', reject);
    if (body !== undefined) r.write(body);
    r.end();
  });
}

export interface WebhookOutcome {
  ok: boolean;
  attempts: number;
  status?: number;
  body?: string;
  url?: string;
  error?: string;
}

/**
 * Calls a webhook with up to `attempts` tries, each limited to `timeoutMs` (10 s), waiting
 * `backoffMs × attempt` between tries. A refused address is final at once (no request is made); a
 * 2xx is success; a 4xx other than 408/429 is final (the receiver rejected the call); 5xx, 408, 429,
 * timeouts and network errors are tried again.
 */
export async function callWebhook(req: WebhookRequest, o: { allowPrivate: boolean; timeoutMs?: number; attempts?: number; backoffMs?: number }): Promise<WebhookOutcome> {
  const attempts = o.attempts ?? 3;
  let last: WebhookOutcome = { ok: false, attempts: 0 };
  for (let n = 1; n <= attempts; n++) {
    try {
      const res = await safeRequest(req, { allowPrivate: o.allowPrivate, signal: AbortSignal.timeout(o.timeoutMs ?? 10_000) });
      const ok = res.status >= 200 && res.status < 300;
      last = { ok, attempts: n, status: res.status, body: res.body.slice(0, 2000), url: res.url, error: ok ? undefined : `HTTP ${res.status}` };
      if (ok || (res.status >= 400 && res.status < 500 && res.status !== 408 && res.status !== 429)) return last;
    } catch (err) {
      const e = err as Error;
      const refused = e instanceof RefusedAddressError || (e as { cause?: unknown }).cause instanceof RefusedAddressError;
      last = { ok: false, attempts: n, error: e.name === 'TimeoutError' || e.name === 'AbortError' ? `Timed out after ${(o.timeoutMs ?? 10_000) / 1000} s` : e.message };
      if (refused) return { ...last, attempts: n - 1 };
    }
    if (n < attempts) await new Promise((r) => setTimeout(r, (o.backoffMs ?? 1000) * n));
  }
  return last;
}
