import type Mail from 'nodemailer/lib/mailer/index.js';
import type { Deps } from '../deps.js';
import type { TransportSettings } from '../db/schema.js';
import { mimeBuilder, type MimeBuilder } from '../emails/delivery/mime-builder.js';
import { smtpTransport, type SendHooks, type SendResult, type Transport } from '../emails/delivery/transport.js';
import { keyring } from '../lib/secret-places.js';
import { Breakers, DEFAULT_BREAKER, type BreakerChange } from './breaker.js';
import { isTransportFailure } from './failures.js';
import { checkedAddress } from './lookup.js';
import { routeOf, type RoutedMail, type RoutingRule } from './route.js';
import { AdaptiveRate, isThrottling } from './rate.js';
import { DomainLimits, parseDomainConcurrency } from './domain-limits.js';
import { openTransportSecret, smtpUrlWithPassword } from './settings.js';
import { DEFAULT_TRANSPORT, isInstanceKey, parseFallbacks, type InstanceFallback } from './keys.js';

/** How long a process uses a project's rules and transports before reading them again, ms. */
const PROJECT_TTL_MS = 5_000;

interface TransportRow {
  id: string;
  kind: 'smtp' | 'ses';
  settings: TransportSettings;
  secret: string | null;
  max_per_second: number | null;
  max_connections: number | null;
  enabled: boolean;
  updated_at: Date;
}

interface ProjectRouting {
  at: number;
  rules: RoutingRule[];
  rows: Map<string, TransportRow>;
}

/** A mail's way out, as {@link sendRouted} reports it. */
export interface RoutedResult {
  result: SendResult;
  /** The transport that took it: {@link DEFAULT_TRANSPORT} or a project transport's id. */
  transport: string;
}

/** Thrown when every transport of a mail's route is failing: the mail is retried later, nothing was sent. */
export class NoTransportError extends Error {
  override name = 'NoTransportError';
}

/**
 * The transports of one process: the instance's own (`deps.transport`) and the projects' (built from
 * their rows on first use, rebuilt when a row changes), each project's routing rules read at most
 * every {@link PROJECT_TTL_MS}, and the breakers shared through PostgreSQL (breaker.ts).
 */
export class TransportRegistry {
  readonly breakers: Breakers;
  readonly domains: DomainLimits;
  private rates = new Map<string, { ceiling: number | null; rate: AdaptiveRate }>();
  private projects = new Map<string, ProjectRouting>();
  private built = new Map<string, { version: number; transport: Transport }>();
  private mime: MimeBuilder | undefined;
  private readonly fallbacks: InstanceFallback[];
  /** The route of mail no rule matches: the instance transport, then its fallbacks. */
  private readonly instanceRoute: string[];

  constructor(private readonly deps: Deps) {
    this.fallbacks = parseFallbacks(deps.config.FALLBACK_TRANSPORTS);
    this.instanceRoute = [DEFAULT_TRANSPORT, ...this.fallbacks.map((f) => f.key)];
    this.breakers = new Breakers(deps.pool, () => deps.clock.now(), {
      ...DEFAULT_BREAKER,
      threshold: deps.config.TRANSPORT_BREAKER_FAILURES,
      retryMs: deps.config.TRANSPORT_BREAKER_RETRY_SECONDS * 1000,
    });
    this.domains = new DomainLimits(parseDomainConcurrency(deps.config.DOMAIN_CONCURRENCY));
  }

  /**
   * The adaptive rate of transport `key` in this process (rate.ts): its ceiling is the row's
   * `maxPerSecond`, TRANSPORT_MAX_PER_SECOND for the instance transport and its fallbacks; a changed
   * ceiling starts afresh.
   */
  rateOf(key: string, ceiling: number | null): AdaptiveRate {
    const have = this.rates.get(key);
    if (have && have.ceiling === ceiling) return have.rate;
    const rate = new AdaptiveRate(ceiling ?? undefined);
    this.rates.set(key, { ceiling, rate });
    return rate;
  }

  /** The ceiling of transport `key` of `projectId` as last read. */
  ceilingOf(projectId: string, key: string): number | null {
    if (isInstanceKey(key)) return this.deps.config.TRANSPORT_MAX_PER_SECOND ?? null;
    return this.projects.get(projectId)?.rows.get(key)?.max_per_second ?? null;
  }

