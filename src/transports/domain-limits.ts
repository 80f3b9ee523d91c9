/**
 * Per-recipient-domain concurrency (issue 37): at most N mails of one transport to one mailbox
 * provider in flight at once in a process, so one provider that defers or answers slowly holds N sends
 * and not every connection. Defaults for the large providers, which throttle connections that carry too
 * much at once; `DOMAIN_CONCURRENCY` ("gmail.com=20,outlook.com=5") replaces or adds entries; other
 * domains have no limit of their own.
 */
export const DEFAULT_DOMAIN_CONCURRENCY: Readonly<Record<string, number>> = {
  'gmail.com': 20,
  'googlemail.com': 20,
  'outlook.com': 10,
  'hotmail.com': 10,
  'live.com': 10,
  'msn.com': 10,
  'yahoo.com': 10,
  'ymail.com': 10,
  'aol.com': 5,
  'icloud.com': 10,
  'me.com': 10,
  'mac.com': 10,
  'gmx.de': 10,
  'web.de': 10,
  'mail.ru': 10,
  'yandex.ru': 10,
};

/**
 * Parses `DOMAIN_CONCURRENCY`: comma-separated `domain=n` (n ≥ 1).
 * @throws Error naming the entry that is not `domain=n`.
 */
export function parseDomainConcurrency(text: string | undefined): Record<string, number> {
  const out: Record<string, number> = { ...DEFAULT_DOMAIN_CONCURRENCY };
  for (const part of (text ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)) {
    const m = /^([a-z0-9.-]+\.[a-z]{2,})=(\d{1,4})$/i.exec(part);
    if (!m || Number(m[2]) < 1) throw new Error(`"${part}" is not domain=n with n ≥ 1, e.g. gmail.com=20`);
    out[m[1].toLowerCase()] = Number(m[2]);
  }
  return out;
}

/** Semaphores by `transport domain`, created on first use for the domains that have a limit. */
export class DomainLimits {
  private slots = new Map<string, { free: number; waiters: Array<() => void> }>();

  constructor(private readonly limits: Readonly<Record<string, number>>) {}

  /** Waits for a slot of `domain` through `transport`. @returns the release; call it once. */
  async acquire(transport: string, domain: string): Promise<() => void> {
    const limit = this.limits[domain];
    if (!limit) return () => undefined;
    const key = `${transport} ${domain}`;
    let s = this.slots.get(key);
    if (!s) this.slots.set(key, (s = { free: limit, waiters: [] }));
    const slot = s;
    if (slot.free > 0) slot.free--;
    else await new Promise<void>((r) => slot.waiters.push(r));
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const next = slot.waiters.shift();
      if (next) next();
      else slot.free++;
    };
  }
}
