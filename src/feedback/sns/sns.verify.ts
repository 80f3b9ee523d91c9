import { createVerify, X509Certificate } from 'node:crypto';

/**
 * Amazon SNS message signatures (the HTTP/S endpoint protocol): every message SNS posts is signed by
 * SNS with the private key of the certificate at `SigningCertURL`, over a canonical string of some of
 * its fields; SignatureVersion 1 is SHA1withRSA, 2 is SHA256withRSA. Nothing in a message is believed
 * before its signature is verified with a certificate fetched from SNS itself.
 */

/** The JSON document SNS posts (`Type`: `Notification`, `SubscriptionConfirmation`, `UnsubscribeConfirmation`). */
export interface SnsMessage {
  Type: string;
  MessageId: string;
  TopicArn: string;
  Message: string;
  Timestamp: string;
  SignatureVersion: string;
  Signature: string;
  SigningCertURL: string;
  Subject?: string;
  SubscribeURL?: string;
  Token?: string;
  UnsubscribeURL?: string;
}

/** How SNS material is fetched over HTTPS; the real ones by default, a test's through `Deps.sns`. */
export interface SnsFetchers {
  /** The PEM text of a signing certificate at `url` (already checked by {@link snsRegionOfCertUrl}). */
  fetchCertificate(url: string): Promise<string>;
  /** Confirms a subscription: a GET of `url` (already checked by {@link isSnsSubscribeUrl}). */
  confirmSubscription(url: string): Promise<void>;
}

/** Why a message is refused (answered 403, nothing written). */
export class SnsVerificationError extends Error {
  override name = 'SnsVerificationError';
}

const SNS_HOST = /^sns\.([a-z]{2}(?:-[a-z]+)+-\d+)\.amazonaws\.com(?:\.cn)?$/;

/** The region of an `https://sns.<region>.amazonaws.com[.cn]/` URL with no port or credentials, or null. */
function snsRegionOf(raw: string): { url: URL; region: string } | null {
  let u: URL;
  try {
    u = new URL(raw);
  } catch {
    return null;
  }
  if (u.protocol !== 'https:' || u.port !== '' || u.username || u.password) return null;
  const m = SNS_HOST.exec(u.hostname);
  return m ? { url: u, region: m[1] } : null;
}

/** The region of a valid `SigningCertURL` (`https://sns.<region>.amazonaws.com[.cn]/….pem`), or null. */
export function snsRegionOfCertUrl(raw: string): string | null {
  const r = snsRegionOf(raw);
  return r && r.url.pathname.endsWith('.pem') && !r.url.search ? r.region : null;
}

/** Whether a `SubscribeURL` is SNS's own confirmation address (`https://sns.<region>.amazonaws.com[.cn]/…`). */
export function isSnsSubscribeUrl(raw: string): boolean {
  return snsRegionOf(raw) !== null;
}

/**
 * The string SNS signs: for a Notification `Message`, `MessageId`, `Subject` (when present),
 * `Timestamp`, `TopicArn`, `Type`; for the confirmations `Message`, `MessageId`, `SubscribeURL`,
 * `Timestamp`, `Token`, `TopicArn`, `Type`; each as `Name\nValue\n`.
 */
export function canonicalString(m: SnsMessage): string {
  const keys =
    m.Type === 'Notification'
      ? ['Message', 'MessageId', ...(m.Subject !== undefined ? ['Subject'] : []), 'Timestamp', 'TopicArn', 'Type']
      : ['Message', 'MessageId', 'SubscribeURL', 'Timestamp', 'Token', 'TopicArn', 'Type'];
  return keys.map((k) => `${k}\n${(m as unknown as Record<string, string>)[k]}\n`).join('');
}

/**
 * The fields a message must have as strings before it can be verified.
 * @throws SnsVerificationError naming the first missing one.
 */
export function asSnsMessage(body: unknown): SnsMessage {
  const b = (body ?? {}) as Record<string, unknown>;
  const required = [
    'Type',
    'MessageId',
    'TopicArn',
    'Message',
    'Timestamp',
    'SignatureVersion',
    'Signature',
    'SigningCertURL',
  ];
  if (b.Type !== 'Notification') required.push('SubscribeURL', 'Token');
  for (const k of required)
    if (typeof b[k] !== 'string') throw new SnsVerificationError(`Unsigned or incomplete SNS message: ${k} missing`);
  for (const k of ['Subject', 'UnsubscribeURL'])
    if (b[k] !== undefined && typeof b[k] !== 'string') throw new SnsVerificationError(`${k} is not a string`);
  return b as unknown as SnsMessage;
}

/** Certificates (or their failures) kept per URL at most; SNS signs with one certificate per region at a time. */
const CACHE_MAX = 64;
/** How long a failed fetch is remembered: posts naming that URL fail at once instead of fetching again. */
export const CERT_FAILURE_TTL_MS = 5 * 60_000;
/** Certificate fetches one process starts per minute at most, whatever is posted to it. */
export const CERT_FETCHES_PER_MINUTE = 10;

interface CertEntry {
  cert: Promise<X509Certificate>;
  /** Set once the fetch failed: when the failure is forgotten. */
  failedUntil?: number;
}

/**
 * Certificates by URL, per fetcher set (the production one lives for the process), with the fetches
 * started in the current minute: posts are unauthenticated until verified, so neither their number
 * nor their URLs may decide how often Pigeon reaches out to SNS.
 */
