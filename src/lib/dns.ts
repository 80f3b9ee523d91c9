import { promises as dnsPromises } from 'node:dns';
import type { Config } from '../config.js';

/** Per look-up limit: each look-up times out after 3 s. */
export const DNS_TIMEOUT_MS = 3000;

/** Why a look-up could not be answered; "no such name" and "no such record" are not errors. */
export type DnsFailure = 'timeout' | 'servfail' | 'refused' | 'other';

/**
 * Thrown by {@link DnsClient} methods when the DNS could not answer (timeout, SERVFAIL, refused,
 * unreachable server); the records may exist. NXDOMAIN and NODATA never throw (they answer `[]`).
 */
export class DnsLookupError extends Error {
  readonly failure: DnsFailure;
  readonly hostname: string;
  readonly rrtype: string;
  /** The `node:dns` error code, e.g. `ETIMEOUT`, `ESERVFAIL`. */
  readonly dnsCode: string;

  constructor(failure: DnsFailure, rrtype: string, hostname: string, dnsCode: string) {
    super(`DNS ${rrtype} look-up of ${hostname} failed: ${failure} (${dnsCode})`);
    this.name = 'DnsLookupError';
    this.failure = failure;
    this.hostname = hostname;
    this.rrtype = rrtype;
    this.dnsCode = dnsCode;
  }
}

export interface MxRecord {
  exchange: string;
  priority: number;
}

/**
 * DNS look-ups for domain checks and `/v1/verify`. Each method answers `[]` when the name does not
 * exist (NXDOMAIN) or has no record of that type (NODATA), and throws {@link DnsLookupError} when the
 * question could not be answered (timeout after {@link DNS_TIMEOUT_MS}, SERVFAIL, refused, …).
 */
export interface DnsClient {
  /** TXT records; each record is its character-strings (join them for the full value). */
  resolveTxt(hostname: string): Promise<string[][]>;
  resolveMx(hostname: string): Promise<MxRecord[]>;
  /** IPv4 addresses. */
  resolve4(hostname: string): Promise<string[]>;
  /** IPv6 addresses. */
  resolve6(hostname: string): Promise<string[]>;
  /** Name server host names. */
  resolveNs(hostname: string): Promise<string[]>;
}

// c-ares codes that mean "the answer is: nothing there".
const EMPTY = new Set(['ENOTFOUND', 'ENODATA', 'EBADNAME', 'ENONAME']);

function failureOf(code: string): DnsFailure {
  if (code === 'ETIMEOUT') return 'timeout';
  if (code === 'ESERVFAIL') return 'servfail';
  if (code === 'EREFUSED' || code === 'ECONNREFUSED') return 'refused';
  return 'other';
}

/**
 * `ip[:port]` as DNS_SERVERS allows it (config.ts) → the form `Resolver.setServers` takes:
 * a bare bracketed IPv6 address loses its brackets.
 */
export function toResolverServer(server: string): string {
  const bare = /^\[([0-9a-fA-F:]+)\]$/.exec(server);
  return bare ? bare[1] : server;
}

/**
 * A {@link DnsClient} over a `node:dns` `Resolver`: the servers of `DNS_SERVERS` when set, else the
 * system resolver; one try per look-up, {@link DNS_TIMEOUT_MS} each.
 */
export function createDnsClient(config: Pick<Config, 'DNS_SERVERS'>, timeoutMs = DNS_TIMEOUT_MS): DnsClient {
  const resolver = new dnsPromises.Resolver({ timeout: timeoutMs, tries: 1 });
  if (config.DNS_SERVERS?.length) resolver.setServers(config.DNS_SERVERS.map(toResolverServer));

  async function lookup<T>(rrtype: string, hostname: string, run: () => Promise<T[]>): Promise<T[]> {
    let timer: NodeJS.Timeout | undefined;
    // c-ares enforces the timeout per server; this bounds the whole look-up when several servers are set.
    const guard = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(Object.assign(new Error('timeout'), { code: 'ETIMEOUT' })), timeoutMs + 250);
    });
    try {
      return await Promise.race([run(), guard]);
    } catch (err) {
      const code = String((err as { code?: unknown }).code ?? 'UNKNOWN');
      if (EMPTY.has(code)) return [];
      throw new DnsLookupError(failureOf(code), rrtype, hostname, code);
    } finally {
      clearTimeout(timer);
    }
  }

  return {
    resolveTxt: (h) => lookup('TXT', h, () => resolver.resolveTxt(h)),
    resolveMx: (h) => lookup('MX', h, () => resolver.resolveMx(h)),
    resolve4: (h) => lookup('A', h, () => resolver.resolve4(h)),
    resolve6: (h) => lookup('AAAA', h, () => resolver.resolve6(h)),
    resolveNs: (h) => lookup('NS', h, () => resolver.resolveNs(h)),
  };
}

const clients = new WeakMap<object, DnsClient>();

/**
 * The process's {@link DnsClient} for a configuration (one `Resolver` per config object, made on
 * first use), so features need no DNS field in `Deps`.
 */
export function dnsFor(deps: { config: Pick<Config, 'DNS_SERVERS'> }): DnsClient {
  let client = clients.get(deps.config);
  if (!client) {
    client = createDnsClient(deps.config);
    clients.set(deps.config, client);
  }
  return client;
}
