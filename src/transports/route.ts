import type { TransportMatch } from '../db/schema.js';
import { DEFAULT_TRANSPORT } from './keys.js';

/** A routing rule as stored (transport_rules), in evaluation order. */
export interface RoutingRule {
  match: TransportMatch;
  /** Transport ids, or {@link DEFAULT_TRANSPORT}, tried in this order. */
  transports: string[];
}

/** What a rule looks at in one mail. */
export interface RoutedMail {
  type: string;
  campaignId: string | null;
  fromEmail: string;
  toEmail: string;
}

/** The stream of a mail: marketing for MARKETING mail and anything a campaign sends, else transactional. */
export function streamOf(mail: Pick<RoutedMail, 'type' | 'campaignId'>): 'transactional' | 'marketing' {
  return mail.type === 'MARKETING' || mail.campaignId !== null ? 'marketing' : 'transactional';
}

const domainOf = (address: string) => address.slice(address.lastIndexOf('@') + 1).toLowerCase();

/**
 * The transports a mail may go through, in order: those of the first rule whose every given field
 * matches (stream; sender and recipient domain, compared case-insensitively and exactly), else
 * `instance`: the instance's transport and its FALLBACK_TRANSPORTS (issue 37: "first match wins; no
 * rule → the instance default").
 */
export function routeOf(
  rules: readonly RoutingRule[],
  mail: RoutedMail,
  instance: readonly string[] = [DEFAULT_TRANSPORT],
): string[] {
  const stream = streamOf(mail);
  const from = domainOf(mail.fromEmail);
  const to = domainOf(mail.toEmail);
  for (const rule of rules) {
    const m = rule.match;
    if (m.stream && m.stream !== stream) continue;
    if (m.fromDomain && m.fromDomain.toLowerCase() !== from) continue;
    if (m.toDomain && m.toDomain.toLowerCase() !== to) continue;
    return rule.transports;
  }
  return [...instance];
}
