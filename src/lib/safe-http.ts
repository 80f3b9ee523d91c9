import dns from 'node:dns';
import net from 'node:net';
import ipaddr from 'ipaddr.js';
import type { Agent as HttpAgent } from 'node:http';
import type { Agent as HttpsAgent } from 'node:https';
import { http, https } from './node-http.js';

/**
 * The one SSRF-safe client for outgoing HTTP requests to URLs that users configure (workflow WEBHOOK
 * steps; event webhooks reuse it). Rules:
 * - only http and https;
 * - only global unicast addresses: every address a host name resolves to is classified with
 *   ipaddr.js `range()` after unwrapping IPv4-mapped IPv6 (`::ffff:a.b.c.d`, in any spelling), and
 *   only `unicast` passes (IPv6 also only inside 2000::/3, the global unicast space of RFC 4291, so
 *   IPv4-compatible `::a.b.c.d` and unassigned space fail too). Loopback, private, link-local,
 *   shared (100.64/10), unspecified, multicast, broadcast, reserved, documentation, site-local
 *   (fec0::/10) and the tunnelled or translated forms that carry an IPv4 address (6to4 2002::/16,
 *   Teredo 2001::/32, NAT64 64:ff9b::/96, IPv4-translated ::ffff:0:0:0/96) are refused;
 * - `allowPrivate` (`WEBHOOK_ALLOW_PRIVATE_ADDRESSES`, for self-hosters) lets loopback, private
 *   (RFC 1918), unique local (fc00::/7) and shared (100.64/10) addresses through; cloud metadata
 *   addresses and host names, and link-local space (where they live), stay refused;
 * - the connection goes to the address that was checked (the check is the connection's DNS look-up,
 *   so no second resolution can answer differently);
 * - redirects (at most 5) are followed by hand and each hop is checked again; once a redirect leaves
 *   the first URL's origin (scheme, host, port), `Authorization`, `Proxy-Authorization` and `Cookie`
 *   are no longer sent (as browsers do with Authorization under the Fetch standard, and curl).
 */

/** Address ranges that `allowPrivate` lets through (ipaddr.js range names). */
const PRIVATE_RANGES = new Set(['private', 'loopback', 'uniqueLocal', 'carrierGradeNat']);
const GLOBAL_UNICAST_V6 = ipaddr.parseCIDR('2000::/3');

/** Instance metadata services (AWS, GCP, Azure, OpenStack, ECS, EKS, Alibaba), normalised. */
const METADATA_ADDRESSES = new Set([
  '169.254.169.254',
  '169.254.170.2',
  '169.254.170.23',
  '100.100.100.200',
  'fd00:ec2:0:0:0:0:0:254',
  'fd00:ec2:0:0:0:0:0:23',
]);
const METADATA_HOSTS = new Set([
  'metadata',
  'metadata.google.internal',
  'metadata.goog',
  'instance-data',
  'instance-data.ec2.internal',
  'metadata.azure.internal',
]);

const RANGE_WORDS: Record<string, string> = {
  loopback: 'loopback',
  private: 'private',
  uniqueLocal: 'unique local (private)',
  carrierGradeNat: 'shared (carrier-grade NAT)',
  linkLocal: 'link-local',
  unspecified: 'unspecified',
  broadcast: 'broadcast',
  multicast: 'multicast',
  reserved: 'reserved',
  '6to4': '6to4 (IPv4 tunnel)',
  teredo: 'Teredo (IPv4 tunnel)',
  rfc6052: 'NAT64 (IPv4-embedded)',
  rfc6145: 'IPv4-translated',
  deprecatedSiteLocal: 'site-local (deprecated)',
  benchmarking: 'benchmarking',
};

/** The address as ipaddr.js sees it: IPv6 in the canonical form a connection would use, IPv4-mapped unwrapped. */
function parse(address: string): ipaddr.IPv4 | ipaddr.IPv6 | null {
  const family = net.isIP(address);
  if (!family) return null;
  try {
    // WHATWG URL canonicalises IPv6 (`::127.0.0.1` → `::7f00:1`); ipaddr.js alone misreads some dotted forms.
    const canonical = family === 6 ? new URL(`http://[${address}]/`).hostname.slice(1, -1) : address;
    return ipaddr.process(canonical);
  } catch {
    return null;
  }
}

