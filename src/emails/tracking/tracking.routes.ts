import { eq } from 'drizzle-orm';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { z } from 'zod';
import { contacts, projects } from '../../db/schema.js';
import type { Deps } from '../../deps.js';
import { notFound } from '../../http/errors.js';
import { replies } from '../../http/responses.js';
import { setSubscription } from '../../contacts/subscription.js';
import type { ConsentOrigin } from '../../consent/consent.js';
import { publicOrigin } from '../../consent/origin.js';
import { recordClick, recordOpen } from '../delivery/outcomes.js';
import { FAVICON_LINK } from '../../web/favicon.js';
import { escapeHtml } from '../render/render.js';
import { readClickToken, readContactToken, readOpenToken } from '../render/tokens.js';

// A transparent 1×1 GIF.
const PIXEL = Buffer.from('R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7', 'base64');
const NO_STORE = 'no-store, no-cache, must-revalidate, private, max-age=0';

const tokenParams = z.object({ token: z.string() });
const htmlPage = replies({ 200: { description: 'An HTML page', content: { 'text/html': { schema: z.string() } } } });

/**
 * Links inside emails, served without a credential:
 * `GET /t/o/:token` open pixel, `GET /t/c/:token` click redirect, `GET|POST /unsubscribe/:token`
 * (POST is RFC 8058 one-click), `GET|POST /subscribe/:token`, `GET|POST /manage/:token`.
 * Tokens are HMAC-signed (tokens.ts); a bad token is 404, and so is the pixel or a link of an email
 * that no longer exists or whose contact was deleted (no redirect, nothing recorded).
 */
