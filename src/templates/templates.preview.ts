import { and, eq } from 'drizzle-orm';
import { TEST_SUBJECT_PREFIX } from '../campaigns/test-send.js';
import { getContact } from '../contacts/contacts.repo.js';
import { contacts, users } from '../db/schema.js';
import type { Deps } from '../deps.js';
import { assertVerifiedSender } from '../domains/verified.js';
import { queueEmail } from '../emails/queue/queue.js';
import { MessageRenderError, NO_CONTACT_ID, RESERVED_VARIABLES, renderEmail } from '../emails/render/render.js';
import { AppError, notFound } from '../http/errors.js';
import { isUuid, newId } from '../lib/ids.js';
import { contentChecks, type ContentCheck } from '../content/checks.js';
import { compileContent, type CompiledContent } from '../content/format.js';
import { LOCALE_KEY, normalizeLocale } from '../content/locale.js';
import { languageOf } from '../content/save.js';
import { translationFor } from '../content/translations.js';
import type { PreviewTemplateInput } from './templates.schema.js';
import { getTemplate } from './templates.service.js';
import { unknownVariables, type UnknownVariable } from './templates.variables.js';

// The preview's contact when none is picked: no data, so variables show their fallbacks or nothing.
const NO_CONTACT = {
  id: NO_CONTACT_ID,
  email: 'contact@example.com',
  data: {} as Record<string, unknown>,
};

/** The project's contact `contactId` (the sample contact of a preview or test). @throws AppError 404 */
async function sampleContact(deps: Deps, projectId: string, contactId: string) {
  const row = isUuid(contactId) ? await getContact(deps.db, projectId, contactId) : undefined;
  if (!row) throw notFound('Contact');
  return { id: row.id, email: row.email, data: row.data };
}

/**
 * The 422 of a subject or body that does not parse or passes a render limit: one field error
 * (`invalid_template`) and, in `details`, the field, line, column and reason, so an editor can point at
 * the spot.
 */
function invalidTemplate(err: MessageRenderError): AppError {
  const { line, column, reason } = err.error;
  return new AppError('VALIDATION_ERROR', `Invalid template: ${err.field}: line ${line}, column ${column}: ${reason}`, {
    errors: [
      {
        field: err.field,
        code: 'invalid_template',
        message: `Template syntax error at line ${line}, column ${column}: ${reason}`,
      },
    ],
    details: { field: err.field, line, column, reason },
    suggestion:
      "Close every {{ }} and {% %}, end each block ({% if %}…{% endif %}), and use only Liquid's tags and filters.",
  });
}

/** The content being edited, compiled as a save would; nothing written is nothing to compile. */
async function draftContent(input: PreviewTemplateInput): Promise<CompiledContent> {
  if (input.format === 'mjml' && !input.body.trim()) return { format: 'mjml', html: '', source: '', blocks: null };
  if (input.format === 'blocks' && !input.blocks) return { format: 'blocks', html: '', source: '', blocks: null };
  return compileContent({
    format: input.format,
    body: input.body,
    blocks: input.blocks,
    subject: input.subject,
    ...languageOf(normalizeLocale(input.locale) ?? undefined),
  });
}

/**
 * `POST /templates/preview`: renders a subject and body exactly as delivery does (same compile of
 * mjml and blocks, renderer, variables, unsubscribe footer of MARKETING mail), for the project's
 * contact `contactId` or for a contact without data, with the plain-text part and the check list
 * before saving (content/checks.ts). Tracking is left out: a preview is not a sent email, so it gets no
 * open pixel and no click tokens.
 * @throws AppError 404 for a contact that is not the project's; 422 `invalid_template` with line/column
 *   (Liquid, or MJML's strict validation).
 */
