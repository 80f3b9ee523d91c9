import ipaddr from 'ipaddr.js';
import type { SMTPServer, SMTPServerSession } from 'smtp-server';
import { smtpError, type SmtpError } from './smtp-listen.js';

/**
 * Limits of an SMTP server that anyone on the internet may connect to (the inbound MX on port 25,
 * the submission port): connection slots per client address, a deadline before the first MAIL FROM, a
 * lifetime per connection, and failed AUTH counted per connection and per address. smtp-server's own
 * `maxClients` bounds the total; these keep one host from taking every slot, and a slot from being
 * held by a client that never sends mail.
 */
export interface SmtpGuardLimits {
  /** Connections one client address (an IPv6 /64) may hold at once; more are answered 421. */
  perAddress: number;
  /** Milliseconds from connect to the first MAIL FROM; a client that has not sent one by then gets 421. */
  beforeMailMs: number;
  /** Milliseconds a connection may last at all. */
  lifetimeMs: number;
  /** Failed AUTH per connection before it is closed with 421 (0: AUTH is not offered). */
  authFailuresPerConnection?: number;
  /** Failed AUTH per address within `authWindowMs` before AUTH answers 454 from it. */
  authFailuresPerAddress?: number;
  authWindowMs?: number;
}

/** Client addresses remembered for failed AUTH at most: a spray of addresses cannot grow the map without bound. */
const MAX_TRACKED_ADDRESSES = 10_000;

interface GuardState {
  guardKey?: string;
  guardTimer?: NodeJS.Timeout;
  authFailures?: number;
}

type ConnectionLike = { id: string; send(code: number, text: string): void; close(): void };

/**
 * The address an SMTP client is counted under: IPv4 as is (IPv4-mapped IPv6 unwrapped), IPv6 by its
 * /64, the smallest block a single host is commonly given (RFC 6177), so that one host cannot take a
 * new address per connection.
 */
export function clientKey(remoteAddress: string): string {
  try {
    let a = ipaddr.parse(remoteAddress);
    if (a.kind() === 'ipv6' && (a as ipaddr.IPv6).isIPv4MappedAddress()) a = (a as ipaddr.IPv6).toIPv4Address();
    if (a.kind() === 'ipv4') return a.toString();
    const parts = (a as ipaddr.IPv6).parts.slice(0, 4).map((p) => p.toString(16));
    return `${parts.join(':')}::/64`;
  } catch {
    return remoteAddress || 'unknown';
  }
}

/** The per-connection and per-address limits of one SMTP server; wire its hooks into the server's options. */
export class SmtpGuard {
  private readonly open = new Map<string, number>();
  private readonly authFailures = new Map<string, { count: number; resetAt: number }>();
  private server?: SMTPServer;

  constructor(
    private readonly limits: SmtpGuardLimits,
    private readonly now: () => number = Date.now,
  ) {}

  /** Binds the guard to `server`, whose connections its deadlines close. */
  attach(server: SMTPServer): void {
    this.server = server;
  }

  /** For `onConnect`: counts the connection against its address, or refuses it with 421. */
  onConnect(session: SMTPServerSession, cb: (err?: Error | null) => void): void {
    const key = clientKey(session.remoteAddress);
    const count = this.open.get(key) ?? 0;
    if (count >= this.limits.perAddress) {
      return cb(
        smtpError(
          421,
          `4.7.0 Too many connections from your address (at most ${this.limits.perAddress}); try again later`,
        ),
      );
    }
    this.open.set(key, count + 1);
    const s = session as unknown as GuardState;
    s.guardKey = key;
    s.guardTimer = this.deadline(
      session.id,
      this.limits.beforeMailMs,
      '4.4.2 No MAIL FROM in time; closing the connection',
    );
    cb();
  }

  /** For `onMailFrom`: the first MAIL FROM lifts the short deadline; the connection's lifetime remains. */
  onMailFrom(session: SMTPServerSession): void {
    const s = session as unknown as GuardState & { guardLifetime?: boolean };
    if (s.guardLifetime) return;
    s.guardLifetime = true;
    clearTimeout(s.guardTimer);
    s.guardTimer = this.deadline(
      session.id,
      this.limits.lifetimeMs - this.limits.beforeMailMs,
      '4.4.2 Connection open too long; closing it',
    );
  }

  /** For `onClose`: gives the connection's slot back. */
  onClose(session: SMTPServerSession): void {
    const s = session as unknown as GuardState;
    clearTimeout(s.guardTimer);
    if (!s.guardKey) return;
    const left = (this.open.get(s.guardKey) ?? 1) - 1;
    if (left > 0) this.open.set(s.guardKey, left);
    else this.open.delete(s.guardKey);
    s.guardKey = undefined;
  }

  /**
   * Before an AUTH is checked: the refusal to answer instead, when the address failed too often in
   * the window (454 4.7.0, RFC 4954 §6), else null.
   */
  authRefusal(session: SMTPServerSession): SmtpError | null {
    const max = this.limits.authFailuresPerAddress;
    if (!max) return null;
    const entry = this.authFailures.get(clientKey(session.remoteAddress));
    if (!entry || entry.resetAt <= this.now() || entry.count < max) return null;
    const seconds = Math.ceil((entry.resetAt - this.now()) / 1000);
    return smtpError(454, `4.7.0 Too many failed authentications from your address; try again in ${seconds} s`);
  }

  /**
   * After a failed AUTH: counts it against the connection and the address. When the connection has
   * failed `authFailuresPerConnection` times it is closed with 421 after this answer.
   */
  authFailed(session: SMTPServerSession): void {
    const s = session as unknown as GuardState;
    s.authFailures = (s.authFailures ?? 0) + 1;
    const key = clientKey(session.remoteAddress);
    const window = this.limits.authWindowMs ?? 15 * 60_000;
    const entry = this.authFailures.get(key);
    if (entry && entry.resetAt > this.now()) entry.count += 1;
    else {
      this.authFailures.delete(key);
      if (this.authFailures.size >= MAX_TRACKED_ADDRESSES) this.evictExpired();
      this.authFailures.set(key, { count: 1, resetAt: this.now() + window });
    }
    const perConnection = this.limits.authFailuresPerConnection;
    if (perConnection && s.authFailures >= perConnection) {
      // After smtp-server has written the 535 of this attempt.
      setImmediate(() => this.closeWith(session.id, '4.7.0 Too many failed authentications; closing the connection'));
    }
  }

  private evictExpired(): void {
    const now = this.now();
    for (const [k, v] of this.authFailures) if (v.resetAt <= now) this.authFailures.delete(k);
    // Still full: the oldest entries go (a Map iterates in insertion order).
    for (const k of this.authFailures.keys()) {
      if (this.authFailures.size < MAX_TRACKED_ADDRESSES) break;
      this.authFailures.delete(k);
    }
  }

  private deadline(id: string, ms: number, text: string): NodeJS.Timeout {
    const t = setTimeout(() => this.closeWith(id, text), Math.max(0, ms));
    t.unref();
    return t;
  }

  private closeWith(id: string, text: string): void {
    const connections = (this.server as unknown as { connections?: Set<ConnectionLike> } | undefined)?.connections;
    for (const c of connections ?? []) {
      if (c.id !== id) continue;
      c.send(421, text);
      c.close();
      return;
    }
  }
}
