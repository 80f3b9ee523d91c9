import type { Deps } from '../deps.js';
import { domainOf, findVerifiedDomain, senderClearance } from '../domains/verified.js';
import type { FormField } from '../db/schema.js';
import type { Transaction } from '../db/tx.js';
import { getTemplate } from '../emails/emails.repo.js';
import { AppError, invalid, notFound } from '../http/errors.js';
import { isUuid, newId } from '../lib/ids.js';
import { resolveTopicChoices } from '../topics/topics.service.js';
import type { CreateFormInput, FormOut, UpdateFormInput } from './forms.schema.js';
import * as repo from './forms.repo.js';
import { embedHtml, formUrl } from './html.js';

/** A project has at most this many forms. */
export const MAX_FORMS = 200;

function formView(publicUrl: string, f: repo.FormWithTopics): FormOut {
  return {
    id: f.id,
    name: f.name,
    topics: f.topics,
    doubleOptIn: f.doubleOptIn,
    fields: f.fields.map((x) => ({
      key: x.key,
      label: x.label,
      type: x.type,
      required: x.required,
      ...(x.options ? { options: x.options } : {}),
    })),
    redirectUrl: f.redirectUrl,
    successMessage: f.successMessage,
    confirmationTemplateId: f.confirmationTemplateId,
    from: f.fromEmail,
    fromName: f.fromName,
    submissions: f.submissions,
    confirmations: f.confirmations,
    url: formUrl(publicUrl, f.id),
    embedHtml: embedHtml(publicUrl, f),
    createdAt: f.createdAt.toISOString(),
    updatedAt: f.updatedAt.toISOString(),
  };
}

async function view(deps: Deps, db: Pick<Deps['db'], 'select'>, projectId: string, id: string): Promise<FormOut> {
  const [f] = isUuid(id) ? await repo.formsWithTopics(db, projectId, id) : [];
  if (!f) throw notFound('Form');
  return formView(deps.config.PUBLIC_URL, f);
}

/** A form's settings as saved: what {@link checkSettings} checks. */
interface Settings {
  doubleOptIn: boolean;
  fields: FormField[];
  confirmationTemplateId: string | null;
  fromEmail: string | null;
}

/**
 * The rules of a form's settings that need the database, checked on the form as it will be saved:
 * with double opt-in, a sender (`from`) that the verified-sender rule lets send (domains/verified.ts);
 * a confirmation template of the project. Topics are checked by {@link topicIdsOf}.
 * @throws AppError 422 naming the field.
 */
async function checkSettings(deps: Deps, tx: Transaction, projectId: string, s: Settings): Promise<void> {
  if (s.confirmationTemplateId !== null) {
    const t = isUuid(s.confirmationTemplateId) ? await getTemplate(tx, projectId, s.confirmationTemplateId) : undefined;
    if (!t) {
      throw invalid('confirmationTemplateId', 'No template with this id in the project', 'unknown_template');
    }
  }
  if (s.doubleOptIn && !s.fromEmail) {
    throw invalid(
      'from',
      'A double opt-in form sends a confirmation mail: give its sender address ("from")',
      'required',
    );
  }
  if (s.fromEmail && senderClearance(deps, await findVerifiedDomain(tx, projectId, s.fromEmail)).kind === 'refused') {
    throw invalid(
      'from',
      `The domain ${domainOf(s.fromEmail)} of "from" is not verified for this project: add and verify it under Domains first`,
      'unverified_domain',
      s.fromEmail,
    );
  }
}

/**
 * The topic ids `topics` names (ids or names of the project's topics, topics.service.ts
 * resolveTopicChoices), without repeats, in the order given.
 * @throws AppError 422 naming every one that is no topic of the project (`topics.<index>`).
 */
async function topicIdsOf(tx: Transaction, projectId: string, topics: readonly string[]): Promise<string[]> {
  try {
    return [...(await resolveTopicChoices(tx, projectId, Object.fromEntries(topics.map((t) => [t, true])))).keys()];
  } catch (e) {
    if (!(e instanceof AppError) || !e.errors) throw e;
    // By position in the list, as every other field of the body is named.
    const errors = e.errors.map((x) => ({ ...x, field: `topics.${topics.indexOf(x.field.slice('topics.'.length))}` }));
    throw new AppError(e.code, e.message, { errors });
  }
}