export async function trackingRoutes(app: FastifyInstance, deps: Deps): Promise<void> {
  const tags = ['tracking'];
  const config = { auth: 'none' as const };
  // The token in the path is the authority, never a cookie: a mail provider's one-click POST (RFC 8058)
  // and the pages' own forms may come from anywhere.
  const postConfig = { auth: 'none' as const, crossSite: 'allow' as const };
  const now = () => deps.clock.now();

  // RFC 8058 clients POST `List-Unsubscribe=One-Click` form-encoded (or multipart); only the token matters.
  app.addContentTypeParser(
    'application/x-www-form-urlencoded',
    { parseAs: 'string', bodyLimit: 64 * 1024 },
    (_req, body, done) => {
      done(null, Object.fromEntries(new URLSearchParams(body as string)));
    },
  );
  app.addContentTypeParser('multipart/form-data', { bodyLimit: 64 * 1024 }, (_req, payload, done) => {
    payload.resume();
    payload.on('end', () => done(null, {}));
    payload.on('error', (err) => done(err));
  });

  app.get<{ Params: { token: string } }>(
    '/t/o/:token',
    {
      config,
      schema: {
        tags,
        summary: 'Open-tracking pixel (1×1 GIF); records email.open',
        hide: true,
        params: tokenParams,
        response: replies({
          200: {
            description: 'A transparent 1×1 GIF',
            content: { 'image/gif': { schema: z.unknown().meta({ type: 'string', format: 'binary' }) } },
          },
        }),
      },
    },
    async (req, reply) => {
      const emailId = readOpenToken(deps.secret, req.params.token);
      if (!emailId) throw notFound('Tracking pixel');
      if ((await deps.db.transaction((tx) => recordOpen(tx, emailId, now()))) === 'missing')
        throw notFound('Tracking pixel');
      return reply.header('Content-Type', 'image/gif').header('Cache-Control', NO_STORE).send(PIXEL);
    },
  );

  // A wildcard, not `:token`: a click token carries the whole URL and may pass the router's
  // parameter length limit.
  app.get<{ Params: { '*': string } }>(
    '/t/c/*',
    {
      config,
      schema: {
        tags,
        summary: 'Click redirect to the link that was in the email; records email.click',
        hide: true,
        params: z.object({ '*': z.string() }),
        response: replies({ 302: z.undefined().describe('Redirect to the link') }),
      },
    },
    async (req, reply) => {
      const click = readClickToken(deps.secret, req.params['*']);
      if (!click) throw notFound('Link');
      if ((await deps.db.transaction((tx) => recordClick(tx, click.emailId, click.url, now()))) === 'missing')
        throw notFound('Link');
      return reply.header('Cache-Control', NO_STORE).header('Referrer-Policy', 'no-referrer').redirect(click.url, 302);
    },
  );

  const contactOf = async (token: string) => {
    const id = readContactToken(deps.secret, token);
    if (!id) throw notFound('Link');
    const [c] = await deps.db
      .select({
        id: contacts.id,
        email: contacts.email,
        subscribed: contacts.subscribed,
        projectId: contacts.projectId,
        project: projects.name,
      })
      .from(contacts)
      .innerJoin(projects, eq(projects.id, contacts.projectId))
      .where(eq(contacts.id, id))
      .limit(1);
    if (!c) throw notFound('Contact');
    return c;
  };
  // The consent entry names the page's request: `one-click` for the unsubscribe and subscribe links
  // (RFC 8058's POST included), `preference-centre` for the manage page.
  const change = async (token: string, subscribed: boolean, origin: ConsentOrigin) => {
    const c = await contactOf(token);
    await deps.db.transaction((tx) => setSubscription(tx, c.projectId, [c.id], subscribed, now(), { origin }));
    return { ...c, subscribed, was: c.subscribed };
  };
  // The pages run no script and may not be framed (a hidden frame could make the click for the reader).
  const formTarget = new URL(deps.config.PUBLIC_URL).origin;
  // img-src data:: the tab's icon, inlined (FAVICON_LINK), so the page loads nothing else.
  const csp = `default-src 'none'; style-src 'unsafe-inline'; img-src data:; form-action 'self' ${formTarget}; frame-ancestors 'none'; base-uri 'none'`;
  const html = (reply: FastifyReply, project: string, title: string, body: string) =>
    reply
      .header('Content-Type', 'text/html; charset=utf-8')
      .header('Cache-Control', NO_STORE)
      .header('Content-Security-Policy', csp)
      .header('X-Frame-Options', 'DENY')
      .header('Referrer-Policy', 'no-referrer')
      .header('X-Content-Type-Options', 'nosniff')
      .send(page(project, title, body));
  type P = { Params: { token: string }; Body: Record<string, string> | undefined };

  app.get<P>(
    '/unsubscribe/:token',
    { config, schema: { tags, summary: 'Unsubscribe confirmation page', params: tokenParams, response: htmlPage } },
    async (req, reply) => {
      const c = await contactOf(req.params.token);
      // A second visit (the link clicked again, or a mail client's one-click already used) says so and
      // offers the way back instead of asking again.
      if (!c.subscribed) return manage(reply, c, req.params.token, 'You are already unsubscribed');
      return html(
        reply,
        c.project,
        'Unsubscribe',
        `<p>Unsubscribe <strong>${escapeHtml(c.email)}</strong> from emails of ${escapeHtml(c.project)}?</p>` +
          form(`${deps.config.PUBLIC_URL}/unsubscribe/${req.params.token}`, 'Unsubscribe'),
      );
    },
  );
  app.post<P>(
    '/unsubscribe/:token',
    {
      config: postConfig,
      schema: {
        tags,
        summary: 'Unsubscribe (RFC 8058 one-click); emits contact.unsubscribed',
        params: tokenParams,
        response: htmlPage,
      },
    },
    async (req, reply) => {
      const c = await change(req.params.token, false, publicOrigin(req, 'one-click'));
      return html(
        reply,
        c.project,
        c.was ? 'Unsubscribed' : 'You are already unsubscribed',
        `<p><strong>${escapeHtml(c.email)}</strong> is unsubscribed from ${escapeHtml(c.project)}.</p>` +
          `<p><a href="${deps.config.PUBLIC_URL}/manage/${req.params.token}">Changed your mind? Manage your subscription</a></p>`,
      );
    },
  );

  app.get<P>(
    '/subscribe/:token',
    { config, schema: { tags, summary: 'Subscribe confirmation page', params: tokenParams, response: htmlPage } },
    async (req, reply) => {
      const c = await contactOf(req.params.token);
      if (c.subscribed) return manage(reply, c, req.params.token, 'You are already subscribed');
      return html(
        reply,
        c.project,
        'Subscribe',
        `<p>Subscribe <strong>${escapeHtml(c.email)}</strong> to emails of ${escapeHtml(c.project)}?</p>` +
          form(`${deps.config.PUBLIC_URL}/subscribe/${req.params.token}`, 'Subscribe'),
      );
    },
  );
  app.post<P>(
    '/subscribe/:token',
    {
      config: postConfig,
      schema: { tags, summary: 'Subscribe again; emits contact.subscribed', params: tokenParams, response: htmlPage },
    },
    async (req, reply) => {
      const c = await change(req.params.token, true, publicOrigin(req, 'one-click'));
      return html(
        reply,
        c.project,
        c.was ? 'You are already subscribed' : 'Subscribed',
        `<p><strong>${escapeHtml(c.email)}</strong> is subscribed to ${escapeHtml(c.project)}.</p>`,
      );
    },
  );

  app.get<P>(
    '/manage/:token',
    { config, schema: { tags, summary: 'Subscription management page', params: tokenParams, response: htmlPage } },
    async (req, reply) => manage(reply, await contactOf(req.params.token), req.params.token),
  );
  app.post<P>(
    '/manage/:token',
    {
      config: postConfig,
      schema: {
        tags,
        summary: 'Set the subscription (form field subscribed=true|false, default true)',
        params: tokenParams,
        response: htmlPage,
      },
    },
    async (req, reply) => {
      const subscribed = String(req.body?.subscribed ?? 'true') !== 'false';
      return manage(
        reply,
        await change(req.params.token, subscribed, publicOrigin(req, 'preference-centre')),
        req.params.token,
      );
    },
  );

  const manage = (
    reply: FastifyReply,
    c: { email: string; project: string; subscribed: boolean },
    token: string,
    title = 'Your subscription',
  ) =>
    html(
      reply,
      c.project,
      title,
      `<p><strong>${escapeHtml(c.email)}</strong> is ${c.subscribed ? 'subscribed to' : 'unsubscribed from'} emails of ${escapeHtml(c.project)}.</p>` +
        form(`${deps.config.PUBLIC_URL}/manage/${token}`, c.subscribed ? 'Unsubscribe' : 'Subscribe again', {
          subscribed: String(!c.subscribed),
        }),
    );
}

