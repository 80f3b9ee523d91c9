import { eq, sql } from 'drizzle-orm';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { publicOrigin } from '../../consent/origin.js';
import { patchContact } from '../../contacts/contacts.service.js';
import { setSubscription, snoozeContacts } from '../../contacts/subscription.js';
import {
  LOCALE_KEY,
  pageLanguage,
  SHIPPED_LANGUAGES,
  shippedLanguage,
  translator,
  type MessageKey,
  type Translator,
} from '../../content/locale.js';
import { contacts, projects, topics } from '../../db/schema.js';
import type { Deps } from '../../deps.js';
import { notFound } from '../../http/errors.js';
import { acceptFormPosts } from '../../http/form-posts.js';
import type { Quota } from '../../http/rate-limit.js';
import { errorEnvelope, replies } from '../../http/responses.js';
import { escapeHtml } from '../../lib/html.js';
import { isInTopic, publicTopicsOfContact, setContactTopics } from '../../topics/membership.js';
import { postButton, sendPublicPage } from '../../web/public-page.js';
import { contactToken, readSubscriptionToken } from '../render/tokens.js';
import { preferencesBody, SNOOZE_CHOICES, snoozeEnd, type SnoozeChoice } from './preferences.view.js';

const tokenParams = z.object({ token: z.string() });

/**
 * Changes one link may make: plenty for a reader, but a loop of pause/resume cannot fill the consent
 * log. Per link, never per client address: RFC 8058 one-click POSTs come from a few mail providers'
 * servers, for every reader at once.
 */
const CHANGES_PER_LINK: Quota = {
  name: 'subscription-link',
  max: 30,
  windowMs: 10 * 60_000,
  key: (req) => (req.params as { token?: string }).token ?? null,
  what: 'changes through this link',
};
const formBody = z.record(z.string(), z.string()).nullish();
const html = { 'text/html': { schema: z.string() } };
const htmlPage = replies({
  200: { description: 'An HTML page', content: html },
  404: {
    description:
      'The link is not valid (tampered, or its contact was deleted): a page, or the envelope to a client that asks for JSON',
    content: { 'application/json': { schema: errorEnvelope }, ...html },
  },
});

/** A contact as its subscription pages need it, with the topic its token names (null: the whole subscription). */
interface Reader {
  id: string;
  email: string;
  subscribed: boolean;
  snoozedUntil: Date | null;
  projectId: string;
  project: string;
  brandColor: string | null;
  /** The topic of a topic mail's unsubscribe link, or null (no topic, or the topic was deleted since). */
  topic: { id: string; name: string } | null;
  /** Whether the token names a topic (which may be gone: then `topic` is null). */
  topicLink: boolean;
  /** The contact's token of the whole subscription: the preference centre's address. */
  wholeToken: string;
  /** The contact's `data.locale` as stored (any text, or null). */
  locale: string | null;
  /** The messages of the pages' language: the contact's locale, else the browser's, else English. */
  t: Translator;
}

/**
 * The pages a reader reaches from the links in an email, without a login (issue 35):
 * - `GET|POST /unsubscribe/:token`: one click out (POST is RFC 8058 one-click, sent by mail
 *   providers from the `List-Unsubscribe` header). The token of a mail sent to a topic leaves that
 *   topic only; any other token unsubscribes from every marketing mail.
 * - `GET|POST /subscribe/:token`: back in.
 * - `GET|POST /preferences/:token`: the preference centre: the project's public topics as switches,
 *   a pause of 2 weeks, 1 or 3 months (`snoozedUntil`), unsubscribe from everything. `/manage/:token`,
 *   the address of mail sent before the preference centre, serves the same page.
 * The signed token in the path is the authority (tokens.ts); a bad one is a 404 page. Every change
 * goes through the module that owns it (subscription.ts, topics/membership.ts), which records its
 * consent entry (source `one-click` or `preference-centre`, with the client's address) and its event.
 */
