import { createRequire } from 'node:module';
import { POPULAR_DOMAINS, run as spellCheck } from '@zootools/email-spell-checker';

const require = createRequire(import.meta.url);

/**
 * Relay services that forward to a real inbox (`isAlias` of /v1/verify): Apple Hide My
 * Email, Firefox Relay, SimpleLogin, addy.io (AnonAddy) and DuckDuckGo Email Protection.
 * A domain matches itself and its subdomains (addy.io gives users `<name>.anonaddy.com`).
 */
export const ALIAS_DOMAINS: readonly string[] = [
  'privaterelay.appleid.com',
  'mozmail.com',
  'relay.firefox.com',
  'simplelogin.com',
  'simplelogin.co',
  'simplelogin.fr',
  'simplelogin.io',
  'aleeas.com',
  'slmail.me',
  'silomails.com',
  'slmails.com',
  '8alias.com',
  '8shield.net',
  'dralias.com',
  'passinbox.com',
  'passfwd.com',
  'passmail.com',
  'passmail.net',
  'addy.io',
  'anonaddy.com',
  'anonaddy.me',
  'duck.com',
];

/** `domain` and each parent with at least two labels: `a.b.example.com` → itself, `b.example.com`, `example.com`. */
function selfAndParents(domain: string): string[] {
  const labels = domain.split('.');
  const out: string[] = [];
  for (let i = 0; i < labels.length - 1; i++) out.push(labels.slice(i).join('.'));
  return out;
}

const aliasSet = new Set(ALIAS_DOMAINS);

/** True for a relay (alias) domain of {@link ALIAS_DOMAINS} or a subdomain of one. */
export const isAliasDomain = (domain: string): boolean => selfAndParents(domain).some((d) => aliasSet.has(d));

// The lists are large (the disposable list is ~120,000 names, 2.4 MB): load them on first use.
let disposable: { exact: Set<string>; wildcard: Set<string> } | undefined;
let freeMail: Set<string> | undefined;
let ranked: Set<string> | undefined;

/**
 * True when the `disposable-email-domains` list names the domain (index.json, exact) or it is or lies
 * under a wildcard entry (wildcard.json). Relay domains are not disposable here, although the list has
 * some of them: they forward to a lasting inbox (they are reported by `isAlias` instead).
 */
export function isDisposableDomain(domain: string): boolean {
  if (isAliasDomain(domain)) return false;
  disposable ??= {
    exact: new Set(require('disposable-email-domains/index.json') as string[]),
    wildcard: new Set(require('disposable-email-domains/wildcard.json') as string[]),
  };
  const d = disposable;
  return d.exact.has(domain) || selfAndParents(domain).some((p) => d.wildcard.has(p));
}

/** True when the `email-providers` list of free-mail providers (all.json, ~8,700 names) has the domain. */
export function isFreeMailDomain(domain: string): boolean {
  freeMail ??= new Set(require('email-providers/all.json') as string[]);
  return freeMail.has(domain);
}

/** Domains users mean when they mistype; the spell checker's list plus large providers it lacks. */
const TYPO_TARGETS = [
  ...new Set([
    ...POPULAR_DOMAINS,
    'gmail.com',
    'googlemail.com',
    'hotmail.com',
    'hotmail.co.uk',
    'hotmail.fr',
    'outlook.com',
    'live.com',
    'yahoo.com',
    'yahoo.co.uk',
    'yahoo.fr',
    'icloud.com',
    'aol.com',
    'gmx.de',
    'gmx.net',
    'gmx.com',
    'mail.com',
    'web.de',
    'proton.me',
    'protonmail.com',
    'fastmail.com',
    'mail.ru',
    'yandex.ru',
    'orange.fr',
    't-online.de',
  ]),
];

// Real providers one or two letters away from a popular one; never "corrected".
const REAL_LOOKALIKES = ['email.com', 'gmx.ch', 'gmx.at', 'mac.com', 'me.com', 'msn.com'];

/** Optimal string alignment distance: insertions, deletions, substitutions and adjacent swaps cost 1. */
export function editDistance(a: string, b: string): number {
  const d: number[][] = Array.from({ length: a.length + 1 }, (_, i) => [i, ...new Array<number>(b.length).fill(0)]);
  for (let j = 1; j <= b.length; j++) d[0][j] = j;
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      d[i][j] = Math.min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        d[i][j] = Math.min(d[i][j], d[i - 2][j - 2] + 1);
    }
  }
  return d[a.length][b.length];
}

/**
 * The spell checker's distance, made strict so short business domains are not "corrected"
 * (`att.com` is not `aol.com`): one edit, or two when the provider's name has 6+ letters
 * (`hotmial.con` → `hotmail.com`). Anything farther is out of the threshold.
 */
function typoDistance(typed: string, known: string): number {
  const d = editDistance(typed, known);
  const allowed = known.split('.')[0].length >= 6 ? 2 : 1;
  return d <= allowed ? d : 99;
}

/**
 * The address the user probably meant when its domain is a likely typo of a popular provider
 * (`@zootools/email-spell-checker` over {@link TYPO_TARGETS}, whole domains only: its TLD guessing
 * misfires on valid domains such as `.io`), or null. Domains of ranked real providers
 * (`email-providers` common.json) are never corrected.
 */
export function suggestEmail(local: string, domain: string): string | null {
  ranked ??= new Set([...(require('email-providers/common.json') as string[]), ...TYPO_TARGETS, ...REAL_LOOKALIKES]);
  if (ranked.has(domain)) return null;
  const s = spellCheck({
    email: `${local}@${domain}`,
    domains: TYPO_TARGETS,
    secondLevelDomains: [],
    topLevelDomains: [],
    domainThreshold: 2,
    distanceFunction: typoDistance,
  });
  return s && s.domain !== domain ? `${local}@${s.domain}` : null;
}
