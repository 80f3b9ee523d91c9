import { eq } from 'drizzle-orm';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { publicOrigin } from '../../consent/origin.js';
import { setSubscription, snoozeContacts } from '../../contacts/subscription.js';
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

  const readerOf = async (token: string): Promise<Reader | null> => {
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
    };
  };

  /** The reader of `token`, or the 404 (a page for a browser, the envelope for a client asking JSON). */
  const withReader = async (
    req: FastifyRequest<{ Params: { token: string } }>,
    reply: FastifyReply,
    then: (r: Reader) => Promise<FastifyReply>,
  ): Promise<FastifyReply> => {
    const r = await readerOf(req.params.token);
    if (r) return then(r);
    if (!/\btext\/html\b/.test(req.headers.accept ?? '')) throw notFound('Link');
    return sendPublicPage(
      reply,
      deps.config.PUBLIC_URL,
      {
        project: 'Pigeon',
        title: 'This link does not work',
        body: '<p>The link is incomplete or no longer valid. Open it again from the email, or ask the sender to update your preferences.</p>',
      },
      404,
    );
  };
  const show = (reply: FastifyReply, r: Reader, title: string, body: string) =>
    sendPublicPage(reply, deps.config.PUBLIC_URL, { project: r.project, brandColor: r.brandColor, title, body });
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
    };
    return sendPublicPage(
      reply,
      deps.config.PUBLIC_URL,
      {
        project: r.project,
        brandColor: r.brandColor,
        title: o.title ?? 'Your email preferences',
        body: preferencesBody(facts, prefsUrl(r), o.note, o.error),
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
          return show(
            reply,
            r,
            `Unsubscribe from ${r.topic.name}`,
            `<p>Stop sending <strong>${escapeHtml(r.topic.name)}</strong> emails to <strong>${escapeHtml(r.email)}</strong>? Other emails of ${escapeHtml(r.project)} you subscribed to keep coming.</p>` +
              postButton(action, `Unsubscribe from ${r.topic.name}`),
          );
        }
        // A second visit (the link clicked again, or a mail client's one-click already used) says so and
        // offers the way back instead of asking again.
        if (!r.subscribed) return preferences(reply, r, { title: 'You are already unsubscribed' });
        return show(
          reply,
          r,
          'Unsubscribe',
          `<p>Unsubscribe <strong>${escapeHtml(r.email)}</strong> from emails of ${escapeHtml(r.project)}?</p>` +
            postButton(action, 'Unsubscribe') +
            `<p><a href="${escapeHtml(prefsUrl(r))}">Choose which emails to get instead</a></p>`,
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
          changed.length ? 'Unsubscribed' : 'You are already unsubscribed',
          `<p><strong>${escapeHtml(r.email)}</strong> is unsubscribed from ${escapeHtml(r.project)}.</p>` +
            `<p><a href="${escapeHtml(prefsUrl(r))}">Changed your mind? Manage your preferences</a></p>`,
        );
      }),
  );

  /** The answer to a topic's unsubscribe: done (or already done), with the way to the other topics. */
  const leftTopicPage = (reply: FastifyReply, r: Reader, changed: boolean) => {
    const more = `<p><a href="${escapeHtml(prefsUrl(r))}">Manage all your email preferences</a></p>`;
    if (!r.topic)
      return show(
        reply,
        r,
        'This topic is gone',
        `<p>${escapeHtml(r.project)} no longer sends emails of this topic.</p>` + more,
      );
    const name = r.topic.name;
    return show(
      reply,
      r,
      changed ? `Unsubscribed from ${name}` : `You no longer get ${name}`,
      `<p><strong>${escapeHtml(r.email)}</strong> gets no more <strong>${escapeHtml(name)}</strong> emails from ${escapeHtml(r.project)}. Other emails you subscribed to keep coming.</p>` +
        more,
    );
  };

  app.get<P>('/subscribe/:token', { config, schema: pageSchema('Subscribe confirmation page') }, async (req, reply) =>
    withReader(req, reply, async (r) => {
      if (r.subscribed) return preferences(reply, r, { title: 'You are already subscribed' });
      return show(
        reply,
        r,
        'Subscribe',
        `<p>Subscribe <strong>${escapeHtml(r.email)}</strong> to emails of ${escapeHtml(r.project)}?</p>` +
          postButton(`${deps.config.PUBLIC_URL}/subscribe/${req.params.token}`, 'Subscribe'),
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
          changed.length ? 'Subscribed' : 'You are already subscribed',
          `<p><strong>${escapeHtml(r.email)}</strong> is subscribed to ${escapeHtml(r.project)}.</p>` +
            `<p><a href="${escapeHtml(prefsUrl(r))}">Choose which emails to get</a></p>`,
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
            : 'Save preferences: form field action = save (topic.<id>=on for each ticked topic, shown = the ids the page showed) | snooze (snooze = 2w|1m|3m) | resume | unsubscribe | subscribe',
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
          const refreshed = (await readerOf(req.params.token)) ?? r;
          return 'error' in outcome
            ? preferences(reply, refreshed, { error: outcome.error, status: 400 })
            : preferences(reply, refreshed, { note: outcome.note });
        }),
    );
  }

  /** One preference-centre form post, in one transaction. @returns the sentence to show, or what was wrong. */
  const applyPreference = async (
    r: Reader,
    action: string,
    body: Record<string, string>,
    origin: ReturnType<typeof publicOrigin>,
  ): Promise<{ note: string } | { error: string }> => {
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
        return { note: 'Your preferences are saved.' };
      }
      case 'snooze': {
        const choice = SNOOZE_CHOICES.find((c) => c.value === body.snooze);
        if (!choice) return { error: 'Choose how long to pause emails: 2 weeks, 1 month or 3 months.' };
        const until = snoozeEnd(choice.value as SnoozeChoice, at);
        await deps.db.transaction((tx) => snoozeContacts(tx, r.projectId, [r.id], until, at, origin));
        return { note: `Emails are paused for ${choice.label}.` };
      }
      case 'resume':
        await deps.db.transaction((tx) => snoozeContacts(tx, r.projectId, [r.id], null, at, origin));
        return { note: 'Emails are no longer paused.' };
      case 'unsubscribe':
        await deps.db.transaction((tx) => setSubscription(tx, r.projectId, [r.id], false, at, { origin }));
        return { note: 'You are unsubscribed from everything.' };
      case 'subscribe':
        await deps.db.transaction((tx) => setSubscription(tx, r.projectId, [r.id], true, at, { origin }));
        return { note: 'You are subscribed again.' };
      default:
        return { error: 'That form could not be read. Nothing was changed; please try again.' };
    }
  };
}
