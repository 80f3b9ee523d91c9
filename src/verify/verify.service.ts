import type { Deps } from '../deps.js';
import { dnsFor, DnsLookupError, type DnsClient } from '../lib/dns.js';
import type { VerifyResult } from './verify.schema.js';
import { isAliasDomain, isDisposableDomain, isFreeMailDomain, suggestEmail } from './verify.lists.js';

/** What DNS says about a mail domain; `failed` lists look-ups that could not be answered. */
export interface DomainDns {
  domainExists: boolean;
  hasWebsite: boolean;
  hasMxRecords: boolean;
  /** An RFC 7505 null MX (`MX 0 .`): the domain states it accepts no mail. */
  nullMx: boolean;
  failed: string[];
}

/**
 * Looks up MX, A, AAAA and NS of `domain` in parallel, each bounded by the DNS client's 3 s
 * timeout: `domainExists` when any of them answers, `hasWebsite` with A/AAAA,
 * `hasMxRecords` with an MX other than a null MX, or none but an A/AAAA (implicit MX, RFC 5321 §5.1).
 */
export async function lookUpMailDomain(dns: DnsClient, domain: string): Promise<DomainDns> {
  const failed: string[] = [];
  const settle = async <T>(p: Promise<T[]>): Promise<T[]> => {
    try {
      return await p;
    } catch (err) {
      if (!(err instanceof DnsLookupError)) throw err;
      failed.push(`${err.rrtype} (${err.failure})`);
      return [];
    }
  };
  const [mx, a, aaaa, ns] = await Promise.all([
    settle(dns.resolveMx(domain)),
    settle(dns.resolve4(domain)),
    settle(dns.resolve6(domain)),
    settle(dns.resolveNs(domain)),
  ]);
  const realMx = mx.filter((r) => r.exchange !== '' && r.exchange !== '.');
  const hasWebsite = a.length > 0 || aaaa.length > 0;
  return {
    domainExists: ns.length > 0 || hasWebsite || mx.length > 0,
    hasWebsite,
    hasMxRecords: realMx.length > 0 || (mx.length === 0 && hasWebsite),
    nullMx: mx.length > 0 && realMx.length === 0,
    failed,
  };
}

/**
 * `POST /v1/verify` for a syntactically valid, lower-cased
 * address. `valid` is false when the domain does not exist, has no MX (explicit or implicit), or is
 * disposable; `reasons` names each of those failures and is empty when valid. Typos, aliases and plus
 * addressing are reported, never invalidating. Never throws for DNS trouble: a look-up that fails
 * counts as "nothing found" and adds a reason.
 */
export async function verifyEmail(deps: Deps, email: string): Promise<VerifyResult> {
  const at = email.lastIndexOf('@');
  const local = email.slice(0, at);
  const domain = email.slice(at + 1);

  const isAlias = isAliasDomain(domain);
  const isDisposable = isDisposableDomain(domain);
  const suggestedEmail = suggestEmail(local, domain);
  const isTypo = suggestedEmail !== null;
  const isPersonalEmail = !isAlias && !isDisposable && !isTypo && isFreeMailDomain(domain);
  const dns = await lookUpMailDomain(dnsFor(deps), domain);

  const reasons: string[] = [];
  if (!dns.domainExists) reasons.push(`The domain ${domain} does not exist`);
  if (!dns.hasMxRecords) {
    reasons.push(
      dns.nullMx ? `The domain ${domain} accepts no email (null MX record)` : `The domain ${domain} has no MX records`,
    );
  }
  if (isDisposable) reasons.push(`${domain} is a disposable email provider`);
  if (dns.failed.length) reasons.push(`DNS look-up failed: ${dns.failed.join(', ')}`);
  const valid = dns.domainExists && dns.hasMxRecords && !isDisposable;

  return {
    email,
    valid,
    isDisposable,
    isAlias,
    isTypo,
    isPlusAddressed: local.includes('+'),
    isPersonalEmail,
    domainExists: dns.domainExists,
    hasWebsite: dns.hasWebsite,
    hasMxRecords: dns.hasMxRecords,
    reasons: valid ? [] : reasons,
    suggestedEmail,
  };
}