export async function subscriptionRoutes(app: FastifyInstance, deps: Deps): Promise<void> {
  const tags = ['tracking'];
  const config = { auth: 'none' as const };
  // The token in the path is the authority, never a cookie: a mail provider's one-click POST (RFC 8058)
  // and the pages' own forms may come from anywhere.
  const postConfig = {
    auth: 'none' as const,
    crossSite: 'allow' as const,
    formPosts: true,
    quotas: [CHANGES_PER_LINK],
  };
  const now = () => deps.clock.now();
  acceptFormPosts(app, 64 * 1024, true);

  /** The reader of `token`, whose pages speak the contact's language, else one of `acceptLanguage`'s. */
  const readerOf = async (token: string, acceptLanguage: string | undefined): Promise<Reader | null> => {
    const t = readSubscriptionToken(deps.secret, token);
    if (!t) return null;
    const [c] = await deps.db
      .select({
        id: contacts.id,
        email: contacts.email,
        subscribed: contacts.subscribed,
        snoozedUntil: contacts.snoozedUntil,
        projectId: contacts.projectId,
        project: projects.name,
        brandColor: projects.brandColor,
        locale: sql<string | null>`${contacts.data} ->> ${LOCALE_KEY}`,
      })
      .from(contacts)
      .innerJoin(projects, eq(projects.id, contacts.projectId))
      .where(eq(contacts.id, t.contactId))
      .limit(1);
    if (!c) return null;
    const [topic] = t.topicId
      ? await deps.db
          .select({ id: topics.id, name: topics.name, projectId: topics.projectId })
          .from(topics)
          .where(eq(topics.id, t.topicId))
          .limit(1)
      : [];
    return {
      ...c,
      topic: topic && topic.projectId === c.projectId ? { id: topic.id, name: topic.name } : null,
      topicLink: t.topicId !== null,
      wholeToken: t.topicId ? contactToken(deps.secret, c.id) : token,
      t: translator(pageLanguage(c.locale, acceptLanguage)),
    };
  };

  /** The reader of `token`, or the 404 (a page for a browser, the envelope for a client asking JSON). */
  const withReader = async (
    req: FastifyRequest<{ Params: { token: string } }>,
    reply: FastifyReply,
    then: (r: Reader) => Promise<FastifyReply>,
  ): Promise<FastifyReply> => {
    const r = await readerOf(req.params.token, req.headers['accept-language']);
    if (r) return then(r);
    if (!/\btext\/html\b/.test(req.headers.accept ?? '')) throw notFound('Link');
    const t = translator(pageLanguage(null, req.headers['accept-language']));
    return sendPublicPage(
      reply,
      deps.config.PUBLIC_URL,
      { project: 'Pigeon', title: t('page.badLinkTitle'), body: `<p>${t.html('page.badLink')}</p>`, lang: t.language },
      404,
    );
  };
  const show = (reply: FastifyReply, r: Reader, title: string, body: string) =>
    sendPublicPage(reply, deps.config.PUBLIC_URL, {
      project: r.project,
      brandColor: r.brandColor,
      title,
      body,
      lang: r.t.language,
    });
  /** The values of a page's sentences: address and project (escaped), the address in bold. */
  const who = (r: Reader, topic?: string) => ({
    email: `<strong>${escapeHtml(r.email)}</strong>`,
    project: escapeHtml(r.project),
    ...(topic === undefined ? {} : { topic: `<strong>${escapeHtml(topic)}</strong>` }),
  });
  const linkTo = (href: string, label: string) => `<p><a href="${escapeHtml(href)}">${escapeHtml(label)}</a></p>`;
  const prefsUrl = (r: Reader) => `${deps.config.PUBLIC_URL}/preferences/${r.wholeToken}`;
  /** The preference centre of `r`, with `note` (what was done) or `error` on top, under `title`. */
  const preferences = async (
    reply: FastifyReply,
    r: Reader,
    o: { note?: string; error?: string; status?: number; title?: string } = {},
  ) => {
    const facts = {
      email: r.email,
      project: r.project,
      subscribed: r.subscribed,
      snoozedUntil: r.snoozedUntil && r.snoozedUntil > now() ? r.snoozedUntil : null,
      topics: await publicTopicsOfContact(deps.db, r.projectId, r.id),
      t: r.t,
      language: shippedLanguage(r.locale) ?? r.t.language,
    };
    return sendPublicPage(
      reply,
      deps.config.PUBLIC_URL,
      {
        project: r.project,
        brandColor: r.brandColor,
        title: o.title ?? r.t('prefs.title'),
        body: preferencesBody(facts, prefsUrl(r), o.note, o.error),
        lang: r.t.language,
      },
      o.status ?? 200,
    );
  };
  type P = { Params: { token: string }; Body: Record<string, string> | null | undefined };
  const pageSchema = (summary: string, post = false) => ({
    tags,
    summary,
    params: tokenParams,
    ...(post ? { body: formBody } : {}),
    response: htmlPage,
  });

  app.get<P>(
    '/unsubscribe/:token',
    { config, schema: pageSchema('Unsubscribe confirmation page (of the topic, for a topic mail)') },
    async (req, reply) =>
      withReader(req, reply, async (r) => {
        const action = `${deps.config.PUBLIC_URL}/unsubscribe/${req.params.token}`;
        if (r.topicLink) {
          if (!r.topic || !r.subscribed || !(await isInTopic(deps.db, r.id, r.topic.id)))
            return leftTopicPage(reply, r, false);
          const topic = { topic: r.topic.name };
          return show(
            reply,
            r,
            r.t('topic.title', topic),
            `<p>${r.t.html('topic.question', who(r, r.topic.name))}</p>` +
              postButton(action, r.t('topic.button', topic)),
          );
        }
        // A second visit (the link clicked again, or a mail client's one-click already used) says so and
        // offers the way back instead of asking again.
        if (!r.subscribed) return preferences(reply, r, { title: r.t('unsubscribe.alreadyTitle') });
        return show(
          reply,
          r,
          r.t('unsubscribe.title'),
          `<p>${r.t.html('unsubscribe.question', who(r))}</p>` +
            postButton(action, r.t('unsubscribe.button')) +
            linkTo(prefsUrl(r), r.t('unsubscribe.instead')),
        );
      }),
  );
  app.post<P>(
    '/unsubscribe/:token',
    {
      config: postConfig,
      schema: pageSchema(
        'Unsubscribe (RFC 8058 one-click): from the topic for a topic mail (topic.left), else from everything (contact.unsubscribed)',
        true,
      ),
    },
    async (req, reply) =>
      withReader(req, reply, async (r) => {
        const origin = publicOrigin(req, 'one-click');
        if (r.topicLink) {
          // A deleted topic sends no more mail: there is nothing left to leave.
          const topic = r.topic;
          const changed = topic
            ? await deps.db.transaction((tx) =>
                setContactTopics(tx, r.projectId, r.id, new Map([[topic.id, false]]), now(), origin),
              )
            : [];
          return leftTopicPage(reply, r, changed.length > 0);
        }
        const changed = await deps.db.transaction((tx) =>
          setSubscription(tx, r.projectId, [r.id], false, now(), { origin }),
        );
        return show(
          reply,
          r,
          r.t(changed.length ? 'unsubscribe.doneTitle' : 'unsubscribe.alreadyTitle'),
          `<p>${r.t.html('unsubscribe.done', who(r))}</p>` + linkTo(prefsUrl(r), r.t('unsubscribe.changedMind')),
        );
      }),
  );

  /** The answer to a topic's unsubscribe: done (or already done), with the way to the other topics. */
  const leftTopicPage = (reply: FastifyReply, r: Reader, changed: boolean) => {
    const more = linkTo(prefsUrl(r), r.t('topic.manageAll'));
    if (!r.topic) return show(reply, r, r.t('topic.goneTitle'), `<p>${r.t.html('topic.gone', who(r))}</p>` + more);
    const name = r.topic.name;
    return show(
      reply,
      r,
      r.t(changed ? 'topic.doneTitle' : 'topic.alreadyTitle', { topic: name }),
      `<p>${r.t.html('topic.done', who(r, name))}</p>` + more,
    );
  };

  app.get<P>('/subscribe/:token', { config, schema: pageSchema('Subscribe confirmation page') }, async (req, reply) =>
    withReader(req, reply, async (r) => {
      if (r.subscribed) return preferences(reply, r, { title: r.t('subscribe.alreadyTitle') });
      return show(
        reply,
        r,
        r.t('subscribe.title'),
        `<p>${r.t.html('subscribe.question', who(r))}</p>` +
          postButton(`${deps.config.PUBLIC_URL}/subscribe/${req.params.token}`, r.t('subscribe.button')),
      );
    }),
  );
  app.post<P>(
    '/subscribe/:token',
    {
      config: postConfig,
      schema: pageSchema('Subscribe again; emits contact.subscribed', true),
    },
    async (req, reply) =>
      withReader(req, reply, async (r) => {
        const origin = publicOrigin(req, 'one-click');
        const changed = await deps.db.transaction((tx) =>
          setSubscription(tx, r.projectId, [r.id], true, now(), { origin }),
        );
        return show(
          reply,
          r,
          r.t(changed.length ? 'subscribe.doneTitle' : 'subscribe.alreadyTitle'),
          `<p>${r.t.html('subscribe.done', who(r))}</p>` + linkTo(prefsUrl(r), r.t('subscribe.choose')),
        );
      }),
  );

  for (const path of ['/preferences/:token', '/manage/:token']) {
    const legacy = path.startsWith('/manage');
    app.get<P>(
      path,
      {
        config,
        schema: pageSchema(
          legacy
            ? 'The preference centre at the address of mail sent before it (same page as /preferences/:token)'
            : 'The preference centre: topics, pause, unsubscribe from everything',
        ),
      },
      async (req, reply) => withReader(req, reply, (r) => preferences(reply, r)),
    );
    app.post<P>(
      path,
      {
        config: postConfig,
        schema: pageSchema(
          legacy
            ? 'Set the subscription (form field subscribed=true|false, default true), or any preference-centre action'
            : 'Save preferences: form field action = save (topic.<id>=on for each ticked topic, shown = the ids the page showed) | snooze (snooze = 2w|1m|3m) | resume | unsubscribe | subscribe | language (locale = en|de|fr|es|pt|it|nl, kept in data.locale)',
          true,
        ),
      },
      async (req, reply) =>
        withReader(req, reply, async (r) => {
          const body = req.body ?? {};
          // The manage page of old mail posted only `subscribed`.
          const action =
            body.action ??
            (legacy ? (String(body.subscribed ?? 'true') === 'false' ? 'unsubscribe' : 'subscribe') : '');
          const outcome = await applyPreference(r, action, body, publicOrigin(req, 'preference-centre'));
          // Read again: what was saved shows, in the language just chosen when that was the change.
          const refreshed = (await readerOf(req.params.token, req.headers['accept-language'])) ?? r;
          return 'error' in outcome
            ? preferences(reply, refreshed, { error: refreshed.t(outcome.error), status: 400 })
            : preferences(reply, refreshed, {
                note: refreshed.t(outcome.note, outcome.duration ? { duration: refreshed.t(outcome.duration) } : {}),
              });
        }),
    );
  }

  /**
   * One preference-centre form post, in one transaction. @returns the message to show (with the
   * snooze's duration for `prefs.pausedNote`), or the one that says what was wrong; the caller writes
   * it in the page's language after the change, so a new language speaks at once.
   */
  const applyPreference = async (
    r: Reader,
    action: string,
    body: Record<string, string>,
    origin: ReturnType<typeof publicOrigin>,
  ): Promise<{ note: MessageKey; duration?: MessageKey } | { error: MessageKey }> => {
    const at = now();
    switch (action) {
      case 'save': {
        const shownIds = new Set((body.shown ?? '').split(',').filter(Boolean));
        const choices = new Map<string, boolean>();
        // Only the public topics the page showed: a topic made public since is not left by omission.
        for (const t of await publicTopicsOfContact(deps.db, r.projectId, r.id))
          if (shownIds.has(t.id)) choices.set(t.id, body[`topic.${t.id}`] === 'on');
        const joinsAny = [...choices.values()].some(Boolean);
        await deps.db.transaction(async (tx) => {
          await setContactTopics(tx, r.projectId, r.id, choices, at, origin);
          // Ticking a topic while unsubscribed is asking for its mail: the master switch goes on too.
          if (!r.subscribed && joinsAny) await setSubscription(tx, r.projectId, [r.id], true, at, { origin });
        });
        return { note: 'prefs.savedNote' };
      }
      case 'snooze': {
        const choice = SNOOZE_CHOICES.find((c) => c.value === body.snooze);
        if (!choice) return { error: 'prefs.snoozeError' };
        const until = snoozeEnd(choice.value as SnoozeChoice, at);
        await deps.db.transaction((tx) => snoozeContacts(tx, r.projectId, [r.id], until, at, origin));
        return { note: 'prefs.pausedNote', duration: choice.key };
      }
      case 'resume':
        await deps.db.transaction((tx) => snoozeContacts(tx, r.projectId, [r.id], null, at, origin));
        return { note: 'prefs.resumedNote' };
      case 'unsubscribe':
        await deps.db.transaction((tx) => setSubscription(tx, r.projectId, [r.id], false, at, { origin }));
        return { note: 'prefs.unsubscribedAllNote' };
      case 'subscribe':
        await deps.db.transaction((tx) => setSubscription(tx, r.projectId, [r.id], true, at, { origin }));
        return { note: 'prefs.subscribedNote' };
      case 'language': {
        // Only a language the pages speak: the select offers nothing else.
        const locale = SHIPPED_LANGUAGES.find((l) => l === body.locale);
        if (!locale) return { error: 'prefs.languageError' };
        // Through the contacts module, so the change is announced (contact.updated) as an API patch is.
        await patchContact(deps, r.projectId, r.id, { data: { [LOCALE_KEY]: locale } }, origin);
        return { note: 'prefs.languageNote' };
      }
      default:
        return { error: 'prefs.formError' };
    }
  };
}
