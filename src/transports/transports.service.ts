import { sql } from 'drizzle-orm';
import type { Deps } from '../deps.js';
import { transports, type TransportSettings } from '../db/schema.js';
import { sqlState } from '../http/db-errors.js';
import { AppError, invalid, notFound, type FieldError } from '../http/errors.js';
import { isUuid, newId } from '../lib/ids.js';
import { refusedHost } from '../lib/safe-http.js';
import { keyring, resealColumn, secretPlaces, type ResealCount } from '../lib/secret-places.js';
import {
  DEFAULT_TRANSPORT,
  openTransportSecret,
  sealTransportSecret,
  splitSettings,
  TransportSettingsError,
  type TransportInput,
} from './settings.js';
import { parseFallbacks } from './keys.js';
import { testTransport } from './transport-test.js';
import * as repo from './transports.repo.js';
import type { CreateTransportBody, PutRulesBody, UpdateTransportBody } from './transports.schema.js';

/** The rules of a project's transports: sealed credentials, unique names, checked hosts, routing rules. */

const SETTING = 'TRANSPORT_ALLOW_PRIVATE_ADDRESSES';
const iso = (d: Date | null) => d?.toISOString() ?? null;

/** A breaker as the API shows it; no row is a closed breaker without failures. */
function healthView(h: repo.HealthRow | undefined) {
  return {
    state: h?.state ?? 'closed',
    failures: h?.failures ?? 0,
    openedAt: iso(h?.openedAt ?? null),
    retryAt: iso(h?.retryAt ?? null),
    lastError: h?.lastError ?? null,
  };
}

/** Settings as shown: the URL has no password in it already; SES settings without the test-only endpoint. */
function settingsView(s: TransportSettings) {
  if ('url' in s) return { url: s.url };
  return {
    region: s.region,
    ...(s.configurationSet ? { configurationSet: s.configurationSet } : {}),
    ...(s.accessKeyId ? { accessKeyId: s.accessKeyId } : {}),
  };
}

/** A transport as the API shows it: never its secret, only whether one is stored. */
export function transportView(t: repo.TransportRow, health: repo.HealthRow | undefined) {
  return {
    id: t.id,
    name: t.name,
    kind: t.kind,
    settings: settingsView(t.settings),
    credentials: t.secret ? ('set' as const) : ('none' as const),
    maxPerSecond: t.maxPerSecond,
    maxConnections: t.maxConnections,
    enabled: t.enabled,
    health: healthView(health),
    createdAt: t.createdAt.toISOString(),
    updatedAt: t.updatedAt.toISOString(),
  };
}

async function mustFind(deps: Deps, projectId: string, id: string) {
  const t = isUuid(id) ? await repo.findTransport(deps.db, projectId, id) : undefined;
  if (!t) throw notFound('Transport');
  return t;
}

async function viewOf(deps: Deps, t: repo.TransportRow) {
  return transportView(t, (await repo.healthOf(deps.db, [t.id])).get(t.id));
}

/**
 * Validates settings for `kind` and splits the secret out.
 * @throws AppError 422 naming the field: invalid settings, or an SMTP host that is an IP literal
 *   outside the allowed ranges or a metadata host.
 */
function checkedSettings(deps: Deps, input: TransportInput) {
  let split: ReturnType<typeof splitSettings>;
  try {
    split = splitSettings(input);
  } catch (err) {
    if (err instanceof TransportSettingsError) throw invalid(err.field, err.message);
    throw err;
  }
  if ('url' in split.settings) {
    const why = refusedHost(
      new URL(split.settings.url).hostname,
      deps.config.TRANSPORT_ALLOW_PRIVATE_ADDRESSES,
      SETTING,
    );
    if (why) throw invalid('settings.url', `The SMTP host cannot be used: ${why}`);
  }
  return split;
}

const duplicate = (name: string) =>
  new AppError('CONFLICT', `A transport named "${name}" exists already in this project; choose another name`);

/** Adds a transport; its password or secret key is sealed, bound to the new id. */
export async function createTransport(deps: Deps, projectId: string, body: CreateTransportBody) {
  const { settings, secret } = checkedSettings(deps, { kind: body.kind, ...body.settings } as TransportInput);
  const id = newId();
  const now = deps.clock.now();
  try {
    const t = await repo.insertTransport(deps.db, {
      id,
      projectId,
      name: body.name,
      kind: body.kind,
      settings,
      secret: secret ? sealTransportSecret(keyring(deps), id, secret) : null,
      maxPerSecond: body.maxPerSecond ?? null,
      maxConnections: body.maxConnections ?? null,
      enabled: body.enabled ?? true,
      createdAt: now,
      updatedAt: now,
    });
    return transportView(t, undefined);
  } catch (e) {
    if (sqlState(e) === '23505') throw duplicate(body.name);
    throw e;
  }
}

