import { z } from 'zod';
import { isoDateTime, uuidOut } from '../http/responses.js';
import { emailField } from '../users/users.schema.js';

/** A form has at most this many fields (the email field included). */
export const MAX_FIELDS = 30;
/** A form joins at most this many topics. */
export const MAX_FORM_TOPICS = 50;
/** A `select` field offers at most this many options. */
export const MAX_OPTIONS = 50;

/**
 * Data keys a field may not fill: the contact's own (`email` is the email field's alone), the
 * variables every mail sets (emails/render/render.ts) and the confirmation mail's `confirmUrl`. Keys
 * starting with `_` are the form's own (the honeypot), which the key pattern already excludes.
 */
export const RESERVED_FIELD_KEYS = new Set([
  'id',
  'email',
  'contact',
  'service_id',
  'service_email',
  'subscribed',
  'topics',
  'unsubscribeUrl',
  'subscribeUrl',
  'manageUrl',
  'confirmUrl',
]);

const noLineBreaks = (s: string) => !/[\r\n]/.test(s);

/** `text` and `email` inputs, a `select` of `options`, a `checkbox` (true when ticked). */
export const formFieldType = z.enum(['text', 'email', 'select', 'checkbox']);

/**
 * One field: `key` names the contact data it fills (letters, digits and `_`, starting with a letter;
 * the email field's key is `email`), `label` what the visitor reads, `required`, and for a `select`
 * its `options`. A required checkbox must be ticked (an "I agree" box).
 */
export const formField = z
  .strictObject({
    key: z
      .string()
      .trim()
      .regex(/^[A-Za-z][A-Za-z0-9_]{0,63}$/, 'Keys are letters, digits and _, start with a letter, 64 at most'),
    label: z.string().trim().min(1, 'Every field needs a label').max(200),
    type: formFieldType,
    required: z.boolean().default(false),
    options: z
      .array(z.string().trim().min(1, 'Options may not be empty').max(200))
      .max(MAX_OPTIONS, `At most ${MAX_OPTIONS} options`)
      .optional(),
  })
  .superRefine((f, ctx) => {
    if (f.type === 'select' && !f.options?.length) {
      ctx.addIssue({ code: 'custom', path: ['options'], message: 'A select field needs at least one option' });
    }
    if (f.type !== 'select' && f.options !== undefined) {
      ctx.addIssue({ code: 'custom', path: ['options'], message: 'Only a select field has options' });
    }
    if (f.options && new Set(f.options).size !== f.options.length) {
      ctx.addIssue({ code: 'custom', path: ['options'], message: 'Options must differ' });
    }
    if (f.type === 'email' && f.key !== 'email') {
      ctx.addIssue({ code: 'custom', path: ['key'], message: 'The email field has the key "email"' });
    } else if (f.type !== 'email' && RESERVED_FIELD_KEYS.has(f.key)) {
      ctx.addIssue({ code: 'custom', path: ['key'], message: `"${f.key}" is reserved; pick another key` });
    }
  });
export type FormFieldInput = z.output<typeof formField>;

/** The field list: one `email` field, distinct keys, at most {@link MAX_FIELDS}. */
const fieldList = z
  .array(formField)
  .min(1, 'A form needs the email field')
  .max(MAX_FIELDS, `At most ${MAX_FIELDS} fields`)
  .superRefine((fields, ctx) => {
    const emails = fields.filter((f) => f.type === 'email').length;
    if (emails !== 1) {
      ctx.addIssue({
        code: 'custom',
        message: emails ? 'A form has exactly one email field' : 'A form needs a field of type email with key "email"',
      });
    }
    const seen = new Set<string>();
    fields.forEach((f, i) => {
      if (seen.has(f.key.toLowerCase())) {
        ctx.addIssue({ code: 'custom', path: [i, 'key'], message: `Two fields have the key "${f.key}"` });
      }
      seen.add(f.key.toLowerCase());
    });
  });

const name = z.string().trim().min(1, 'A form needs a name').max(100);
const topicIds = z
  .array(z.string().trim().min(1).max(100))
  .max(MAX_FORM_TOPICS, `At most ${MAX_FORM_TOPICS} topics`)
  .meta({ description: 'Topic ids of the project that the form joins' });
