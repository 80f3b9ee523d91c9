import { z } from 'zod';
import { emailField } from '../users/users.schema.js';

export const templateType = z.enum(['TRANSACTIONAL', 'MARKETING', 'HEADLESS']);

// Subjects end up in a MIME header: 1..998 characters, no line breaks (api.md §8 subject length).
const subject = z.string().min(1).max(998).refine((s) => !/[\r\n]/.test(s), { message: 'Subject must not contain line breaks' });
const optionalText = (max: number) => z.string().max(max).nullish();

/**
 * Body of `POST /templates` (api.md §2.2). `from` is optional here only because its absence is
 * answered before validation with the plain 400 body of api.md §7.2 (see templates.routes.ts).
 */
export const createTemplateBody = z.object({
  name: z.string().trim().min(1).max(200),
  description: optionalText(2000),
  subject,
  body: z.string().min(1).max(1_000_000),
  from: emailField,
  fromName: optionalText(200),
  replyTo: emailField.nullish(),
  type: templateType.default('MARKETING'),
});
export type CreateTemplateInput = z.output<typeof createTemplateBody>;

/** Body of `PATCH /templates/:id`: every field optional; nullable ones may be cleared with null. */
export const updateTemplateBody = z.object({
  name: z.string().trim().min(1).max(200).optional(),
  description: optionalText(2000),
  subject: subject.optional(),
  body: z.string().min(1).max(1_000_000).optional(),
  from: emailField.optional(),
  fromName: optionalText(200),
  replyTo: emailField.nullish(),
  type: templateType.optional(),
});
export type UpdateTemplateInput = z.output<typeof updateTemplateBody>;

export const idParams = z.object({ id: z.string() });

/** Offset page parameters (api.md §2.10, §8): integers ≥ 1; `pageSize` above 100 is clamped. */
export const offsetPage = {
  page: z.coerce.number({ message: 'page must be an integer >= 1' }).int().min(1).default(1),
  pageSize: z.coerce.number({ message: 'pageSize must be an integer >= 1' }).int().min(1).default(20)
    .transform((n) => Math.min(n, 100)),
};

/** Query of `GET /templates` (api.md §4.2 Templates; decisions.md: type filter is `type`). */
export const listTemplatesQuery = z.object({
  ...offsetPage,
  type: templateType.optional(),
  search: z.string().max(200).optional(),
  // Unrecognised values fall back to the defaults (api.md §4.2), so they are not validated.
  sort: z.string().optional().transform((s) => (s === 'name' || s === 'updatedAt' ? s : 'createdAt')),
  dir: z.string().optional().transform((d) => (d === 'asc' ? 'asc' : 'desc')),
});
export type ListTemplatesQuery = z.output<typeof listTemplatesQuery>;

/** A template as every endpoint returns it (api.md §2.2). */
export interface TemplateOut {
  id: string;
  name: string;
  description: string | null;
  subject: string;
  body: string;
  from: string;
  fromName: string | null;
  replyTo: string | null;
  type: z.infer<typeof templateType>;
  projectId: string;
  createdAt: string;
  updatedAt: string;
}