/** An SES account for people: its region and configuration set. */
const sesDescription = (region: string, set: string | undefined) =>
  `Amazon SES in ${region}${set ? ` (configuration set ${set})` : ''}`;

/** An SMTP URL for people: host and port, never its credentials. */
function smtpDescription(url: string): string {
  const u = new URL(url);
  return `SMTP relay ${u.hostname}:${u.port || (u.protocol === 'smtps:' ? '465' : '587')}`;
}

/** How the instance's own transport is described: where it sends, never its credentials. */
export function defaultTransport(config: Deps['config']): { kind: 'smtp' | 'ses' | 'outbox'; description: string } {
  if (config.SES_REGION)
    return {
      kind: 'ses',
      description: sesDescription(config.SES_REGION, config.SES_CONFIGURATION_SET),
    };
  if (config.SMTP_URL) return { kind: 'smtp', description: smtpDescription(config.SMTP_URL) };
  return { kind: 'outbox', description: 'Outbox: messages are written to files on the server, not sent' };
}

/** The project's transports by name, and the instance's own. */
export async function listTransports(deps: Deps, projectId: string) {
  const rows = await repo.listTransports(deps.db, projectId);
  const fallbacks = parseFallbacks(deps.config.FALLBACK_TRANSPORTS);
  const health = await repo.healthOf(deps.db, [
    DEFAULT_TRANSPORT,
    ...fallbacks.map((f) => f.key),
    ...rows.map((t) => t.id),
  ]);
  return {
    transports: rows.map((t) => transportView(t, health.get(t.id))),
    default: { ...defaultTransport(deps.config), health: healthView(health.get(DEFAULT_TRANSPORT)) },
    fallbacks: fallbacks.map((f) => ({
      id: f.key,
      kind: f.target.kind,
      description:
        f.target.kind === 'ses'
          ? sesDescription(f.target.region, f.target.configurationSet)
          : smtpDescription(f.target.url),
      health: healthView(health.get(f.key)),
    })),
  };
}

export async function getTransport(deps: Deps, projectId: string, id: string) {
  return viewOf(deps, await mustFind(deps, projectId, id));
}

/**
 * Changes any field. New settings are checked against the kind (given, else stored). While the kind
 * stays, settings without a password or secret key keep the stored one; `clearCredentials` removes it
 * (for SES with the access key id, so the default AWS credentials are used).
 * @throws AppError 422 for settings of the other kind or a kind change without settings; 409 for a taken name.
 */
export async function updateTransport(deps: Deps, projectId: string, id: string, body: UpdateTransportBody) {
  const t = await mustFind(deps, projectId, id);
  const kind = body.kind ?? t.kind;
  const set: Parameters<typeof repo.updateTransport>[3] = { updatedAt: deps.clock.now() };
  if (body.name !== undefined) set.name = body.name;
  if (body.maxPerSecond !== undefined) set.maxPerSecond = body.maxPerSecond;
  if (body.maxConnections !== undefined) set.maxConnections = body.maxConnections;
  if (body.enabled !== undefined) set.enabled = body.enabled;
  if (kind !== t.kind && !body.settings) throw invalid('settings', `Changing the kind to ${kind} needs its settings`);
  let settings = t.settings;
  let secret: string | null = t.secret;
  let given = false;
  if (body.settings) {
    if ('url' in body.settings !== (kind === 'smtp'))
      throw invalid(
        'settings',
        kind === 'smtp' ? 'An SMTP transport takes settings {url}' : 'An SES transport takes settings {region, …}',
      );
    const split = checkedSettings(deps, { kind, ...body.settings } as TransportInput);
    settings = split.settings;
    given = !!split.secret;
    if (split.secret) secret = sealTransportSecret(keyring(deps), t.id, split.secret);
    else if (kind !== t.kind) secret = null;
    set.kind = kind;
  }
  // A password given with it is the new one; otherwise the stored one goes (with an SES key id).
  if (body.clearCredentials && !given) {
    secret = null;
    if (!('url' in settings) && settings.accessKeyId) {
      const { accessKeyId: _k, ...rest } = settings;
      settings = rest;
    }
  }
  if (settings !== t.settings) set.settings = settings;
  set.secret = secret;
  try {
    const row = await repo.updateTransport(deps.db, projectId, id, set);
    if (!row) throw notFound('Transport');
    return viewOf(deps, row);
  } catch (e) {
    if (sqlState(e) === '23505') throw duplicate(body.name ?? t.name);
    throw e;
  }
}

