import { z } from 'zod';
import { isoDateTime, offsetPageOut, uuidOut } from '../http/responses.js';
import { BODY_MAX_CHARS, bodyField, SUBJECT_MAX_CHARS, subjectField } from '../emails/api/content.schema.js';
import { emailField } from '../users/users.schema.js';
import { blocksDocument } from '../content/blocks.schema.js';
import { contentCheck } from '../content/checks.js';
import { translationsIn, translationsOut } from '../content/translations.js';
import { ALWAYS, bodyUnlessBlocks, contentFormat } from '../content/format.schema.js';

const formatIn = contentFormat.meta({
  description:
    'html (default): body is HTML; mjml: body is MJML, compiled at save; blocks: `blocks` is the visual editor document, body is ignored',
});
const blocksIn = blocksDocument.nullish();

export const templateType = z.enum(['TRANSACTIONAL', 'MARKETING', 'HEADLESS']);

// Subjects end up in a MIME header: 1..998 characters, no line breaks (RFC 5322 §2.1.1).
const subject = subjectField('Subject must not contain line breaks');
const optionalText = (max: number) => z.string().max(max).nullish();

/**
 * Body of `POST /templates`. `from` is optional here only because its absence is
 * answered before validation with the plain 400 `{error}` body (see templates.routes.ts).
 */
export const createTemplateBody = z
  .object({
    name: z.string().trim().min(1).max(200),
    description: optionalText(2000),
    subject,
    body: bodyField.optional(),
    from: emailField,
    fromName: optionalText(200),
    replyTo: emailField.nullish(),
    type: templateType.default('MARKETING'),
    topicId: z
      .string()
      .max(100)
      .nullish()
      .meta({ description: "A topic of the project: MARKETING mail of the template goes only to the topic's members" }),
    format: formatIn.default('html'),
    blocks: blocksIn,
    translations: translationsIn,
  })
  .superRefine(bodyUnlessBlocks, ALWAYS);
export type CreateTemplateInput = z.output<typeof createTemplateBody>;

/** Body of `PATCH /templates/:id`: every field optional; nullable ones may be cleared with null. */
export const updateTemplateBody = z.object({
  name: z.string().trim().min(1).max(200).optional(),
  description: optionalText(2000),
  subject: subject.optional(),
  body: bodyField.optional(),
  from: emailField.optional(),
  fromName: optionalText(200),
  replyTo: emailField.nullish(),
  type: templateType.optional(),
  topicId: z
    .string()
    .max(100)
    .nullish()
    .meta({ description: "A topic of the project: MARKETING mail of the template goes only to the topic's members" }),
  format: formatIn.optional(),
  blocks: blocksIn,
  translations: translationsIn,
});
export type UpdateTemplateInput = z.output<typeof updateTemplateBody>;

export const idParams = z.object({ id: z.string() });

/** Offset page parameters: integers ≥ 1; `pageSize` above 100 is clamped. */
export const offsetPage = {
  page: z.coerce.number({ message: 'page must be an integer >= 1' }).int().min(1).default(1),
  pageSize: z.coerce
    .number({ message: 'pageSize must be an integer >= 1' })
    .int()
    .min(1)
    .default(20)
    .transform((n) => Math.min(n, 100)),
};

/** Query of `GET /templates` (the type filter is `type`). */
export const listTemplatesQuery = z.object({
  ...offsetPage,
  type: templateType.optional(),
  search: z.string().max(200).optional(),
  // Unrecognised values fall back to the defaults, so they are not validated.
  sort: z
    .string()
    .optional()
    .transform((s) => (s === 'name' || s === 'updatedAt' ? s : 'createdAt')),
  dir: z
    .string()
    .optional()
    .transform((d) => (d === 'asc' ? 'asc' : 'desc')),
});
export type ListTemplatesQuery = z.output<typeof listTemplatesQuery>;

/** A template as every endpoint returns it. */
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
  topicId: string | null;
  projectId: string;
  createdAt: string;
  updatedAt: string;
  format: z.infer<typeof contentFormat>;
  blocks: z.output<typeof blocksDocument> | null;
  html: string;
  translations: z.output<typeof translationsOut>;
}

