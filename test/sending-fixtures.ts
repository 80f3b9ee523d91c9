import { generateKeyPairSync, randomUUID } from 'node:crypto';
import { promises as dns } from 'node:dns';
import { authenticate } from 'mailauth';
import type { TestDnsServer } from './dns-server.js';
import { jobsDueNow } from './graphile-test.js';
import { keyring, secretPlaces } from '../src/lib/secret-places.js';
import { sealSecret } from '../src/lib/secrets.js';
import type { Harness } from './harness.js';

export interface TestDomain {
  id: string;
  domain: string;
  selector: string;
  privateKey: string;
  /** `v=DKIM1; k=rsa; p=…` as published. */
  dkimRecord: string;
}

/**
 * Inserts a verified sender domain for `projectId` with a fresh 2048-bit DKIM key, and publishes its
 * DKIM TXT record on `dnsServer` (when given) so that receivers (mailauth) can verify signatures.
 * Stands in for the domains feature: the row has the shape `POST /domains` + verification leave (the
 * key sealed as the feature seals it).
 */
export async function createVerifiedDomain(
  h: Harness,
  projectId: string,
  opts: { domain?: string; dns?: TestDnsServer; verified?: boolean } = {},
): Promise<TestDomain> {
  const domain = opts.domain ?? `send-${randomUUID().slice(0, 8)}.example.test`;
  const selector = 'pigeon1';
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const priv = privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
  const pubDer = publicKey.export({ type: 'spki', format: 'der' }).toString('base64');
  const dkimRecord = `v=DKIM1; k=rsa; p=${pubDer}`;
  const id = randomUUID();
  await h.sql(
    `insert into domains (id, project_id, domain, dkim_selector, dkim_private_key, dkim_public_key, verified, records, verified_at)
     values ($1, $2, $3, $4, $5, $6, $7, $8::jsonb, now())`,
    // Sealed as the domains feature stores it (lib/secrets.ts); for a Pigeon in another process (whose
    // secret this test does not know), in clear, as an older version wrote it, which Pigeon still reads.
    [
      id,
      projectId,
      domain,
      selector,
      h.deps ? sealSecret(keyring(h.deps), priv, secretPlaces.dkimKey(id)) : priv,
      pubDer,
      opts.verified ?? true,
      JSON.stringify([
        { type: 'TXT', name: `${selector}._domainkey.${domain}`, value: dkimRecord, status: 'verified' },
      ]),
    ],
  );
  opts.dns?.set(`${selector}._domainkey.${domain}`, { TXT: [dkimRecord] });
  return { id, domain, selector, privateKey: priv, dkimRecord };
}

/** A DNS resolver function for mailauth that asks only the test DNS server. */
export function testResolver(server: TestDnsServer) {
  const r = new dns.Resolver({ timeout: 2000, tries: 1 });
  r.setServers([server.address]);
  return (name: string, rrtype: string) => r.resolve(name, rrtype as 'TXT') as Promise<unknown>;
}

/** mailauth's DKIM verdicts of a raw message (`pass`, `fail`, `neutral`, …), one per signature. */
export async function dkimResults(
  raw: Buffer,
  server: TestDnsServer,
): Promise<Array<{ result: string; domain: string }>> {
  const res = await authenticate(raw, {
    resolver: testResolver(server) as never,
    ip: '127.0.0.1',
    helo: 'localhost',
    sender: 'bounce@example.test',
    mta: 'mx.example.test',
    disableArc: true,
    disableBimi: true,
    disableDmarc: true,
  } as never);
  return (res.dkim?.results ?? []).map((r: { status: { result: string }; signingDomain: string }) => ({
    result: r.status.result,
    domain: r.signingDomain,
  }));
}

/** Moves every pending Graphile Worker job and event webhook retry of this harness's database to now (skips retry backoff). */
export async function runJobsNow(h: Harness): Promise<void> {
  await jobsDueNow(h);
  // Event webhook retries wait in their rows, not in jobs: bring them forward and wake the dispatcher.
  await h.sql(`with due as (update webhook_deliveries set next_attempt_at = now()
      where status = 'PENDING' and next_attempt_at > now() returning endpoint_id)
    select pg_notify('pigeon_webhook_deliveries', endpoint_id::text) from (select distinct endpoint_id from due) d`);
}

/** Polls `fn` until it returns a truthy value; rejects after `timeoutMs`. */
export async function eventually<T>(
  fn: () => Promise<T>,
  timeoutMs = 15_000,
  what: string | (() => string) = 'condition',
): Promise<NonNullable<T>> {
  const start = Date.now();
  for (;;) {
    const v = await fn();
    if (v) return v as NonNullable<T>;
    // `what` as a function is read at the timeout, e.g. to include a child process's output so far.
    if (Date.now() - start > timeoutMs)
      throw new Error(`timed out waiting for ${typeof what === 'function' ? what() : what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Inserts a template row directly (the templates feature is built elsewhere). @returns its id. */
export async function createTemplate(
  h: Harness,
  projectId: string,
  t: {
    subject: string;
    body: string;
    from: string;
    fromName?: string;
    replyTo?: string;
    type?: 'TRANSACTIONAL' | 'MARKETING' | 'HEADLESS';
    name?: string;
  },
): Promise<string> {
  const id = randomUUID();
  await h.sql(
    `insert into templates (id, project_id, name, subject, body, "from", from_name, reply_to, type) values ($1,$2,$3,$4,$5,$6,$7,$8,$9)`,
    [
      id,
      projectId,
      t.name ?? 'Template',
      t.subject,
      t.body,
      t.from,
      t.fromName ?? null,
      t.replyTo ?? null,
      t.type ?? 'MARKETING',
    ],
  );
  return id;
}

/** The unfolded value of the first header `name` of a raw message (mailparser reshapes some). */
export function rawHeader(raw: Buffer, name: string): string | undefined {
  const head = raw
    .toString('utf8')
    .split(/\r?\n\r?\n/)[0]
    .replace(/\r?\n[ \t]+/g, ' ');
  const line = head.split(/\r?\n/).find((l) => l.toLowerCase().startsWith(name.toLowerCase() + ':'));
  return line?.slice(name.length + 1).trim();
}
