import { upsertContact } from '../contacts/contacts.upsert.js';
import type { ConsentOrigin } from '../consent/consent.js';
import type { Deps } from '../deps.js';
import { assertVerifiedSender } from '../domains/verified.js';
import { queueEmail } from '../emails/queue/queue.js';
import { AppError } from '../http/errors.js';
import { newId } from '../lib/ids.js';
import { translationFor } from '../content/translations.js';
import { loadCampaign } from './campaigns.service.js';

/** Prefix of a test send's subject, so the recipient can tell it from the real thing. */
export const TEST_SUBJECT_PREFIX = '[TEST] ';

/**
 * `POST /campaigns/:id/test {email, variant?, locale?}`: one email of the campaign's content (or of its
 * translation for `locale`, or of its A/B variant `variant`, the campaign's own fields filling the variant's gaps) to `email`, from any state. It is an `emails` row with `source_type` TEST, no `campaign_id` (so it never counts
 * in the campaign's counters, its exactly-once index or billing), subject prefixed "[TEST] " and header
 * `X-Pigeon-Test: true`. The address is upserted as a contact (new ones unsubscribed, as on
 * `/v1/send`), because rendering personalises from a contact; it is sent whatever that contact's
 * subscription state, since the sender asked for it. `origin`: who asked (the contact upsert's, consent.ts).
 * @throws AppError 404; 422 a `variant` the campaign does not have; 403 (code INTERNAL_SERVER_ERROR)
 * when the sender domain is not verified.
 */
export async function sendTest(
  deps: Deps,
  projectId: string,
  id: string,
  email: string,
  origin: ConsentOrigin,
  variant?: string,
  locale?: string,
) {
  const c = await loadCampaign(deps, projectId, id);
  const v = variant === undefined ? undefined : c.variants?.find((x) => x.key === variant);
  if (variant !== undefined && !v)
    throw new AppError('VALIDATION_ERROR', `No variant "${variant}" in this campaign`, {
      errors: [
        {
          field: 'variant',
          code: 'invalid_value',
          message: c.variants?.length
            ? `Use one of ${c.variants.map((x) => x.key).join(', ')}`
            : 'This campaign has no variants',
          received: variant,
        },
      ],
    });
  // A translation to test (`locale`): the one a contact of that language would get, else the default.
  const tr = locale ? translationFor(c.translations, locale) : null;
  const from = v?.from ?? c.from;
  await assertVerifiedSender(deps.db, projectId, from, deps);
  const now = deps.clock.now();
  const emailId = newId();
  const contact = await deps.db.transaction(async (tx) => {
    const { contact } = await upsertContact(tx, { projectId, email, defaultSubscribed: false, origin, now });
    await queueEmail(tx, {
      id: emailId,
      projectId,
      contactId: contact.id,
      toEmail: contact.email,
      toName: null,
      fromEmail: from,
      fromName: v?.fromName ?? tr?.t.fromName ?? c.fromName,
      replyTo: c.replyTo,
      subject: TEST_SUBJECT_PREFIX + (v?.subject ?? tr?.t.subject ?? c.subject),
      body: v?.body ?? tr?.t.body ?? c.body,
      locale: tr?.tag ?? null,
      headers: { 'X-Pigeon-Test': 'true' },
      variables: {},
      type: c.type,
      sourceType: 'TEST',
      status: 'PENDING',
      createdAt: now,
      updatedAt: now,
    });
    return contact;
  });
  return {
    data: { id: emailId, email: contact.email, campaignId: c.id },
    message: `Test email queued for ${contact.email}`,
  };
}
