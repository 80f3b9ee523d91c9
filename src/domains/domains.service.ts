import { generateKeyPair, randomBytes } from 'node:crypto';
import { promisify } from 'node:util';
import type { Deps } from '../deps.js';
import { AppError, notFound } from '../http/errors.js';
import { dnsFor } from '../lib/dns.js';
import { isUuid, newId } from '../lib/ids.js';
import { keyring, resealColumn, secretPlaces, type ResealCount } from '../lib/secret-places.js';
import { sealSecret } from '../lib/secrets.js';
import { domains } from '../db/schema.js';
import { applyCheck, checkDomainDns, initialRecords } from './domains.check.js';
import * as repo from './domains.repo.js';
import type { DomainOut } from './domains.schema.js';
import type { DomainRow } from './verified.js';

const generateKeyPairAsync = promisify(generateKeyPair);

/** The response shape of a domain; never includes the private key. */
export function toDomainOut(row: DomainRow): DomainOut {
  return {
    id: row.id,
    domain: row.domain,
    verified: row.verified,
    records: row.records,
    verifiedAt: row.verifiedAt?.toISOString() ?? null,
    lastCheckedAt: row.lastCheckedAt?.toISOString() ?? null,
    createdAt: row.createdAt.toISOString(),
  };
}

/**
 * A fresh 2048-bit RSA DKIM key pair: the private key as PKCS#8 PEM (what nodemailer's
 * DKIM signer takes) and the public key as base64 SubjectPublicKeyInfo DER (the record's `p=` value).
 */
export async function newDkimKeyPair(): Promise<{ privateKeyPem: string; publicKeyB64: string }> {
  const { privateKey, publicKey } = await generateKeyPairAsync('rsa', {
    modulusLength: 2048,
    publicKeyEncoding: { type: 'spki', format: 'der' },
    privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
  });
  return { privateKeyPem: privateKey, publicKeyB64: publicKey.toString('base64') };
}

/** `pigeon-` and 6 random hex digits: a new selector per domain, so a re-added domain never reuses a key. */
export const newSelector = (): string => `pigeon-${randomBytes(3).toString('hex')}`;

/**
 * Adds a sender domain (already validated and lower-cased) with a new DKIM key pair and the records to
 * publish, all pending.
 * @throws AppError 409 CONFLICT when the project already has this domain.
 */
export async function createDomain(deps: Deps, projectId: string, domain: string): Promise<DomainOut> {
  const keys = await newDkimKeyPair();
  const selector = newSelector();
  const id = newId();
  const row = await repo.insertDomain(deps.db, projectId, {
    id,
    domain,
    dkimSelector: selector,
    // Sealed (lib/secrets.ts): the database alone must not sign as the customer's domain.
    dkimPrivateKey: sealSecret(keyring(deps), keys.privateKeyPem, secretPlaces.dkimKey(id)),
    dkimPublicKey: keys.publicKeyB64,
    verified: false,
    records: initialRecords(domain, selector, keys.publicKeyB64),
    createdAt: deps.clock.now(),
  });
  if (!row) {
    throw new AppError('CONFLICT', `The domain ${domain} is already added to this project`, {
      details: { domain },
      suggestion: 'List the project domains with GET /domains/project/:projectId and verify the existing one.',
    });
  }
  return toDomainOut(row);
}

/**
 * The domains of `projectId`, which must be the caller's project (`GET /domains/project/:projectId`).
 * @throws AppError 404 for any other project (never reveal that it exists).
 */
export async function listDomains(deps: Deps, callerProjectId: string, projectId: string): Promise<DomainOut[]> {
  if (projectId !== callerProjectId) throw notFound('Project');
  return (await repo.listDomains(deps.db, projectId)).map(toDomainOut);
}

/** A domain row of the project. @throws AppError 404 for an unknown or non-uuid id, or another project's. */
export async function loadDomain(deps: Deps, projectId: string, id: string): Promise<DomainRow> {
  const row = isUuid(id) ? await repo.getDomain(deps.db, projectId, id) : undefined;
  if (!row) throw notFound('Domain');
  return row;
}

/**
 * Checks one domain's DNS now and stores the outcome (verified, verified_at, last_checked_at,
 * record statuses). @returns the updated row, or undefined when it was deleted meanwhile.
 */
export async function checkDomain(deps: Deps, row: DomainRow): Promise<DomainRow | undefined> {
  const result = await checkDomainDns(dnsFor(deps), row);
  const now = deps.clock.now();
  return repo.saveCheck(deps.db, row.projectId, row.id, { ...applyCheck(row, result, now), checkedAt: now });
}

/**
 * `GET /domains/:id/verify`: forces a DNS check now and answers the domain before and after it. The
 * look-up runs first, outside `save`; `save` (the route's audited transaction) then stores the outcome,
 * so no database connection waits on DNS.
 * @throws AppError 404 for an unknown id, a non-uuid id, or a domain of another project (also when it
 * was deleted during the look-up).
 */
export async function verifyDomain<T>(
  deps: Deps,
  projectId: string,
  id: string,
  save: (store: (d: Deps) => Promise<DomainOut>, before: DomainOut) => Promise<T>,
): Promise<T> {
  const row = await loadDomain(deps, projectId, id);
  const result = await checkDomainDns(dnsFor(deps), row);
  return save(async (d) => {
    const now = d.clock.now();
    const updated = await repo.saveCheck(d.db, row.projectId, row.id, {
      ...applyCheck(row, result, now),
      checkedAt: now,
    });
    if (!updated) throw notFound('Domain');
    return toDomainOut(updated);
  }, toDomainOut(row));
}

/** Deletes a domain with its keys. @throws AppError 404 for an unknown id or a domain of another project. */
export async function deleteDomain(deps: Deps, projectId: string, id: string): Promise<void> {
  if (!isUuid(id) || !(await repo.deleteDomain(deps.db, projectId, id))) throw notFound('Domain');
}

/** How many pending domains one background run checks at most, and how many at once. */
export const RECHECK_BATCH = 500;
const RECHECK_CONCURRENCY = 8;
/** A domain checked this recently (e.g. by "verify now") is skipped by the background run. */
const RECHECK_MIN_AGE_MS = 60_000;

/**
 * The background re-check of pending domains (every 5 minutes): one query selects them,
 * then each is checked, a few at a time. @returns how many were checked and how many became verified.
 */
export async function recheckPendingDomains(deps: Deps): Promise<{ checked: number; verified: number }> {
  const now = deps.clock.now();
  const rows = await repo.pendingDomains(deps.db, new Date(now.getTime() - RECHECK_MIN_AGE_MS), RECHECK_BATCH);
  let next = 0;
  let verified = 0;
  const worker = async () => {
    while (next < rows.length) {
      const row = rows[next++];
      const updated = await checkDomain(deps, row);
      if (updated?.verified) verified++;
    }
  };
  await Promise.all(Array.from({ length: Math.min(RECHECK_CONCURRENCY, rows.length) }, worker));
  return { checked: rows.length, verified };
}

/**
 * Start-up step: every DKIM private key sealed with the current key (plaintext of before sealed, keys an
 * earlier ENCRYPTION_KEY wraps re-wrapped). See lib/secret-places.ts `resealAll`.
 */
export async function resealDkimKeys(deps: Pick<Deps, 'db' | 'config' | 'secret'>): Promise<ResealCount> {
  return resealColumn(deps, domains, domains.id, domains.dkimPrivateKey, secretPlaces.dkimKey);
}
