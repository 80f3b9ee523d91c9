import type { TransportKind, TransportSettings } from '../db/schema.js';
import { openSecret, sealSecret, type Keyring } from '../lib/secrets.js';
import { secretPlaces } from '../lib/secret-places.js';
import { REGION } from './keys.js';

export { DEFAULT_TRANSPORT } from './keys.js';

/** A transport's settings as a caller gives them: an SMTP URL (its password the secret) or SES. */
export type TransportInput =
  | { kind: 'smtp'; url: string }
  | { kind: 'ses'; region: string; configurationSet?: string; accessKeyId?: string; secretAccessKey?: string };

/** Why a transport's settings cannot be used, said for the field that is wrong. */
export class TransportSettingsError extends Error {
  constructor(
    readonly field: string,
    message: string,
  ) {
    super(message);
  }
}

/**
 * Splits a caller's settings into what is stored in the clear and the secret to seal: an SMTP URL's
 * password, an SES secret access key. An SMTP URL is `smtp://` (STARTTLS on 587 by default) or
 * `smtps://` (TLS on 465), with a host, an optional `user:password@` and the query options of
 * `SMTP_URL` (`pool`, `requireTLS`, `tlsRejectUnauthorized`).
 * @returns `secret` undefined when the input carries none (an update then keeps the stored one).
 * @throws TransportSettingsError naming the field (`settings.url`, `settings.region`, …).
 */
export function splitSettings(input: TransportInput): { settings: TransportSettings; secret?: string } {
  if (input.kind === 'smtp') {
    let u: URL;
    try {
      u = new URL(input.url);
    } catch {
      throw new TransportSettingsError('settings.url', 'The SMTP URL is not a URL, e.g. smtp://user:password@host:587');
    }
    if (u.protocol !== 'smtp:' && u.protocol !== 'smtps:')
      throw new TransportSettingsError('settings.url', 'The SMTP URL must start with smtp:// or smtps://');
    if (!u.hostname) throw new TransportSettingsError('settings.url', 'The SMTP URL has no host');
    if (u.pathname && u.pathname !== '/' && u.pathname !== '')
      throw new TransportSettingsError('settings.url', 'The SMTP URL takes no path');
    const pool = u.searchParams.get('pool');
    if (pool !== null && !(Number.isInteger(Number(pool)) && Number(pool) >= 1 && Number(pool) <= 100))
      throw new TransportSettingsError('settings.url', 'pool must be a whole number from 1 to 100');
    const secret = u.password ? decodeURIComponent(u.password) : undefined;
    u.password = '';
    return { settings: { url: u.toString().replace(/\/(\?|$)/, '$1') }, ...(secret ? { secret } : {}) };
  }
  if (!REGION.test(input.region))
    throw new TransportSettingsError('settings.region', 'The SES region is not an AWS region, e.g. eu-west-1');
  if (input.secretAccessKey && !input.accessKeyId)
    throw new TransportSettingsError('settings.accessKeyId', 'A secret access key needs its access key id');
  return {
    settings: {
      region: input.region,
      ...(input.configurationSet ? { configurationSet: input.configurationSet } : {}),
      ...(input.accessKeyId ? { accessKeyId: input.accessKeyId } : {}),
    },
    ...(input.secretAccessKey ? { secret: input.secretAccessKey } : {}),
  };
}

/** The secret sealed for transport `id` (lib/secrets.ts), bound to its place. */
export function sealTransportSecret(ring: Keyring, id: string, secret: string): string {
  return sealSecret(ring, secret, secretPlaces.transportSecret(id));
}

/** The secret of transport `id` in clear. @throws as `openSecret` (the sealing key is not configured, or the value was altered). */
export function openTransportSecret(ring: Keyring, id: string, sealed: string): string {
  return openSecret(ring, sealed, secretPlaces.transportSecret(id));
}

/** The SMTP URL with its password put back, as `smtpTransport` takes it. */
export function smtpUrlWithPassword(url: string, password: string | undefined): string {
  if (!password) return url;
  const u = new URL(url);
  u.password = encodeURIComponent(password);
  return u.toString();
}

/** The kind a stored settings object belongs to (for rows read without their `kind`). */
export function kindOf(settings: TransportSettings): TransportKind {
  return 'url' in settings ? 'smtp' : 'ses';
}
