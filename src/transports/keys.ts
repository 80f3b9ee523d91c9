/** The key of the instance's own transport (SMTP_URL, SES_REGION or the outbox) in rules, health and email rows. */
export const DEFAULT_TRANSPORT = 'default';

/** True for the instance's own transports (`default`, `fallback-N`), which belong to no project. */
export const isInstanceKey = (key: string): boolean => key === DEFAULT_TRANSPORT || /^fallback-\d+$/.test(key);

/** SES regions look like `eu-west-1`, `us-gov-west-1`, `ap-southeast-4`. */
export const REGION = /^[a-z]{2}(-[a-z]+)+-\d$/;

/** An instance fallback transport from FALLBACK_TRANSPORTS: its key in routes and rows, and where it goes. */
export interface InstanceFallback {
  /** `fallback-1`, `fallback-2`, … in the order configured. */
  key: string;
  /** An SMTP URL, or an SES region with an optional configuration set. */
  target: { kind: 'smtp'; url: string } | { kind: 'ses'; region: string; configurationSet?: string };
}

/**
 * Parses FALLBACK_TRANSPORTS: whitespace-separated `smtp://…` / `smtps://…` URLs (as SMTP_URL) and
 * `ses://<region>[/<configuration set>]`, tried in order after the instance transport when it fails.
 * @throws Error naming the entry that is neither.
 */
export function parseFallbacks(text: string | undefined): InstanceFallback[] {
  return (text ?? '')
    .split(/\s+/)
    .filter(Boolean)
    .map((entry, i) => {
      const key = `fallback-${i + 1}`;
      let u: URL;
      try {
        u = new URL(entry);
      } catch {
        throw new Error(`"${entry.replace(/\/\/[^@/]*@/, '//…@')}" is not a URL (smtp://, smtps:// or ses://region)`);
      }
      if (u.protocol === 'smtp:' || u.protocol === 'smtps:') {
        if (!u.hostname) throw new Error(`fallback ${i + 1} has no host`);
        return { key, target: { kind: 'smtp' as const, url: entry } };
      }
      if (u.protocol === 'ses:' && REGION.test(u.hostname)) {
        const set = decodeURIComponent(u.pathname.replace(/^\//, ''));
        return { key, target: { kind: 'ses' as const, region: u.hostname, ...(set ? { configurationSet: set } : {}) } };
      }
      throw new Error(`fallback ${i + 1} must be smtp://, smtps:// or ses://<region>, e.g. ses://eu-west-1`);
    });
}

/** A transport key's name for people: the instance's own, an instance fallback, or null (a project transport: its row's name). */
export function instanceTransportName(key: string): string | null {
  if (key === DEFAULT_TRANSPORT) return 'Instance default';
  const m = /^fallback-(\d+)$/.exec(key);
  return m ? `Instance fallback ${m[1]}` : null;
}
