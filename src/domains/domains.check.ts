import type { DomainRecord } from '../db/schema.js';
import { DnsLookupError, type DnsClient } from '../lib/dns.js';
import type { DomainRow } from './verified.js';

/** The three records of a sender domain: DKIM, SPF and DMARC. */
export type RecordKind = 'dkim' | 'spf' | 'dmarc';

/** Suggested SPF policy: the domain's own A and MX hosts may send, others soft-fail. */
export const SPF_SUGGESTION = 'v=spf1 a mx ~all';
/** Suggested DMARC policy: report only, so publishing it can break no mail. */
export const DMARC_SUGGESTION = 'v=DMARC1; p=none;';

export const dkimName = (selector: string, domain: string) => `${selector}._domainkey.${domain}`;
export const dmarcName = (domain: string) => `_dmarc.${domain}`;

/** The DKIM key record value of RFC 6376 §3.6.1 for a base64 SubjectPublicKeyInfo (DER). */
export const dkimValue = (publicKeyB64: string) => `v=DKIM1; k=rsa; p=${publicKeyB64}`;

/** The records to publish for a new domain, all `pending`: DKIM, SPF suggestion, DMARC suggestion. */
export function initialRecords(domain: string, selector: string, publicKeyB64: string): DomainRecord[] {
  return [
    { type: 'TXT', name: dkimName(selector, domain), value: dkimValue(publicKeyB64), status: 'pending' },
    { type: 'TXT', name: domain, value: SPF_SUGGESTION, status: 'pending' },
    { type: 'TXT', name: dmarcName(domain), value: DMARC_SUGGESTION, status: 'pending' },
  ];
}

/** Which of the three a stored record is, by its name (and value for SPF, which sits on the domain). */
export function kindOf(record: DomainRecord, row: Pick<DomainRow, 'domain' | 'dkimSelector'>): RecordKind | undefined {
  const name = record.name.toLowerCase();
  if (name === dkimName(row.dkimSelector, row.domain)) return 'dkim';
  if (name === dmarcName(row.domain)) return 'dmarc';
  if (name === row.domain && /^v=spf1\b/i.test(record.value)) return 'spf';
  return undefined;
}

/** The `p=` tag of a DKIM key record (whitespace removed), or undefined. RFC 6376 §3.6.1. */
export function dkimPublicKeyOf(txt: string): string | undefined {
  for (const part of txt.split(';')) {
    const eq = part.indexOf('=');
    if (eq < 0) continue;
    if (part.slice(0, eq).trim().toLowerCase() === 'p') return part.slice(eq + 1).replace(/\s+/g, '');
  }
  return undefined;
}

/** Per record: true when found as expected, false when absent or different, null when DNS failed. */
export type CheckResult = Record<RecordKind, boolean | null>;

/**
 * Looks up the three records now, in parallel (each look-up bounded by the DNS client's 3 s):
 * DKIM matches when a TXT at `<selector>._domainkey.<domain>` (its strings joined) carries the same
 * `p=` key; SPF when a TXT on the domain starts with `v=spf1`; DMARC when a TXT at `_dmarc.<domain>`
 * starts with `v=DMARC1`. A look-up that fails (timeout, SERVFAIL) gives null, never an error.
 */
export async function checkDomainDns(
  dns: DnsClient,
  row: Pick<DomainRow, 'domain' | 'dkimSelector' | 'dkimPublicKey'>,
): Promise<CheckResult> {
  const txt = async (name: string, test: (value: string) => boolean): Promise<boolean | null> => {
    try {
      return (await dns.resolveTxt(name)).some((strings) => test(strings.join('')));
    } catch (err) {
      if (err instanceof DnsLookupError) return null;
      throw err;
    }
  };
  const [dkim, spf, dmarc] = await Promise.all([
    txt(dkimName(row.dkimSelector, row.domain), (v) => dkimPublicKeyOf(v) === row.dkimPublicKey),
    txt(row.domain, (v) => /^v=spf1(\s|$)/i.test(v.trim())),
    txt(dmarcName(row.domain), (v) => /^v=DMARC1(\s*;|\s*$)/i.test(v.trim())),
  ]);
  return { dkim, spf, dmarc };
}

/**
 * The new state of a domain after a check. A record whose look-up failed keeps its last status, and
 * so does `verified` when the DKIM look-up failed (a DNS outage must not unverify a domain).
 * `verifiedAt` is when the domain last became verified, null while it is not.
 */
export function applyCheck(
  row: Pick<DomainRow, 'domain' | 'dkimSelector' | 'records' | 'verified' | 'verifiedAt'>,
  result: CheckResult,
  now: Date,
): { verified: boolean; verifiedAt: Date | null; records: DomainRecord[] } {
  const records = row.records.map((r) => {
    const kind = kindOf(r, row);
    const found = kind ? result[kind] : null;
    return found === null ? r : { ...r, status: found ? ('verified' as const) : ('pending' as const) };
  });
  const verified = result.dkim ?? row.verified;
  const verifiedAt = verified ? (row.verified && row.verifiedAt ? row.verifiedAt : now) : null;
  return { verified, verifiedAt, records };
}