const redirectUrl = z
  .string()
  .trim()
  .max(2000)
  .refine((u) => {
    try {
      const p = new URL(u).protocol;
      return p === 'https:' || p === 'http:';
    } catch {
      return false;
    }
  }, 'Give a full http(s) address, e.g. https://example.com/thanks')
  .meta({ description: 'Where a browser goes after a successful submission (303); none shows the success page' });
const successMessage = z
  .string()
  .trim()
  .min(1, 'Say something after a sign-up')
  .max(1000)
  .meta({ description: 'Shown on the success page' });
const templateId = z
  .string()
  .max(100)
  .meta({ description: 'A template of the project for the confirmation mail; its body uses {{confirmUrl}}' });
const fromName = z.string().trim().max(200).refine(noLineBreaks, 'The sender name must not contain line breaks');

/** What a new form says after a sign-up when its creator said nothing. */
export const DEFAULT_SUCCESS_MESSAGE = 'Thanks for signing up!';

/** Body of `POST /forms`. `from` is needed with `doubleOptIn` (the confirmation mail's sender). */
export const createFormBody = z.strictObject({
  name,
  topics: topicIds.default([]),
  doubleOptIn: z.boolean().default(false),
  fields: fieldList.default([{ key: 'email', label: 'Email', type: 'email', required: true }]),
  redirectUrl: redirectUrl.nullish(),
  successMessage: successMessage.default(DEFAULT_SUCCESS_MESSAGE),
  confirmationTemplateId: templateId.nullish(),
  from: emailField.nullish(),
  fromName: fromName.nullish(),
});
export type CreateFormInput = z.output<typeof createFormBody>;

/** Body of `PATCH /forms/:id`: any of the fields; nullable ones cleared with null. */
export const updateFormBody = z.strictObject({
  name: name.optional(),
  topics: topicIds.optional(),
  doubleOptIn: z.boolean().optional(),
  fields: fieldList.optional(),
  redirectUrl: redirectUrl.nullable().optional(),
  successMessage: successMessage.optional(),
  confirmationTemplateId: templateId.nullable().optional(),
  from: emailField.nullable().optional(),
  fromName: fromName.nullable().optional(),
});
export type UpdateFormInput = z.output<typeof updateFormBody>;

const fieldOut = z.object({
  key: z.string(),
  label: z.string(),
  type: formFieldType,
  required: z.boolean(),
  options: z.array(z.string()).optional(),
});

/** A form, with its public addresses and counts. */
export const formOut = z.object({
  id: uuidOut,
  name: z.string(),
  topics: z.array(uuidOut).meta({ description: 'Topic ids, by topic name' }),
  doubleOptIn: z.boolean(),
  fields: z.array(fieldOut),
  redirectUrl: z.string().nullable(),
  successMessage: z.string(),
  confirmationTemplateId: uuidOut.nullable(),
  from: z.string().nullable(),
  fromName: z.string().nullable(),
  submissions: z.number().int().meta({ description: 'Submissions taken (honeypot catches and refusals aside)' }),
  confirmations: z.number().int().meta({ description: 'Double opt-in links opened (once per sign-up)' }),
  url: z.string().meta({ format: 'uri', description: 'The hosted form page, GET /f/:id (and where submissions go)' }),
  embedHtml: z.string().meta({ description: 'A plain HTML form to paste into any site, honeypot included' }),
  createdAt: isoDateTime,
  updatedAt: isoDateTime,
});
export type FormOut = z.infer<typeof formOut>;

/**
 * A submission as `POST /f/:formId` takes it (JSON, or `application/x-www-form-urlencoded` read into
 * the same shape): field key → value; the form's own fields decide what is accepted.
 */
export const submissionBody = z
  .record(z.string().max(100), z.union([z.string().max(5000), z.boolean(), z.number(), z.null()]))
  .refine((o) => Object.keys(o).length <= 100, { message: 'At most 100 fields' })
  .meta({ description: 'Field key → value: `email`, the form’s other fields; checkboxes true (or "on")' });

/** `POST /f/:formId` answered as JSON. */
export const submittedOut = z.object({
  success: z.literal(true),
  confirmationRequired: z.boolean().meta({ description: 'True when a confirmation mail went out (double opt-in)' }),
});