/**
 * Why `address` (an IP address) may not be called, or null when it may.
 * @returns a sentence naming the address and its range.
 */
export function refusedAddress(
  address: string,
  allowPrivate: boolean,
  setting = 'WEBHOOK_ALLOW_PRIVATE_ADDRESSES',
): string | null {
  const ip = parse(address);
  if (!ip) return `${address} is not an IP address`;
  if (METADATA_ADDRESSES.has(ip.toNormalizedString())) return `${address} is a cloud metadata address`;
  const range = ip.range();
  if (range === 'unicast' && (ip.kind() === 'ipv4' || (ip as ipaddr.IPv6).match(GLOBAL_UNICAST_V6))) return null;
  if (allowPrivate && PRIVATE_RANGES.has(range)) return null;
  const what = range === 'unicast' ? 'IPv4-compatible or unassigned IPv6' : (RANGE_WORDS[range] ?? range);
  const hint = PRIVATE_RANGES.has(range) ? ` (set ${setting}=true to allow private and loopback addresses)` : '';
  return `${address} is a ${what} address, not a public one${hint}`;
}

/**
 * Why the host of a URL may not be called before any look-up, or null: a metadata host name, or an
 * IP literal {@link refusedAddress} refuses. `hostname` as `URL.hostname` gives it (IPv6 in brackets).
 */
export function refusedHost(
  hostname: string,
  allowPrivate: boolean,
  setting = 'WEBHOOK_ALLOW_PRIVATE_ADDRESSES',
): string | null {
  const host = hostname
    .replace(/^\[|\]$/g, '')
    .replace(/\.$/, '')
    .toLowerCase();
  if (METADATA_HOSTS.has(host)) return `${host} is a cloud metadata host name`;
  return net.isIP(host) ? refusedAddress(host, allowPrivate, setting) : null;
}

/** A request refused before it was sent (a host or address outside the rules above). */
export class RefusedAddressError extends Error {}

export interface SafeRequest {
  url: string;
  method: string;
  headers?: Record<string, string>;
  body?: string;
}

export interface SafeResponse {
  status: number;
  /** The body as UTF-8, cut at `maxBodyBytes`. */
  body: string;
  /** The URL that answered (after redirects). */
  url: string;
}

export interface SafeRequestOptions {
  allowPrivate: boolean;
  /** Ends the request (and its redirects), e.g. `AbortSignal.timeout(10_000)`. */
  signal: AbortSignal;
  /** Default 64 KiB. */
  maxBodyBytes?: number;
  /** Default 5. */
  maxRedirects?: number;
  /** Default `Pigeon-Webhook/1`. */
  userAgent?: string;
  /**
   * Connections kept alive between requests ({@link safeAgents}, made with the same `allowPrivate`);
   * default none: a new connection per request.
   */
  agents?: SafeAgents;
}

/** Keep-alive agents whose every connection was made to a checked address (see {@link safeAgents}). */
export interface SafeAgents {
  http: HttpAgent;
  https: HttpsAgent;
  /** Closes every kept connection. */
  destroy(): void;
}

/**
 * Keep-alive agents for {@link safeRequest}: each new connection is made through the same checked
 * look-up as a lone request (so every kept connection goes to an address the rules let through), and
 * a connection is reused only for the same scheme, host and port. For a caller that sends many
 * requests to the same receivers (event webhooks), this saves a TCP and TLS handshake per request.
 * `allowPrivate` must be the value the requests pass.
 */
export function safeAgents(allowPrivate: boolean, maxSockets = 64): SafeAgents {
  const o = { keepAlive: true, maxSockets, lookup: checkedLookup(allowPrivate), scheduling: 'lifo' as const };
  const a = { http: new http.Agent(o), https: new https.Agent(o) };
  return {
    ...a,
    destroy: () => {
      a.http.destroy();
      a.https.destroy();
    },
  };
}

/** Headers that carry credentials: not sent once a redirect leaves the first URL's origin. */
const CREDENTIAL_HEADERS = new Set(['authorization', 'proxy-authorization', 'cookie']);

/**
 * Sends one request under the rules of this module, following redirects by hand (301/302 turn a
 * POST into a GET, 303 any method; 307/308 keep method and body).
 * @throws RefusedAddressError (also as the `cause` of a network error from the look-up) before
 *   anything is sent to a refused host; network errors; an AbortError / TimeoutError from `signal`;
 *   Error after too many redirects.
 */
