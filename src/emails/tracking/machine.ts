import { BlockList, isIP } from 'node:net';
import type { SweepRule } from '../delivery/outcomes.js';
import { APPLE_MPP_USER_AGENT, APPLE_NETWORKS, MACHINE_AGENTS } from './machine-signatures.js';

/**
 * What counts as machine activity among tracking hits (issue 36): opens and clicks made by Apple's
 * Mail Privacy Protection proxy, security scanners and link previews rather than by the reader. Such
 * hits are kept and flagged (`machine: true` on the `email.open` / `email.click` event) but never
 * set an email's `human_opened_at` / `human_clicked_at`, which every human figure reads. The rules
 * live here only; their data (networks, user agents) is machine-signatures.ts. See docs/tracking.md.
 */

/** Why a hit is machine activity. */
export type MachineReason = 'apple-mpp' | 'scanner' | 'head' | 'no-agent' | 'link-sweep';

/** The classification of one tracking hit: `reason` is null exactly when `machine` is false. */
export interface Verdict {
  machine: boolean;
  reason: MachineReason | null;
}

/** The verdict of a person's hit. */
export const HUMAN: Verdict = { machine: false, reason: null };
const machine = (reason: MachineReason): Verdict => ({ machine: true, reason });

/** What the request of a tracking hit says about who made it. */
export interface RequestFacts {
  /** `open` for the pixel (`GET /t/o/:token`), `click` for a tracked link (`GET /t/c/*`). */
  kind: 'open' | 'click';
  /** The HTTP method (Fastify serves HEAD on GET routes). */
  method: string;
  /** The User-Agent header, if any. */
  userAgent: string | undefined;
  /** The client address as Fastify derives it (`req.ip`, which honours the TRUST_PROXY setting). */
  ip: string;
}

const appleNetworks = new BlockList();
for (const [address, prefix, type] of APPLE_NETWORKS) appleNetworks.addSubnet(address, prefix, type);

/** True when `ip` (IPv4, IPv6 or IPv4-mapped IPv6) lies in one of Apple's own networks. */
export function isAppleAddress(ip: string): boolean {
  const v = isIP(ip);
  return v !== 0 && appleNetworks.check(ip, v === 4 ? 'ipv4' : 'ipv6');
}

/** The name of the scanner or preview agent `userAgent` belongs to, or null (see MACHINE_AGENTS). */
export function machineAgent(userAgent: string): string | null {
  return MACHINE_AGENTS.find((a) => a.pattern.test(userAgent))?.name ?? null;
}

/**
 * Classifies one tracking hit from its request alone, first rule that applies:
 * 1. `head`: a HEAD request. Browsers GET what a person follows; HEAD is a link checker or scanner
 *    asking whether the URL answers (still answered, as Fastify does for GET routes).
 * 2. `apple-mpp`: the Mail Privacy Protection signature, a user agent of exactly `Mozilla/5.0`
 *    (for a click too: no browser sends it bare), or, for an open, an address in Apple's own networks,
 *    from which the MPP proxy prefetches every image of a mail when it reaches the device, read or not.
 *    Clicks from Apple's networks are not flagged by address: a person at Apple clicks from there.
 * 3. `no-agent`: no User-Agent at all; every browser and mail client sends one.
 * 4. `scanner`: a known security scanner, link-preview agent, headless browser, HTTP library or
 *    crawler (machine-signatures.ts MACHINE_AGENTS).
 * Otherwise a person (Gmail's and Yahoo's image proxies fetch when the reader opens the mail).
 * The delivery-time link sweep needs the email's history: {@link classifySweep}.
 */
export function classifyRequest(f: RequestFacts): Verdict {
  if (f.method.toUpperCase() === 'HEAD') return machine('head');
  const ua = (f.userAgent ?? '').trim();
  if (ua === APPLE_MPP_USER_AGENT) return machine('apple-mpp');
  if (f.kind === 'open' && isAppleAddress(f.ip)) return machine('apple-mpp');
  if (!ua) return machine('no-agent');
  if (machineAgent(ua)) return machine('scanner');
  return HUMAN;
}

/**
 * How long after delivery a sweep of every link counts as a machine's: a scanner at the recipient's
 * gateway follows all links of a mail within seconds of taking it in, while a person has to receive,
 * notice, open and read it before a first click, let alone one on every link.
 */
export const SWEEP_SECONDS = 10;

/**
 * The end of an email's sweep window: {@link SWEEP_SECONDS} after its delivery (`delivered_at`, else
 * `sent_at` when no delivery report came yet), or null when it was never sent.
 */
export function sweepWindowEnd(sentAt: Date | null, deliveredAt: Date | null): Date | null {
  const from = deliveredAt ?? sentAt;
  return from ? new Date(from.getTime() + SWEEP_SECONDS * 1000) : null;
}

/** What an email's history says about a click, for {@link classifySweep}. */
export interface SweepFacts {
  /** When the click happened. */
  at: Date;
  /** The email's sweep window end ({@link sweepWindowEnd}). */
  windowEnd: Date | null;
  /** How many distinct URLs the email's tracked links have (from the click token; null for tokens made before it was recorded). */
  links: number | null;
  /** The distinct URLs of the email clicked so far, this click included. */
  clicked: ReadonlySet<string>;
}

/**
 * True when a click may complete a sweep, so that the email's clicked URLs are worth reading: it
 * falls in the sweep window of a mail with at least 2 distinct tracked links.
 */
export function mayBeSweep(f: Omit<SweepFacts, 'clicked'>): boolean {
  return f.links !== null && f.links >= 2 && f.windowEnd !== null && f.at.getTime() <= f.windowEnd.getTime();
}

/**
 * `link-sweep`: every distinct link of a mail (at least 2) clicked within {@link SWEEP_SECONDS} of
 * its delivery. When a click completes the sweep (or comes after it, still in the window), it is
 * machine activity, and so is everything tracked of the email before it: the caller reclassifies the
 * email's earlier opens and clicks (they all lie in the window too).
 */
export function classifySweep(f: SweepFacts): Verdict {
  if (!mayBeSweep(f)) return HUMAN;
  return f.clicked.size >= f.links! ? machine('link-sweep') : HUMAN;
}

/** The sweep rule as delivery/outcomes.ts recordClick applies it (handed in: delivery may not import tracking). */
export const linkSweep: SweepRule = { windowEnd: sweepWindowEnd, mayBeSweep, classify: classifySweep };
