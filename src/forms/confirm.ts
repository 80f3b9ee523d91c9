import { sql } from 'drizzle-orm';
import { recordConsent, type ConsentOrigin } from '../consent/consent.js';
import { setSubscription } from '../contacts/subscription.js';
import type { Deps } from '../deps.js';
import { recordEvent } from '../events/emit.js';
import { setContactTopics } from '../topics/membership.js';
import { readConfirmToken } from './confirm-token.js';
import { countForm, publicForm, type PublicForm } from './forms.repo.js';
import { joinAll } from './signup.js';

/** The event a confirmed double opt-in records (data `{formId}`); reserved (events/emit.ts). */
export const CONFIRMED_EVENT = 'contact.confirmed';

/**
 * What opening a confirmation link did: `invalid` (not a genuine token, or its sign-up or form is
 * gone), `expired` (with the form, when it still exists), or `confirmed` (`already` when the link
 * had been opened before: nothing was recorded again).
 */
export type ConfirmOutcome =
  | { kind: 'invalid' }
  | { kind: 'expired'; form: PublicForm | undefined }
  | { kind: 'confirmed'; form: PublicForm; already: boolean };

/** What a confirmation link stands for before it is confirmed: `pending` asks the visitor to confirm. */
export type ConfirmState =
  | Exclude<ConfirmOutcome, { kind: 'confirmed' }>
  | { kind: 'pending'; form: PublicForm }
  | { kind: 'confirmed'; form: PublicForm };

/** What a link stands for at `now`, with the sign-up it names (null when the link is not genuine). */
async function inspect(
  deps: Deps,
  token: string,
  now: Date,
): Promise<{ state: ConfirmState; signupId: string | null }> {
  const t = readConfirmToken(deps.secret, token);
  if (!t) return { state: { kind: 'invalid' }, signupId: null };
  const r = await deps.db.execute<{ form_id: string; confirmed: boolean }>(
    sql`select form_id, confirmed_at is not null as confirmed from form_signups where id = ${t.signupId}::uuid`,
  );
  const signup = r.rows[0];
  const form = signup ? await publicForm(deps.db, signup.form_id) : undefined;
  const state: ConfirmState =
    t.expiresAt <= now && !signup?.confirmed
      ? { kind: 'expired', form }
      : !signup || !form
        ? { kind: 'invalid' }
        : signup.confirmed
          ? { kind: 'confirmed', form }
          : { kind: 'pending', form };
  return { state, signupId: t.signupId };
}

/**
 * The `data.locale` of the contact a confirmation link names, as stored (null for a link that is not
 * genuine, or a contact without one): the language of the link's pages (issue 38).
 */
export async function confirmLocale(deps: Deps, token: string): Promise<string | null> {
  const t = readConfirmToken(deps.secret, token);
  if (!t) return null;
  const r = await deps.db.execute<{ locale: string | null }>(
    sql`select c.data ->> 'locale' as locale from form_signups s join contacts c on c.id = s.contact_id
      where s.id = ${t.signupId}::uuid`,
  );
  return r.rows[0]?.locale ?? null;
}

/** Reads a confirmation link without changing anything (`GET /confirm/:token`, which only asks). */
export async function confirmState(deps: Deps, token: string): Promise<ConfirmState> {
  return (await inspect(deps, token, deps.clock.now())).state;
}

/**
 * `POST /confirm/:token` (the button of the page `GET /confirm/:token` shows): completes a double
 * opt-in sign-up at the clock's now. Opening the link only asks, because security scanners and link
 * previews follow every link of a mail (emails/tracking/machine.ts) and would confirm addresses whose
 * owners never acted; a press of the button is the person's own. In one transaction: the
 * sign-up is marked confirmed (once: a second opening finds it so and records nothing), a `confirmed`
 * consent entry, the contact subscribed and joined to the form's topics (each real change with its
 * own entry and event, contacts/subscription.ts and topics/membership.ts), a `contact.confirmed`
 * event with data `{formId}`, and the form's `confirmations` counted. `origin` is the visitor's
 * (source `form`); the form's id is added here. A forged or foreign token changes nothing.
 */
export async function confirmSignup(deps: Deps, token: string, origin: ConsentOrigin): Promise<ConfirmOutcome> {
  const now = deps.clock.now();
  const { state, signupId } = await inspect(deps, token, now);
  if (state.kind === 'confirmed') return { ...state, already: true };
  if (state.kind !== 'pending') return state;
  const { form } = state;

  const at = { ...origin, formId: form.id };
  const done = await deps.db.transaction(async (tx) => {
    const mark = await tx.execute<{ contact_id: string }>(sql`
      update form_signups set confirmed_at = ${now.toISOString()}
      where id = ${signupId}::uuid and confirmed_at is null returning contact_id`);
    const contactId = mark.rows[0]?.contact_id;
    // Opened twice at once: the other request confirmed it.
    if (!contactId) return false;
    await recordConsent(tx, form.projectId, [{ ...at, contactId, action: 'confirmed', at: now }]);
    await setSubscription(tx, form.projectId, [contactId], true, now, { origin: at });
    await setContactTopics(tx, form.projectId, contactId, joinAll(form.topics), now, at);
    await recordEvent(tx, {
      projectId: form.projectId,
      contactId,
      name: CONFIRMED_EVENT,
      data: { formId: form.id },
      createdAt: now,
    });
    await countForm(tx, form.id, 'confirmations');
    return true;
  });
  return { kind: 'confirmed', form, already: !done };
}
