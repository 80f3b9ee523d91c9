import { normalizeIP } from '@fastify/rate-limit';
import type { FastifyRequest } from 'fastify';
import type { Config } from '../config.js';
import type { Quota } from '../http/rate-limit.js';

/**
 * The budgets of the public form routes, as route quotas of http/rate-limit.ts (counted in memory, a
 * bounded LRU of keys, or in Redis with `REDIS_URL`; 429 with `Retry-After` past them, before the body
 * is read into anything). Client addresses are as `TRUST_PROXY` resolves them (`req.ip`), IPv6 by its
 * /64 (one host owns the whole prefix).
 */

/** The window of every form budget. */
export const FORM_WINDOW_MS = 10 * 60_000;

const clientOf = (req: FastifyRequest) => `ip:${normalizeIP(req.ip)}`;
const formOf = (req: FastifyRequest) => {
  const id = (req.params as { formId?: unknown } | undefined)?.formId;
  return typeof id === 'string' ? `form:${id.slice(0, 64).toLowerCase()}` : null;
};

/**
 * The quotas of `POST /f/:formId`: `FORM_RATE_LIMIT_PER_IP` submissions per client address (all forms
 * together) and `FORM_RATE_LIMIT_PER_FORM` per form (whatever the addresses: what bounds the mails a
 * distributed flood makes a double opt-in form send), each per {@link FORM_WINDOW_MS}; 0 turns one off.
 */
export function submitQuotas(config: Pick<Config, 'FORM_RATE_LIMIT_PER_IP' | 'FORM_RATE_LIMIT_PER_FORM'>): Quota[] {
  const q: Quota[] = [];
  if (config.FORM_RATE_LIMIT_PER_IP > 0) {
    q.push({
      name: 'form-submit-ip',
      max: config.FORM_RATE_LIMIT_PER_IP,
      windowMs: FORM_WINDOW_MS,
      key: clientOf,
      what: 'form submissions from this address',
    });
  }
  if (config.FORM_RATE_LIMIT_PER_FORM > 0) {
    q.push({
      name: 'form-submit-form',
      max: config.FORM_RATE_LIMIT_PER_FORM,
      windowMs: FORM_WINDOW_MS,
      key: formOf,
      what: 'submissions of this form',
    });
  }
  return q;
}

/**
 * The quota of the public pages (`GET /f/:formId`, `GET /confirm/:token`): ten times
 * `FORM_RATE_LIMIT_PER_IP` per client address per {@link FORM_WINDOW_MS} (a page costs a read; a person
 * opens a few).
 */
export function pageQuotas(config: Pick<Config, 'FORM_RATE_LIMIT_PER_IP'>): Quota[] {
  if (config.FORM_RATE_LIMIT_PER_IP <= 0) return [];
  return [
    {
      name: 'form-page-ip',
      max: config.FORM_RATE_LIMIT_PER_IP * 10,
      windowMs: FORM_WINDOW_MS,
      key: clientOf,
      what: 'form pages from this address',
    },
  ];
}