export async function safeRequest(req: SafeRequest, opts: SafeRequestOptions): Promise<SafeResponse> {
  let url = new URL(req.url);
  const origin = url.origin;
  let method = req.method;
  let body = req.body;
  let headers = { ...req.headers };
  const maxRedirects = opts.maxRedirects ?? 5;
  for (let hop = 0; ; hop++) {
    if (url.protocol !== 'http:' && url.protocol !== 'https:')
      throw new RefusedAddressError(`Only http and https URLs may be called (${url.protocol})`);
    const why = refusedHost(url.hostname, opts.allowPrivate);
    if (why) throw new RefusedAddressError(why);
    if (url.origin !== origin)
      headers = Object.fromEntries(Object.entries(headers).filter(([k]) => !CREDENTIAL_HEADERS.has(k.toLowerCase())));
    const res = await once(url, method, headers, body, opts);
    if ([301, 302, 303, 307, 308].includes(res.status) && res.location) {
      if (hop >= maxRedirects) throw new Error(`More than ${maxRedirects} redirects`);
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

/** A DNS look-up for `http.request` that answers only with checked addresses. */
function checkedLookup(allowPrivate: boolean): net.LookupFunction {
  return ((hostname: string, options: dns.LookupOptions, cb: (...a: unknown[]) => void) => {
    dns.lookup(hostname, { all: true, family: options.family }, (err, addresses) => {
      if (err) return cb(err);
      for (const a of addresses) {
        const why = refusedAddress(a.address, allowPrivate);
        if (why) return cb(new RefusedAddressError(`${hostname} resolves to ${why}`));
      }
      if (!addresses.length) return cb(new Error(`${hostname} has no address`));
      if (options.all) cb(null, addresses);
      else cb(null, addresses[0].address, addresses[0].family);
    });
  }) as unknown as net.LookupFunction;
}

async function once(
  url: URL,
  method: string,
  headers: Record<string, string>,
  body: string | undefined,
  opts: SafeRequestOptions,
) {
  const agent = opts.agents ? (url.protocol === 'https:' ? opts.agents.https : opts.agents.http) : undefined;
  try {
    return await sendOnce(url, method, headers, body, opts, agent);
  } catch (err) {
    // A kept connection the receiver closed as it was reused: the request never reached it; once more
    // on a new connection (what browsers and curl do).
    if (!(err instanceof ReusedSocketError)) throw err;
    return sendOnce(url, method, headers, body, opts, undefined);
  }
}

/** A request on a reused kept-alive connection failed before any answer. */
class ReusedSocketError extends Error {}

function sendOnce(
  url: URL,
  method: string,
  headers: Record<string, string>,
  body: string | undefined,
  opts: SafeRequestOptions,
  agent: HttpAgent | undefined,
) {
  const maxBody = opts.maxBodyBytes ?? 64 * 1024;
  return new Promise<{ status: number; body: string; location?: string }>((resolve, reject) => {
    const mod = url.protocol === 'https:' ? https : http;
    const h: Record<string, string> = { 'user-agent': opts.userAgent ?? 'Pigeon-Webhook/1', ...headers };
    if (body !== undefined) {
      if (!Object.keys(h).some((k) => k.toLowerCase() === 'content-type')) h['content-type'] = 'application/json';
      h['content-length'] = String(Buffer.byteLength(body));
    }
    // Without safe agents, agent: false, so no pooled connection to an unchecked address is ever reused.
    const r = mod.request(
      url,
      { method, headers: h, lookup: checkedLookup(opts.allowPrivate), signal: opts.signal, agent: agent ?? false },
      (res) => {
        const chunks: Buffer[] = [];
        let size = 0;
        res.on('data', (c: Buffer) => {
          if (size < maxBody) chunks.push(c);
          size += c.length;
        });
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            body: Buffer.concat(chunks).subarray(0, maxBody).toString('utf8'),
            location: typeof res.headers.location === 'string' ? res.headers.location : undefined,
          }),
        );
        res.on('error', reject);
      },
    );
    r.on('error', (err: NodeJS.ErrnoException) =>
      reject(
        r.reusedSocket && (err.code === 'ECONNRESET' || err.code === 'EPIPE') && !opts.signal.aborted
          ? new ReusedSocketError(err.message)
          : err,
      ),
    );
    if (body !== undefined) r.write(body);
    r.end();
  });
}
