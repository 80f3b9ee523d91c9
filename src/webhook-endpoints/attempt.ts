import { performance } from 'node:perf_hooks';
import { Webhook } from 'standardwebhooks';
import type { Deps } from '../deps.js';
import { RefusedAddressError, safeRequest, type SafeAgents } from '../lib/safe-http.js';
import { keyring, secretPlaces } from '../lib/secret-places.js';
import { openSecret } from '../lib/secrets.js';

/**
 * One attempt of an event webhook delivery, signed per the Standard Webhooks specification
 * (standardwebhooks.com; headers `webhook-id` = the delivery id, the same on every attempt,
 * `webhook-timestamp` = the attempt's Unix time in seconds, `webhook-signature` = `v1,<base64
 * HMAC-SHA256 of "id.timestamp.body">`), sent through the SSRF-safe client (lib/safe-http.ts, the
 * rules of workflow WEBHOOK steps). A 2xx answer is delivered; anything else (another status, a
 * timeout, a network error, a refused address) is a failed attempt.
 */

/** Each attempt's limit, connection to last byte, redirects included. */
export const TIMEOUT_MS = 10_000;
/** The receiver's answer kept in the delivery log. */
export const RESPONSE_LOG_CHARS = 2048;

/** A delivery's payload, as stored: `{type, timestamp, data}`. */
export interface DeliveryPayload {
  type: string;
  timestamp: string;
  data: Record<string, unknown>;
}

/** The result of one attempt. */
export interface AttemptResult {
  ok: boolean;
  /** The answer's HTTP status; null when none came. */
  status: number | null;
  /** The answer's body, cut to {@link RESPONSE_LOG_CHARS}. */
  body: string | null;
  latencyMs: number;
  /** Why the attempt failed, as the delivery log shows it; null when it succeeded. */
  error: string | null;
  /** The attempt hit {@link TIMEOUT_MS}. */
  timedOut: boolean;
}

/** The exact body sent and signed: `{type, timestamp, data}` in that order. */
export const bodyOf = (p: DeliveryPayload) => JSON.stringify({ type: p.type, timestamp: p.timestamp, data: p.data });

/** An endpoint's signer: its secret opened once (lib/secrets.ts), or why it cannot be. */
export type Signer = Webhook | { error: string };

/** Opens endpoint `endpointId`'s sealed signing secret `stored` into a {@link Signer}. Never throws. */
export function signerFor(deps: Pick<Deps, 'config' | 'secret'>, endpointId: string, stored: string): Signer {
  try {
    return new Webhook(openSecret(keyring(deps), stored, secretPlaces.webhookSecret(endpointId)));
  } catch (err) {
    return { error: `The signing secret cannot be read: ${(err as Error).message}` };
  }
}

/**
 * POSTs `body` to `url` signed by `signer` as message `msgId`, within {@link TIMEOUT_MS}, over a kept
 * connection of `agents` when given. Never throws: failures, a secret that cannot be opened
 * included, are in the result.
 */
export async function post(
  deps: Pick<Deps, 'config' | 'clock'>,
  url: string,
  signer: Signer,
  msgId: string,
  body: string,
  agents?: SafeAgents,
): Promise<AttemptResult> {
  if (!(signer instanceof Webhook))
    return { ok: false, status: null, body: null, latencyMs: 0, error: signer.error, timedOut: false };
  const at = deps.clock.now();
  const headers = {
    'content-type': 'application/json',
    'webhook-id': msgId,
    'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
    'webhook-signature': signer.sign(msgId, at, body),
  };
  const started = performance.now();
  try {
    const res = await safeRequest(
      { url, method: 'POST', headers, body },
      {
        allowPrivate: deps.config.WEBHOOK_ALLOW_PRIVATE_ADDRESSES,
        signal: AbortSignal.timeout(TIMEOUT_MS),
        maxBodyBytes: RESPONSE_LOG_CHARS * 4,
        agents,
      },
    );
    const ok = res.status >= 200 && res.status < 300;
    return {
      ok,
      status: res.status,
      body: res.body.slice(0, RESPONSE_LOG_CHARS),
      latencyMs: Math.round(performance.now() - started),
      error: ok ? null : `HTTP ${res.status}`,
      timedOut: false,
    };
  } catch (err) {
    const e = err as Error;
    const refused = e instanceof RefusedAddressError || (e as { cause?: unknown }).cause instanceof RefusedAddressError;
    const timedOut = e.name === 'TimeoutError' || e.name === 'AbortError';
    const error = timedOut
      ? `Timed out after ${TIMEOUT_MS / 1000} s`
      : refused
        ? `Refused: ${(e instanceof RefusedAddressError ? e : (e as { cause: Error }).cause).message}`
        : e.message;
    return {
      ok: false,
      status: null,
      body: null,
      latencyMs: Math.round(performance.now() - started),
      error: error.slice(0, 500),
      timedOut,
    };
  }
}

/** One attempt to endpoint `endpointId` at `url` with its sealed secret `stored` ({@link signerFor} + {@link post}). */
export async function attempt(
  deps: Pick<Deps, 'config' | 'secret' | 'clock'>,
  url: string,
  endpointId: string,
  stored: string,
  msgId: string,
  body: string,
): Promise<AttemptResult> {
  return post(deps, url, signerFor(deps, endpointId, stored), msgId, body);
}