  /** The transports `mail` of `projectId` may take, in order: ids with their transport (disabled and deleted ones left out). */
  async route(projectId: string, mail: RoutedMail): Promise<Array<{ key: string; transport: Transport }>> {
    const routing = await this.routing(projectId);
    return this.resolve(routing, routeOf(routing.rules, mail, this.instanceRoute));
  }

  /** The transport `key` of `projectId` (a mail that was handed to it stays with it), or none if it is gone. */
  async byKey(projectId: string, key: string): Promise<Array<{ key: string; transport: Transport }>> {
    return this.resolve(await this.routing(projectId), [key], true);
  }

  /** Closes every project transport this process built. */
  async close(): Promise<void> {
    const all = [...this.built.values()];
    this.built.clear();
    await Promise.all(all.map((b) => b.transport.close().catch(() => undefined)));
    await this.mime?.close();
  }

  private resolve(routing: ProjectRouting, keys: string[], keepDisabled = false) {
    const out: Array<{ key: string; transport: Transport }> = [];
    for (const key of keys) {
      if (key === DEFAULT_TRANSPORT) {
        out.push({ key, transport: this.deps.transport });
        continue;
      }
      const fallback = this.fallbacks.find((f) => f.key === key);
      if (fallback) {
        out.push({ key, transport: this.instanceFallback(fallback) });
        continue;
      }
      const row = routing.rows.get(key);
      if (!row || (!row.enabled && !keepDisabled)) continue;
      out.push({ key, transport: this.transportOf(row) });
    }
    return out;
  }

  private async probeSesQuota(
    id: string,
    region: string,
    credentials: { accessKeyId: string; secretAccessKey: string } | undefined,
  ): Promise<void> {
    try {
      const { SESv2Client, GetAccountCommand } = await import('@aws-sdk/client-sesv2');
      const client = new SESv2Client({ region, ...(credentials ? { credentials } : {}), maxAttempts: 1 });
      const account = await client.send(new GetAccountCommand({}));
      client.destroy();
      const max = account.SendQuota?.MaxSendRate;
      if (max && max > 0) this.rateOf(id, null).setCeiling(max);
    } catch (err) {
      this.deps.log.warn(
        { err, transport: id },
        'could not read the SES send quota; the rate adapts to throttling alone',
      );
    }
  }

  private async routing(projectId: string): Promise<ProjectRouting> {
    const now = Date.now();
    const hit = this.projects.get(projectId);
    if (hit && now - hit.at < PROJECT_TTL_MS) return hit;
    const r = await this.deps.pool.query<{ rules: RoutingRule[] | null; rows: TransportRow[] | null }>(
      `select
         (select json_agg(json_build_object('match', r.match, 'transports', r.transports) order by r.position)
            from transport_rules r where r.project_id = $1) as rules,
         (select json_agg(t) from (select id, kind, settings, secret, max_per_second, max_connections, enabled, updated_at
            from transports where project_id = $1) t) as rows`,
      [projectId],
    );
    const rows = (r.rows[0]?.rows ?? []).map((t) => ({ ...t, updated_at: new Date(t.updated_at) }));
    const routing = { at: now, rules: r.rows[0]?.rules ?? [], rows: new Map(rows.map((t) => [t.id, t])) };
    this.projects.set(projectId, routing);
    return routing;
  }

  private instanceFallback(f: InstanceFallback): Transport {
    const have = this.built.get(f.key);
    if (have) return have.transport;
    const transport = this.buildTarget(f.target, null, undefined);
    this.built.set(f.key, { version: 0, transport });
    return transport;
  }

  private transportOf(row: TransportRow): Transport {
    const version = row.updated_at.getTime();
    const have = this.built.get(row.id);
    if (have && have.version === version) return have.transport;
    if (have) void have.transport.close().catch(() => undefined);
    const transport = this.build(row);
    this.built.set(row.id, { version, transport });
    return transport;
  }

  private build(row: TransportRow): Transport {
    const secret = row.secret ? openTransportSecret(keyring(this.deps), row.id, row.secret) : undefined;
    const target =
      'url' in row.settings
        ? { kind: 'smtp' as const, url: smtpUrlWithPassword(row.settings.url, secret) }
        : { kind: 'ses' as const, ...row.settings };
    return this.buildTarget(target, row, secret);
  }