/** Positions (from 1) of the rules that list the transport. */
function rulesUsing(rules: repo.RuleRow[], id: string): number[] {
  return rules.flatMap((r, i) => (r.transports.includes(id) ? [i + 1] : []));
}

/**
 * Deletes the transport and its health row.
 * @throws AppError 409 CONFLICT naming the rule positions while a routing rule lists it (nothing deleted).
 */
export async function deleteTransport(deps: Deps, projectId: string, id: string): Promise<void> {
  if (!isUuid(id)) throw notFound('Transport');
  await deps.db.transaction(async (tx) => {
    // Serializes with PUT /transports/rules of the project: a rule cannot name it as it goes.
    await tx.execute(sql`select 1 from projects where id = ${projectId} for update`);
    const t = await repo.findTransport(tx, projectId, id);
    if (!t) throw notFound('Transport');
    const used = rulesUsing(await repo.listRules(tx, projectId), id);
    if (used.length) {
      const which =
        used.length === 1
          ? `routing rule ${used[0]}`
          : `routing rules ${used.slice(0, -1).join(', ')} and ${used.at(-1)}`;
      throw new AppError(
        'CONFLICT',
        `The transport "${t.name}" is used by ${which}; remove it from ${used.length === 1 ? 'that rule' : 'those rules'} first.`,
      );
    }
    await repo.deleteTransport(tx, projectId, id);
    await tx.execute(sql`delete from transport_health where transport = ${id}`);
  });
}

/** Tries the transport now (also when disabled) and says what happened; never throws for the transport's faults. */
export async function testTransportById(deps: Deps, projectId: string, id: string) {
  const t = await mustFind(deps, projectId, id);
  const started = performance.now();
  let secret: string | undefined;
  try {
    secret = t.secret ? openTransportSecret(keyring(deps), t.id, t.secret) : undefined;
  } catch {
    return {
      ok: false,
      message: 'The stored credentials cannot be opened with the encryption key; enter the password again.',
      durationMs: 0,
    };
  }
  const r = await testTransport(
    { kind: t.kind, settings: t.settings, secret },
    { allowPrivate: deps.config.TRANSPORT_ALLOW_PRIVATE_ADDRESSES },
  );
  return { ...r, durationMs: Math.round(performance.now() - started) };
}

function ruleView(r: repo.RuleRow) {
  return { match: r.match, transports: r.transports };
}

export async function listRules(deps: Deps, projectId: string) {
  return { rules: (await repo.listRules(deps.db, projectId)).map(ruleView) };
}

/**
 * Replaces the project's routing rules at once. Each listed transport is one of the project's,
 * `default` or an instance fallback (`fallback-N`, FALLBACK_TRANSPORTS); an unknown one (another project's too) is a 422 naming `rules.N.transports.M`, with
 * nothing written.
 */
export async function putRules(deps: Deps, projectId: string, body: PutRulesBody) {
  return deps.db.transaction(async (tx) => {
    await tx.execute(sql`select 1 from projects where id = ${projectId} for update`);
    const own = new Set([
      ...(await repo.listTransports(tx, projectId)).map((t) => t.id),
      ...parseFallbacks(deps.config.FALLBACK_TRANSPORTS).map((f) => f.key),
    ]);
    const errors: FieldError[] = [];
    body.rules.forEach((rule, n) =>
      rule.transports.forEach((t, m) => {
        if (t !== DEFAULT_TRANSPORT && !own.has(t))
          errors.push({
            field: `rules.${n}.transports.${m}`,
            message: `Not a transport of this project, "${DEFAULT_TRANSPORT}" nor an instance fallback`,
            code: 'unknown_transport',
          });
      }),
    );
    if (errors.length) throw new AppError('VALIDATION_ERROR', errors[0].message, { errors });
    const rows = body.rules.map((r, i) => ({
      id: newId(),
      projectId,
      position: i,
      match: Object.fromEntries(Object.entries(r.match).filter(([, v]) => v !== undefined)),
      transports: r.transports,
    }));
    await repo.replaceRules(tx, projectId, rows);
    return { rules: rows.map((r) => ({ match: r.match, transports: r.transports })) };
  });
}

/** Start-up step: every transport's password or secret key sealed with the current key (lib/secret-places.ts). */
export async function resealTransportSecrets(deps: Pick<Deps, 'db' | 'config' | 'secret'>): Promise<ResealCount> {
  return resealColumn(deps, transports, transports.id, transports.secret, secretPlaces.transportSecret);
}
