import { createPrivateKey, type KeyObject } from 'node:crypto';
import type Mail from 'nodemailer/lib/mailer/index.js';

/**
 * DKIM private keys parsed once. nodemailer signs with whatever `dkim.privateKey` holds, and a PEM
 * string is parsed again for every signature, a large share of the time a signed message takes to
 * build (bench/campaign.ts). Parsed keys are kept by their PEM text, the oldest dropped past
 * {@link KEY_CACHE_SIZE}. A PEM that does not parse is left as it is, so nodemailer reports it as it
 * always did. Shared by the inline builder and the builder's threads (mime-worker.ts), each with a
 * cache of its own.
 */
export const KEY_CACHE_SIZE = 64;

/**
 * `message` with its DKIM key as a parsed KeyObject from `cache` (see {@link KEY_CACHE_SIZE}), as a
 * new object; a message without a PEM string key (none, or already a KeyObject) is returned untouched.
 */
export function withParsedKey(message: Mail.Options, cache: Map<string, KeyObject>): Mail.Options {
  const dkim = message.dkim as { privateKey?: unknown } | undefined;
  if (!dkim || typeof dkim.privateKey !== 'string') return message;
  const pem = dkim.privateKey;
  let key = cache.get(pem);
  if (!key) {
    try {
      key = createPrivateKey(pem);
    } catch {
      return message;
    }
    if (cache.size >= KEY_CACHE_SIZE) cache.delete(cache.keys().next().value!);
    cache.set(pem, key);
  }
  return { ...message, dkim: { ...message.dkim, privateKey: key } } as Mail.Options;
}
