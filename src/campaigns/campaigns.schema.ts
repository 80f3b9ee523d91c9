import { z } from 'zod';
import { offsetPage } from '../templates/templates.schema.js';
import { emailField } from '../users/users.schema.js';

export const campaignType = z.enum(['TRANSACTIONAL', 'MARKETING', 'HEADLESS']);
export const audienceType = z.enum(['ALL', 'SEGMENT', 'FILTERED']);
export const CAMPAIGN_STATUSES = ['DRAFT', 'SCHEDULED', 'SENDING', 'SENT', 'CANCELLED'] as const;

// Subjects end up in a MIME header: 1..998 characters, no line breaks (api.md §8 subject length).
const subject = z.string().min(1).max(998).refine((s) => !/[\r\n]/.test(s), { message: 'Subject must not contain line breaks' });
const optionalText = (max: number) => z.string().max(max).nullish();

/**
 * Body of `POST /campaigns` and `PUT /campaigns/:id` (api.md §2.3, §4.2 Campaigns). Required: name,
 * subject, body, from. `segmentId` / `audienceCondition` are checked against `audienceType` by the
 * service (422 with `errors[]`), and the condition by the segment compiler. `segmentId` stays a plain
 * string here so that an unknown or malformed id gets the same 422 as a missing one.
 */
export const campaignBody = z.object({
  name: z.string().trim().min(1).max(200),
  description: optionalText(2000),
  subject,
  body: z.string().min(1).max(1_000_000),
  from: emailField,
  fromName: optionalText(200).transform((s) => (s ? s.replace(/[\r\n]+/g, ' ') : s)),
  replyTo: emailField.nullish(),
  type: campaignType.default('MARKETING'),
  audienceType: audienceType.default('ALL'),
  segmentId: z.string().max(100).nullish(),
  audienceCondition: z.unknown().optional(),
});
export type CampaignInput = z.output<typeof campaignBody>;

export const idParams = z.object({ id: z.string() });

/**
 * Body of `POST /campaigns/:id/send`: `scheduledFor` omitted or null sends now; anything else must
 * parse as a date (else 400 BAD_REQUEST, api.md §7.3), so it is taken as unknown and parsed by the service.
 */
export const sendBody = z.object({ scheduledFor: z.unknown().optional() }).nullish();

/** Body of `POST /campaigns/:id/test`. */
export const testBody = z.object({ email: emailField });

/**
 * Query of `GET /campaigns` (api.md §4.2 Campaigns). `status` is validated by the service so that an
 * unknown value answers 400 BAD_REQUEST rather than 422; sort/dir fall back to their defaults.
 */
export const listCampaignsQuery = z.object({
  ...offsetPage,
  status: z.string().optional(),
  search: z.string().max(200).optional(),
  sort: z.string().optional().transform((s) => (s === 'name' || s === 'updatedAt' ? s : 'createdAt')),
  dir: z.string().optional().transform((d) => (d === 'asc' ? 'asc' : 'desc')),
});
export type ListCampaignsQuery = z.output<typeof listCampaignsQuery>;
