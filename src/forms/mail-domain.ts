import type { Deps } from '../deps.js';
import { invalid } from '../http/errors.js';
import { dnsFor } from '../lib/dns.js';
import { isDisposableDomain } from '../verify/verify.lists.js';
import { lookUpMailDomain } from '../verify/verify.service.js';

/**
 * Refuses a sign-up address whose domain cannot receive mail, by `/v1/verify`'s own rules
 * (verify/verify.service.ts): a domain that does not exist, one without MX (explicit, or implicit
 * through an A/AAAA record, RFC 5321 §5.1) or with a null MX (RFC 7505), and disposable mail services.
 * When DNS itself fails (a timeout, SERVFAIL) and found nothing, the address is taken: our resolver's
 * trouble is no reason to turn a visitor away. `email` is a checked, lower-cased address.
 * @throws AppError 422 with the field `email` and a sentence for the visitor.
 */
export async function assertMailDomain(deps: Deps, email: string): Promise<void> {
  const domain = email.slice(email.lastIndexOf('@') + 1);
  if (isDisposableDomain(domain)) {
    throw invalid('email', `Addresses at ${domain} (a disposable mail service) are not accepted.`, 'disposable');
  }
  const dns = await lookUpMailDomain(dnsFor(deps), domain);
  if (dns.failed.length && !dns.domainExists) return;
  if (!dns.domainExists) throw invalid('email', `The domain ${domain} does not exist: check the address.`, 'no_domain');
  if (!dns.hasMxRecords) throw invalid('email', `${domain} does not receive email: check the address.`, 'no_mx');
}