export async function previewTemplate(
  deps: Deps,
  projectId: string,
  input: PreviewTemplateInput,
): Promise<{
  subject: string;
  html: string;
  unknownVariables: UnknownVariable[];
  reservedVariables: Array<{ name: string; description: string }>;
  text: string;
  mjml: string | null;
  checks: ContentCheck[];
}> {
  const contact = input.contactId ? await sampleContact(deps, projectId, input.contactId) : NO_CONTACT;
  const content = await draftContent(input);
  try {
    const out = await renderEmail({
      emailId: newId(),
      subject: input.subject,
      body: content.html,
      type: input.type,
      tracking: 'DISABLED',
      contactData: contact.data,
      variables: {},
      contact: { id: contact.id, email: contact.email },
      publicUrl: deps.config.PUBLIC_URL,
      secret: deps.secret,
      locale: normalizeLocale(input.locale) ?? normalizeLocale(contact.data[LOCALE_KEY]),
    });
    return {
      subject: out.subject,
      html: out.html,
      unknownVariables: unknownVariables(
        { subject: input.subject, body: content.source ?? content.html },
        contact.data,
      ),
      reservedVariables: [...RESERVED_VARIABLES],
      text: out.text,
      mjml: content.source,
      checks: await contentChecks(
        { subject: input.subject, type: input.type, html: content.html, blocks: content.blocks },
        { db: deps.db, projectId },
      ),
    };
  } catch (err) {
    throw err instanceof MessageRenderError ? invalidTemplate(err) : err;
  }
}

/**
 * The data a template's test is rendered with: the sample contact's (`contactId`, as in the preview),
 * else the signed-in user's own contact's in this project when there is one, else none. Only read:
 * a test adds no contact to the project.
 * @throws AppError 404 for a `contactId` that is not the project's.
 */
async function testData(deps: Deps, projectId: string, email: string, contactId: string | null | undefined) {
  if (contactId) return (await sampleContact(deps, projectId, contactId)).data;
  const [own] = await deps.db
    .select({ data: contacts.data })
    .from(contacts)
    .where(and(eq(contacts.projectId, projectId), eq(contacts.email, email)))
    .limit(1);
  return own?.data ?? {};
}

async function signedInUser(deps: Deps, userId: string): Promise<{ email: string }> {
  const [user] = await deps.db.select({ email: users.email }).from(users).where(eq(users.id, userId)).limit(1);
  if (!user) throw notFound('User');
  return user;
}

/**
 * `POST /templates/:id/test`: one email of the template to `to` or else the signed-in user, from the template's
 * sender, through the same machinery as a campaign's test: an `emails` row with source TEST (so it is
 * counted nowhere), subject prefixed "[TEST] ", header `X-Pigeon-Test: true`. It is rendered with
 * sample data ({@link testData}) carried in the row's variables, for no contact: the row has no
 * `contact_id`, so the owner is not made a contact of the project.
 * @throws AppError 404 (template, or `contactId` not the project's); 400 without `to` and without a
 *   session (an API key has no "yourself"); 403 (code INTERNAL_SERVER_ERROR) when the sender domain is not verified.
 */
export async function sendTemplateTest(
  deps: Deps,
  projectId: string,
  id: string,
  userId: string | undefined,
  opts: { contactId?: string | null; to?: string; locale?: string } = {},
) {
  const { contactId, to, locale } = opts;
  // The template first: another project's id is a 404 whoever asks.
  const t = await getTemplate(deps, projectId, id);
  if (!userId && !to) {
    throw new AppError(
      'BAD_REQUEST',
      'A test goes to the signed-in user: call this with the session cookie, not an API key',
      {
        suggestion: 'To send to another address, use POST /v1/send with the template id.',
      },
    );
  }
  await assertVerifiedSender(deps.db, projectId, t.from, deps);
  const user = to ? { email: to } : await signedInUser(deps, userId!);
  const variables = await testData(deps, projectId, user.email, contactId);
  // A translation to test (`locale`): the one a contact of that language would get, else the default.
  const tr = translationFor(t.translations, locale ?? null);
  const now = deps.clock.now();
  const emailId = newId();
  await deps.db.transaction(async (tx) => {
    await queueEmail(tx, {
      id: emailId,
      projectId,
      contactId: null,
      toEmail: user.email,
      toName: null,
      fromEmail: t.from,
      fromName: tr?.t.fromName ?? t.fromName,
      replyTo: t.replyTo,
      subject: TEST_SUBJECT_PREFIX + (tr?.t.subject ?? t.subject),
      body: tr?.t.body ?? t.body,
      locale: tr?.tag ?? null,
      headers: { 'X-Pigeon-Test': 'true' },
      variables,
      type: t.type,
      sourceType: 'TEST',
      status: 'PENDING',
      createdAt: now,
      updatedAt: now,
    });
  });
  return {
    success: true as const,
    data: { id: emailId, email: user.email, templateId: t.id },
    message: `Test email queued for ${user.email}`,
  };
}