  /**
   * A transport for `target`: a project's (`row` given: its connections cap, checked addresses, its SES
   * key) or an instance fallback (trusted like SMTP_URL: no address check).
   */
  private buildTarget(
    target:
      InstanceFallback['target'] | { kind: 'ses'; region: string; configurationSet?: string; accessKeyId?: string },
    row: TransportRow | null,
    secret: string | undefined,
  ): Transport {
    // One builder for every transport built here; each transport's close must leave it open.
    this.mime ??= mimeBuilder(this.deps.config.MIME_THREADS);
    const shared: MimeBuilder = { build: (m, o) => this.mime!.build(m, o), close: async () => undefined };
    if (target.kind === 'smtp') {
      if (!row) return smtpTransport(target.url, shared);
      const url = new URL(target.url);
      if (row.max_connections) url.searchParams.set('pool', String(row.max_connections));
      const allowPrivate = this.deps.config.TRANSPORT_ALLOW_PRIVATE_ADDRESSES;
      return smtpTransport(url.toString(), shared, { lookup: (host) => checkedAddress(host, allowPrivate) });
    }
    const accessKeyId = 'accessKeyId' in target ? target.accessKeyId : undefined;
    const credentials = accessKeyId && secret ? { accessKeyId, secretAccessKey: secret } : undefined;
    return lazySes(async () => {
      const { sesTransport } = await import('../emails/delivery/ses-transport.js');
      // Without a maxPerSecond the account's own send quota is the ceiling (GetAccount, asked once).
      if (row && !row.max_per_second) void this.probeSesQuota(row.id, target.region, credentials);
      return sesTransport({
        region: target.region,
        configurationSet: target.configurationSet,
        credentials,
        mime: shared,
      });
    });
  }
}

/** An SES transport whose SDK is loaded with its first mail (the AWS SDK is large, most installs never use it). */
function lazySes(make: () => Promise<Transport>): Transport {
  let t: Promise<Transport> | undefined;
  return {
    kind: 'ses',
    async send(message, hooks) {
      t ??= make();
      return (await t).send(message, hooks);
    },
    async close() {
      if (t) await (await t).close();
    },
  };
}

const registries = new WeakMap<Deps, TransportRegistry>();

/** The registry of `deps` (one per Deps object, so per process part). */
export function transportRegistry(deps: Deps): TransportRegistry {
  let r = registries.get(deps);
  if (!r) registries.set(deps, (r = new TransportRegistry(deps)));
  return r;
}

/** Closes the project transports of `deps`, if any were built (main.ts at shutdown; tests). */
export async function closeTransports(deps: Deps): Promise<void> {
  await registries.get(deps)?.close();
  registries.delete(deps);
}

/** One mail for {@link sendRouted}. */
export interface RoutedSend {
  projectId: string;
  mail: RoutedMail;
  /** The transport the mail was handed to by an earlier run (emails.transport), if any: it goes there again, and only there. */
  handedTo: string | null;
  /** True when the mail may only go to the instance's outbox (an unverified sender, domains/verified.ts). */
  localOnly: boolean;
  message: Mail.Options;
  /** The hooks of the send through transport `key`; `beforeHandOff` writes the mark naming it. */
  hooks: (key: string) => SendHooks;
  /** Called with each breaker change (transport.degraded / transport.recovered). */
  onChange?: (change: BreakerChange) => Promise<void>;
}

/**
 * Sends a mail through its route (issue 37): each transport in order whose breaker admits it; a
 * transport failure (failures.ts) before the hand-off mark counts against that transport and the
 * mail moves on to the next one at once. Once a mark names a transport the mail never goes to another:
 * the error is the caller's (a retry then comes back to the same transport, {@link RoutedSend.handedTo}).
 * A route of the instance transport alone goes straight to it, with no breaker bookkeeping, as before
 * routing existed.
 * @throws the last transport's error, {@link NoTransportError} when every breaker is open, or the
 *   error of a refusal that is about the mail (a recipient's 5xx, a permanent refusal).
 */