function form(action: string, label: string, fields: Record<string, string> = {}): string {
  const hidden = Object.entries(fields)
    .map(([k, v]) => `<input type="hidden" name="${escapeHtml(k)}" value="${escapeHtml(v)}">`)
    .join('');
  return `<form method="post" action="${escapeHtml(action)}">${hidden}<button type="submit">${escapeHtml(label)}</button></form>`;
}

/**
 * A subscription page: the project's name above the title (the reader knows whose mail this is), the
 * dashboard's icon (inlined), no script. `project` and `title` are escaped here; `body` is HTML already escaped.
 */
function page(project: string, title: string, body: string): string {
  return (
    `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">` +
    `<meta name="robots" content="noindex"><title>${escapeHtml(title)} · ${escapeHtml(project)}</title>` +
    FAVICON_LINK +
    `<style>body{font-family:system-ui,-apple-system,Segoe UI,Roboto,sans-serif;margin:0;background:#f4f5f7;color:#1f2328;line-height:1.5}` +
    `main{max-width:30rem;margin:4rem auto;padding:2rem;background:#fff;border:1px solid #dde1e6;border-radius:8px}` +
    `.brand{margin:0 0 1.5rem;font-size:.85rem;font-weight:600;letter-spacing:.04em;text-transform:uppercase;color:#57606a}` +
    `h1{font-size:1.4rem;margin:0 0 1rem}a{color:#0b57d0}` +
    `button{font:inherit;padding:.55rem 1.1rem;border:1px solid #1f2328;background:#1f2328;color:#fff;border-radius:6px;cursor:pointer}` +
    `@media (max-width:34rem){main{margin:0;border:0;border-radius:0;min-height:100vh}}</style>` +
    `</head><body><main><p class="brand">${escapeHtml(project)}</p><h1>${escapeHtml(title)}</h1>${body}</main></body></html>`
  );
}
