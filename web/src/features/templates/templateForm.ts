import { z } from 'zod';
import { bodyField, emailField, subjectField } from '../../api/rules';
import type { Template, TemplateInput, TemplateType } from './api';

/** The editor's values: every field a string (empty optional ones are sent as null). */
export interface TemplateValues extends Record<string, unknown> {
  name: string;
  subject: string;
  from: string;
  fromName: string;
  replyTo: string;
  type: TemplateType;
  /** A topic id, '' for none; sent only for MARKETING (other mail ignores topics). */
  topicId: string;
  body: string;
}

/** The body a new template starts with: shows how a variable and its fallback are written. */
export const STARTER_BODY = `<h1>Hello {{firstName ?? "there"}}</h1>
<p>Write your message here. Variables like {{firstName}} come from the contact's data.</p>
`;

/** A new template's values. */
export const emptyValues = (): TemplateValues => ({
  name: '',
  subject: '',
  from: '',
  fromName: '',
  replyTo: '',
  type: 'TRANSACTIONAL',
  topicId: '',
  body: STARTER_BODY,
});

/** A saved template's values. */
export const valuesOf = (t: Template): TemplateValues => ({
  name: t.name,
  subject: t.subject,
  from: t.from,
  fromName: t.fromName ?? '',
  replyTo: t.replyTo ?? '',
  type: t.type,
  topicId: t.topicId ?? '',
  body: t.body,
});

/**
 * The checks made before saving: the server's own rules for subject, body and addresses (shared zod
 * schemas), with plain messages for the required fields.
 */
export const templateSchema = z.object({
  name: z.string().trim().min(1, 'Name is required').max(200),
  subject: z.string().min(1, 'Subject is required').pipe(subjectField('Subject must not contain line breaks')),
  from: z.string().trim().min(1, 'From address is required').pipe(emailField),
  fromName: z.string().max(200),
  replyTo: z.union([z.literal(''), emailField]),
  type: z.enum(['TRANSACTIONAL', 'MARKETING', 'HEADLESS']),
  topicId: z.string(),
  body: z.string().min(1, 'The body is empty').pipe(bodyField),
});

/** The request body of a create or update. */
export const inputOf = (v: TemplateValues): TemplateInput => ({
  name: v.name.trim(),
  subject: v.subject,
  from: v.from.trim(),
  fromName: v.fromName.trim() || null,
  replyTo: v.replyTo.trim() || null,
  type: v.type,
  topicId: v.type === 'MARKETING' ? v.topicId || null : null,
  body: v.body,
});
