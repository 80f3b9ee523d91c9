import { RefusedAddressError, safeRequest, type SafeRequest } from '../lib/safe-http.js';

/**
 * Calling a workflow WEBHOOK step's URL: the request itself goes through
 * the SSRF-safe client (lib/safe-http.ts: public addresses only, checked after DNS resolution and on
 * every redirect, the connection pinned to the checked address); this module adds the step's
 * attempts, timeout and retry rules.
 */

export type WebhookRequest = SafeRequest;

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
export async function callWebhook(
  req: WebhookRequest,
  o: { allowPrivate: boolean; timeoutMs?: number; attempts?: number; backoffMs?: number },
): Promise<WebhookOutcome> {
  const attempts = o.attempts ?? 3;
  let last: WebhookOutcome = { ok: false, attempts: 0 };
  for (let n = 1; n <= attempts; n++) {
    try {
      const res = await safeRequest(req, {
        allowPrivate: o.allowPrivate,
        signal: AbortSignal.timeout(o.timeoutMs ?? 10_000),
      });
      const ok = res.status >= 200 && res.status < 300;
      last = {
        ok,
        attempts: n,
        status: res.status,
        body: res.body.slice(0, 2000),
        url: res.url,
        error: ok ? undefined : `HTTP ${res.status}`,
      };
      if (ok || (res.status >= 400 && res.status < 500 && res.status !== 408 && res.status !== 429)) return last;
    } catch (err) {
      const e = err as Error;
      const refused =
        e instanceof RefusedAddressError || (e as { cause?: unknown }).cause instanceof RefusedAddressError;
      last = {
        ok: false,
        attempts: n,
        error:
          e.name === 'TimeoutError' || e.name === 'AbortError'
            ? `Timed out after ${(o.timeoutMs ?? 10_000) / 1000} s`
            : e.message,
      };
      if (refused) return { ...last, attempts: n - 1 };
    }
    if (n < attempts) await new Promise((r) => setTimeout(r, (o.backoffMs ?? 1000) * n));
  }
  return last;
}