/**
 * `POST /forms`. @throws AppError 422 (an unknown topic or template, a double opt-in form without a
 * verified sender); 409 CONFLICT past {@link MAX_FORMS} forms.
 */
export async function createForm(deps: Deps, projectId: string, body: CreateFormInput): Promise<FormOut> {
  const now = deps.clock.now();
  const id = newId();
  return deps.db.transaction(async (tx) => {
    const settings: Settings = {
      doubleOptIn: body.doubleOptIn,
      fields: body.fields,
      confirmationTemplateId: body.confirmationTemplateId ?? null,
      fromEmail: body.from ?? null,
    };
    const topics = await topicIdsOf(tx, projectId, body.topics);
    await checkSettings(deps, tx, projectId, settings);
    // Serializes creates of one project, so the limit holds under concurrency.
    const n = await repo.lockAndCountForms(tx, projectId);
    if (n >= MAX_FORMS) throw new AppError('CONFLICT', `A project has at most ${MAX_FORMS} forms`);
    await repo.insertForm(
      tx,
      {
        id,
        projectId,
        name: body.name,
        doubleOptIn: settings.doubleOptIn,
        fields: settings.fields,
        redirectUrl: body.redirectUrl ?? null,
        successMessage: body.successMessage,
        confirmationTemplateId: settings.confirmationTemplateId,
        fromEmail: settings.fromEmail,
        fromName: body.fromName || null,
        createdAt: now,
        updatedAt: now,
      },
      topics,
    );
    return view(deps, tx, projectId, id);
  });
}

/** `GET /forms`: the project's forms, newest first, with their counts. */
export async function listForms(deps: Deps, projectId: string): Promise<FormOut[]> {
  return (await repo.formsWithTopics(deps.db, projectId)).map((f) => formView(deps.config.PUBLIC_URL, f));
}

/** `GET /forms/:id`. @throws AppError 404. */
export const getForm = (deps: Deps, projectId: string, id: string): Promise<FormOut> =>
  view(deps, deps.db, projectId, id);

/**
 * `PATCH /forms/:id`: the fields given change; the form as it would be saved is checked whole (so
 * turning double opt-in on needs a sender, given now or before). Counts are kept.
 * @throws AppError 404; 422 as {@link createForm}.
 */
export async function updateForm(deps: Deps, projectId: string, id: string, body: UpdateFormInput): Promise<FormOut> {
  if (!isUuid(id)) throw notFound('Form');
  return deps.db.transaction(async (tx) => {
    const [cur] = await repo.formsWithTopics(tx, projectId, id);
    if (!cur) throw notFound('Form');
    const settings: Settings = {
      doubleOptIn: body.doubleOptIn ?? cur.doubleOptIn,
      fields: body.fields ?? cur.fields,
      confirmationTemplateId:
        body.confirmationTemplateId !== undefined ? body.confirmationTemplateId : cur.confirmationTemplateId,
      fromEmail: body.from !== undefined ? body.from : cur.fromEmail,
    };
    const topics = body.topics ? await topicIdsOf(tx, projectId, body.topics) : undefined;
    await checkSettings(deps, tx, projectId, settings);
    const set: Parameters<typeof repo.updateForm>[3] = {
      doubleOptIn: settings.doubleOptIn,
      fields: settings.fields,
      confirmationTemplateId: settings.confirmationTemplateId,
      fromEmail: settings.fromEmail,
      updatedAt: deps.clock.now(),
    };
    if (body.name !== undefined) set.name = body.name;
    if (body.redirectUrl !== undefined) set.redirectUrl = body.redirectUrl;
    if (body.successMessage !== undefined) set.successMessage = body.successMessage;
    if (body.fromName !== undefined) set.fromName = body.fromName || null;
    await repo.updateForm(tx, projectId, id, set, topics);
    return view(deps, tx, projectId, id);
  });
}

/** `DELETE /forms/:id`: the form, its topics and pending sign-ups (the consent log keeps its entries). @throws 404. */
export async function deleteForm(deps: Deps, projectId: string, id: string): Promise<void> {
  if (!isUuid(id) || !(await repo.deleteForm(deps.db, projectId, id))) throw notFound('Form');
}