/** The response schema of {@link TemplateOut}. */
export const templateOutSchema = z
  .object({
    id: uuidOut,
    name: z.string(),
    description: z.string().nullable(),
    subject: z.string(),
    body: z.string(),
    from: z.string(),
    fromName: z.string().nullable(),
    replyTo: z.string().nullable(),
    type: templateType,
    topicId: uuidOut
      .nullable()
      .meta({ description: "The template's topic: its MARKETING mail goes only to the members; null: no topic" }),
    projectId: uuidOut,
    createdAt: isoDateTime,
    updatedAt: isoDateTime,
    format: contentFormat,
    blocks: blocksDocument.nullable().meta({ description: 'The visual editor document (format blocks), else null' }),
    html: z.string().meta({ description: 'The compiled HTML that is sent (equal to body for format html)' }),
    translations: translationsOut,
  })
  .meta({ id: 'Template' });

export const templateListOut = offsetPageOut(templateOutSchema);

/** `GET /templates/:id/usage`: campaigns copy their content, so only workflow steps use a template. */
export const templateUsageOut = z.object({
  campaigns: z.array(z.never()),
  workflows: z.array(
    z.object({ id: uuidOut, name: z.string(), enabled: z.boolean(), stepId: uuidOut, stepName: z.string() }),
  ),
});

/**
 * Body of `POST /templates/preview`: the subject and body as being edited, the template's type (the
 * unsubscribe footer of MARKETING mail shows), and optionally the project contact whose data fills
 * the variables.
 */
export const previewTemplateBody = z.object({
  // Empty while being written: a preview of nothing is nothing, not an error.
  subject: z.string().max(SUBJECT_MAX_CHARS),
  body: z.string().max(BODY_MAX_CHARS),
  type: templateType.default('MARKETING'),
  contactId: z.string().max(100).nullish(),
  format: contentFormat.default('html'),
  blocks: blocksDocument.nullish(),
  locale: z
    .string()
    .max(64)
    .nullish()
    .meta({ description: "The translation's language being previewed (BCP 47): lang, the footer's words" }),
});
export type PreviewTemplateInput = z.output<typeof previewTemplateBody>;

/**
 * `POST /templates/preview` answer: the subject and HTML body exactly as they would be sent; the
 * variables read that neither the sample contact nor the reserved set has (they render empty, or
 * their fallback), each with the nearest known name; and the reserved variables every email has.
 */
export const templatePreviewOut = z.object({
  subject: z.string(),
  html: z.string(),
  unknownVariables: z.array(
    z.object({
      name: z.string(),
      suggestion: z.string().nullable().meta({ description: 'The known name it most likely meant, or null' }),
    }),
  ),
  reservedVariables: z.array(z.object({ name: z.string(), description: z.string() })),
  text: z.string().meta({ description: 'The plain-text part, as sent' }),
  mjml: z
    .string()
    .nullable()
    .meta({ description: 'The MJML compiled (written, or generated from blocks); null for html' }),
  checks: z.array(contentCheck).meta({ description: 'The check list before saving' }),
});

/**
 * Body of `POST /templates/:id/test` (optional): `email`, where the test goes (default: the signed-in
 * user); the project contact whose data fills the test's variables, as in the preview. Without it, the signed-in user's own contact data when the project
 * has a contact with their address; else no data. The test never creates a contact.
 */
export const templateTestBody = z
  .object({
    contactId: z.string().max(100).nullish(),
    email: emailField.optional().meta({ description: 'Where the test goes; default: the signed-in user' }),
    locale: z
      .string()
      .max(64)
      .optional()
      .meta({ description: 'A language (BCP 47): the test carries the translation a contact of that language gets' }),
  })
  // Fastify hands a request without a body to validation as null.
  .nullish()
  .meta({
    description: 'Optional; the address (default: yourself) and the sample contact whose data fills the variables',
  });

/** `POST /templates/:id/test` answer (the shape of a campaign's test send). */
export const templateTestOut = z.object({
  success: z.literal(true),
  data: z.object({ id: uuidOut, email: z.string(), templateId: uuidOut }),
  message: z.string(),
});