const caches = new WeakMap<SnsFetchers, { entries: Map<string, CertEntry>; minute: number; fetches: number }>();

async function certificate(fetchers: SnsFetchers, url: string, now: number): Promise<X509Certificate> {
  let cache = caches.get(fetchers);
  if (!cache) caches.set(fetchers, (cache = { entries: new Map(), minute: 0, fetches: 0 }));
  const hit = cache.entries.get(url);
  if (hit && (hit.failedUntil === undefined || hit.failedUntil > now)) return hit.cert;
  const minute = Math.floor(now / 60_000);
  if (cache.minute !== minute) Object.assign(cache, { minute, fetches: 0 });
  if (cache.fetches >= CERT_FETCHES_PER_MINUTE)
    throw new Error('too many certificate fetches this minute; SNS retries later');
  cache.fetches += 1;
  cache.entries.delete(url);
  if (cache.entries.size >= CACHE_MAX) cache.entries.delete(cache.entries.keys().next().value!);
  const entry: CertEntry = { cert: fetchers.fetchCertificate(url).then((pem) => new X509Certificate(pem)) };
  entry.cert.catch(() => {
    entry.failedUntil = now + CERT_FAILURE_TTL_MS;
  });
  cache.entries.set(url, entry);
  return entry.cert;
}

/**
 * Oldest notification accepted, by its signed `Timestamp` (when SNS published it; retries keep it):
 * 7 days, longer than any SNS HTTP/S delivery retry policy runs. Bounding the age is what lets the
 * replay guard (`sns_notifications`) forget ids: a captured genuine message posted again after its
 * id was purged is refused here instead of being applied twice.
 */
export const SNS_MAX_AGE_MS = 7 * 24 * 3600_000;
/** How far in the future a `Timestamp` may be (clock skew between SNS and this server). */
export const SNS_MAX_SKEW_MS = 15 * 60_000;

/**
 * Verifies `m`'s signature: `SigningCertURL` must be SNS's (https, host `sns.<region>.amazonaws.com`
 * or `.com.cn`, path ending `.pem`) in the region of `TopicArn`; the certificate is fetched once per URL
 * and cached (a failure for {@link CERT_FAILURE_TTL_MS}; at most {@link CERT_FETCHES_PER_MINUTE} fetches a
 * minute), must be valid at `now`, and its public key must verify `Signature` (base64) over
 * {@link canonicalString} with SHA1withRSA (SignatureVersion 1) or SHA256withRSA (2); then its
 * `Timestamp` must be at most {@link SNS_MAX_AGE_MS} old and at most {@link SNS_MAX_SKEW_MS} ahead.
 * @throws SnsVerificationError when any of this fails (the certificate could not be fetched included).
 */
export async function verifySnsMessage(m: SnsMessage, fetchers: SnsFetchers, now: Date): Promise<void> {
  const algorithm = m.SignatureVersion === '1' ? 'RSA-SHA1' : m.SignatureVersion === '2' ? 'RSA-SHA256' : null;
  if (!algorithm) throw new SnsVerificationError(`Unsupported SignatureVersion ${JSON.stringify(m.SignatureVersion)}`);
  const region = snsRegionOfCertUrl(m.SigningCertURL);
  if (!region)
    throw new SnsVerificationError(
      `SigningCertURL is not an SNS certificate address: ${m.SigningCertURL.slice(0, 200)}`,
    );
  if (m.TopicArn.split(':')[3] !== region)
    throw new SnsVerificationError('SigningCertURL is not in the region of TopicArn');
  let cert: X509Certificate;
  try {
    cert = await certificate(fetchers, m.SigningCertURL, now.getTime());
  } catch (err) {
    throw new SnsVerificationError(`The signing certificate could not be fetched or read: ${(err as Error).message}`);
  }
  if (now < new Date(cert.validFrom) || now > new Date(cert.validTo))
    throw new SnsVerificationError('The signing certificate is not valid now');
  const ok = createVerify(algorithm).update(canonicalString(m), 'utf8').verify(cert.publicKey, m.Signature, 'base64');
  if (!ok) throw new SnsVerificationError('The SNS signature does not match the message');
  // Read only now that the signature vouches for it.
  const published = Date.parse(m.Timestamp);
  if (Number.isNaN(published)) throw new SnsVerificationError('Timestamp is not a date');
  if (now.getTime() - published > SNS_MAX_AGE_MS)
    throw new SnsVerificationError('The message is older than 7 days (Timestamp): a replay');
  if (published - now.getTime() > SNS_MAX_SKEW_MS) throw new SnsVerificationError('Timestamp is in the future');
}

/** Largest certificate accepted (SNS's are about 2 KB). */
const CERT_MAX_BYTES = 64 * 1024;

/** The production fetchers: HTTPS GETs with a timeout, no redirects (the URLs were checked, a redirect could leave SNS). */
export const defaultSnsFetchers: SnsFetchers = {
  async fetchCertificate(url) {
    const res = await fetch(url, { redirect: 'error', signal: AbortSignal.timeout(10_000) });
    if (!res.ok) throw new Error(`HTTP ${res.status}`);
    const text = await res.text();
    if (text.length > CERT_MAX_BYTES) throw new Error('certificate too large');
    return text;
  },
  async confirmSubscription(url) {
    const res = await fetch(url, { redirect: 'error', signal: AbortSignal.timeout(10_000) });
    await res.arrayBuffer().catch(() => undefined);
    if (!res.ok) throw new Error(`SNS answered HTTP ${res.status}`);
  },
};