export async function sendRouted(deps: Deps, s: RoutedSend): Promise<RoutedResult> {
  if (s.localOnly) return sendDirect(deps, s);
  const registry = transportRegistry(deps);
  const route = s.handedTo ? await registry.byKey(s.projectId, s.handedTo) : await registry.route(s.projectId, s.mail);
  if (!route.length) {
    throw new NoTransportError(
      s.handedTo
        ? `The transport this mail was handed to (${s.handedTo}) is gone; it cannot be sent elsewhere without risking a copy`
        : "No enabled transport in this mail's route",
    );
  }
  if (route.length === 1 && route[0].key === DEFAULT_TRANSPORT && !s.handedTo) return sendDirect(deps, s);
  const { breakers } = registry;
  // Instance transports' breakers belong to no project: their changes go to the log and /metrics only.
  const owner = (key: string) => (isInstanceKey(key) ? null : s.projectId);
  let last: unknown;
  for (const { key, transport } of route) {
    if ((await breakers.admit(key)) === 'skip') continue;
    let marked = false;
    const hooks = s.hooks(key);
    const before = hooks.beforeHandOff;
    try {
      const result = await through(deps, s, key, transport, {
        ...hooks,
        ...(before
          ? {
              beforeHandOff: async () => {
                await before();
                marked = true;
              },
            }
          : {}),
      });
      deps.metrics.transportSends.inc({ transport: key, outcome: 'sent' });
      const change = await breakers.success(key, owner(key));
      if (change) await s.onChange?.(change);
      return { result, transport: key };
    } catch (err) {
      named(err, key);
      if (isThrottling(err)) {
        // Too fast, not failing: the rate halved (through), the mail waits for a retry on the same route.
        deps.metrics.transportSends.inc({ transport: key, outcome: 'throttled' });
        throw err;
      }
      if (marked || !isTransportFailure(err)) {
        deps.metrics.transportSends.inc({ transport: key, outcome: 'refused' });
        throw err;
      }
      deps.metrics.transportSends.inc({ transport: key, outcome: 'failed' });
      const reason = (err as Error)?.message ?? String(err);
      deps.log.warn({ transport: key, err: reason }, 'transport failed; trying the next one of the route');
      const change = await breakers.failure(key, owner(key), reason);
      if (change) await s.onChange?.(change);
      last = err;
    }
  }
  throw last ?? new NoTransportError("Every transport of this mail's route is failing; it will be tried again later");
}

/** The instance transport with no breaker: the route has no other way out. */
async function sendDirect(deps: Deps, s: RoutedSend): Promise<RoutedResult> {
  try {
    const result = await through(deps, s, DEFAULT_TRANSPORT, deps.transport, s.hooks(DEFAULT_TRANSPORT));
    deps.metrics.transportSends.inc({ transport: DEFAULT_TRANSPORT, outcome: 'sent' });
    return { result, transport: DEFAULT_TRANSPORT };
  } catch (err) {
    named(err, DEFAULT_TRANSPORT);
    const outcome = isThrottling(err) ? 'throttled' : isTransportFailure(err) ? 'failed' : 'refused';
    deps.metrics.transportSends.inc({ transport: DEFAULT_TRANSPORT, outcome });
    throw err;
  }
}

/**
 * One send through transport `key` at its adaptive rate and within its recipient domain's concurrency
 * (rate.ts, domain-limits.ts); a throttling answer halves the rate.
 */
async function through(
  deps: Deps,
  s: RoutedSend,
  key: string,
  transport: Transport,
  hooks: SendHooks,
): Promise<SendResult> {
  const registry = transportRegistry(deps);
  const rate = registry.rateOf(key, registry.ceilingOf(s.projectId, key));
  await rate.acquire();
  const to = s.mail.toEmail;
  const release = await registry.domains.acquire(key, to.slice(to.lastIndexOf('@') + 1).toLowerCase());
  try {
    return await transport.send(s.message, hooks);
  } catch (err) {
    if (isThrottling(err)) {
      const now = rate.throttled();
      deps.metrics.transportRate.set({ transport: key }, now === Infinity ? -1 : now);
      deps.log.warn({ transport: key, rate: now }, 'transport throttled: its rate halves');
    }
    throw err;
  } finally {
    release();
  }
}

/** Marks a send error with the transport that answered it, for {@link transportOf}. */
function named(err: unknown, key: string): void {
  if (err && typeof err === 'object' && !Object.isFrozen(err)) (err as { transport?: string }).transport = key;
}

/** The transport that answered a send error of {@link sendRouted} (a bounce records it), if known. */
export function transportOf(err: unknown): string | undefined {
  const t = (err as { transport?: unknown } | null)?.transport;
  return typeof t === 'string' ? t : undefined;
}
