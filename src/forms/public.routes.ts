import { acceptFormPosts } from '../http/form-posts.js';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { publicOrigin } from '../consent/origin.js';
import { acceptedLanguages, LOCALE_KEY, pageLanguage, translator } from '../content/locale.js';
import type { Deps } from '../deps.js';
import { toAppError } from '../http/error-handler.js';
import { AppError, notFound } from '../http/errors.js';
import { noContent, replies } from '../http/responses.js';
import { isUuid } from '../lib/ids.js';
import { sendPublicPage, type PublicPage } from '../web/public-page.js';
import { confirmLocale, confirmSignup, confirmState } from './confirm.js';
import { HONEYPOT, readSubmission } from './fields.js';
import { publicForm, type PublicForm } from './forms.repo.js';
import { submissionBody, submittedOut } from './forms.schema.js';
import {
  confirmedPage,
  confirmPage,
  expiredPage,
  formPage,
  notFoundPage,
  submittedPage,
  tooManyPage,
  troublePage,
  UNKNOWN_PROJECT,
} from './html.js';
import { pageQuotas, submitQuotas } from './limits.js';
import { assertMailDomain } from './mail-domain.js';
import { takeSubmission } from './signup.js';

/** Submissions are a few short fields: anything bigger is refused unread (413). */
export const FORM_BODY_LIMIT = 16 * 1024;

const formParams = z.object({ formId: z.string() });
const tokenParams = z.object({ token: z.string() });
const page = { description: 'An HTML page', content: { 'text/html': { schema: z.string() } } };
const redirect = z.undefined().describe("Redirect (303) to the form's redirectUrl");

type Body = Record<string, unknown> | undefined;

/**
 * The public side of hosted forms, without a credential:
 * - `GET /f/:formId`: the hosted form page (no script, the project's colours; an unknown form's page
 *   is 404);
 * - `POST /f/:formId`: a submission, `application/x-www-form-urlencoded` (a plain HTML form on any
 *   site) or JSON (`fetch` from any origin: CORS allows every origin, without credentials, and
 *   `OPTIONS` answers the preflight). A browser's form post gets a page (the form again with what to
 *   fix, the success page, or a 303 to the form's `redirectUrl`); JSON, or `Accept: application/json`,
 *   gets `{success, confirmationRequired}` or the error envelope. Spam defences: the honeypot input
 *   (filled: answered as a success, nothing stored), the quotas of limits.ts, and the email's domain
 *   checked by `/v1/verify`'s rules (mail-domain.ts);
 * - `GET /confirm/:token`: a double opt-in link (confirm.ts): the success page or the redirect; an
 *   expired link's page (410); a forged one's 404 page.
 * Pages go through web/public-page.ts, which also refuses framing and scripts.
 */
export async function formsPublicRoutes(app: FastifyInstance, deps: Deps): Promise<void> {
  const tags = ['forms'];
  const publicUrl = () => deps.config.PUBLIC_URL;
  /** Requests whose body came form-encoded: a browser's form post, answered with pages. */
  const formEncoded = new WeakSet<FastifyRequest>();
  /** The form a request loaded, for its error page. */
  const loaded = new WeakMap<FastifyRequest, PublicForm>();

  // A plain HTML form posts `application/x-www-form-urlencoded` (in this plugin only): the route's
  // `formPosts` lets it past the input guard, which checks it as it checks every body. `cors` (onRequest)
  // marks such a request as a browser's form post before its body is read.
  acceptFormPosts(app, FORM_BODY_LIMIT);

  const wantsJson = (req: FastifyRequest) => {
    const accept = req.headers.accept ?? '';
    return /application\/json/i.test(accept) && !/text\/html/i.test(accept);
  };
  /** A page, not JSON: every GET, and a form post that does not ask for JSON. */
  const wantsPage = (req: FastifyRequest) =>
    req.method === 'GET' || req.method === 'HEAD' || (formEncoded.has(req) && !wantsJson(req));

  const send = (reply: FastifyReply, p: PublicPage, status = 200, form?: PublicForm) =>
    sendPublicPage(reply, publicUrl(), p, status, form?.redirectUrl ? [form.redirectUrl] : []);

  /** The language of a confirmation link's pages: its contact's, else the browser's, else English. */
  const confirmT = async (req: FastifyRequest, token: string) =>
    translator(pageLanguage(await confirmLocale(deps, token), req.headers['accept-language']));

  const formOf = async (req: FastifyRequest, id: string) => {
    const f = loaded.get(req) ?? (isUuid(id) ? await publicForm(deps.db, id) : undefined);
    if (f) loaded.set(req, f);
    return f;
  };

  // Errors of these routes: a page for a person (the form again with what to fix, or what happened),
  // the error envelope of the parent handler for JSON.
  app.setErrorHandler(async (err: unknown, req: FastifyRequest, reply: FastifyReply) => {
    if (!wantsPage(req)) throw err;
    const e = toAppError(err);
    if (e.status >= 500) req.log.error({ err }, 'form page failed');
    if (e.headers) reply.headers(e.headers);
    const id = (req.params as { formId?: string }).formId;
    const form = id !== undefined ? await formOf(req, id).catch(() => undefined) : loaded.get(req);
    if (e.code === 'RATE_LIMIT_EXCEEDED') {
      const seconds = Number((e.details as { retryAfterSeconds?: number } | undefined)?.retryAfterSeconds ?? 600);
      return send(reply, tooManyPage(form ?? UNKNOWN_PROJECT, seconds), 429);
    }
    if (e.status >= 500) return send(reply, troublePage(form ?? UNKNOWN_PROJECT), e.status);
    if (!form || e.status === 404) return send(reply, notFoundPage(), 404);
    const shown = (req.body && typeof req.body === 'object' ? req.body : {}) as Record<string, unknown>;
    // The form's own refusals are sentences for the visitor; the request's (a value too long for
    // the schema, a body too large) are said in general terms.
    const sentence =
      err instanceof AppError && e.code === 'VALIDATION_ERROR'
        ? e.message
        : e.status === 413
          ? 'This submission is too large: shorten what you typed and send it again.'
          : 'Some of what was sent is not what this form takes: check the fields and send it again.';
    return send(reply, formPage(publicUrl(), form, shown, sentence), e.status, form);
  });

  // Any site may post a form here with fetch: the answer names no credential and sets no cookie. A
  // form-encoded post is a browser's form, answered with pages, even when its body is refused unread.
  const cors = async (req: FastifyRequest, reply: FastifyReply) => {
    reply.header('Access-Control-Allow-Origin', '*');
    if (/^application\/x-www-form-urlencoded\b/i.test(req.headers['content-type'] ?? '')) formEncoded.add(req);
  };
  const open = { auth: 'none' as const, crossSite: 'allow' as const };

  app.get<{ Params: { formId: string } }>(
    '/f/:formId',
    {
      config: { auth: 'none', quotas: pageQuotas(deps.config) },
      schema: { tags, summary: 'The hosted form page', params: formParams, response: replies({ 200: page }) },
    },
    async (req, reply) => {
      const form = await formOf(req, req.params.formId);
      if (!form) return send(reply, notFoundPage(), 404);
      return send(reply, formPage(publicUrl(), form), 200, form);
    },
  );

  app.options(
    '/f/:formId',
    {
      config: open,
      onRequest: cors,
      schema: { tags, hide: true, params: formParams, response: replies({ 204: noContent }) },
    },
    async (_req, reply) =>
      reply
        .code(204)
        .header('Access-Control-Allow-Methods', 'POST, OPTIONS')
        .header('Access-Control-Allow-Headers', 'Content-Type, Accept')
        .header('Access-Control-Max-Age', '86400')
        .send(),
  );

  app.post<{ Params: { formId: string }; Body: Body }>(
    '/f/:formId',
    {
      config: { ...open, formPosts: true, quotas: submitQuotas(deps.config) },
      bodyLimit: FORM_BODY_LIMIT,
      onRequest: cors,
      schema: {
        tags,
        summary:
          'Submit a form (urlencoded from an HTML form, or JSON from any origin): a page, a 303 to its redirectUrl, or JSON',
        consumes: ['application/x-www-form-urlencoded', 'application/json'],
        params: formParams,
        body: submissionBody,
        response: replies({
          200: {
            description: 'JSON for fetch, or the success page for a browser form post',
            content: { 'application/json': { schema: submittedOut }, 'text/html': { schema: z.string() } },
          },
          303: redirect,
        }),
      },
    },
    async (req, reply) => {
      const form = await formOf(req, req.params.formId);
      if (!form) throw notFound('Form');
      const body = req.body ?? {};
      const hp = body[HONEYPOT];
      // A bot filled the hidden input: answered like a success, so it learns nothing; nothing stored.
      const caught = hp !== undefined && hp !== null && hp !== '' && hp !== false;
      let confirmationRequired = form.doubleOptIn;
      if (!caught) {
        const sub = readSubmission(form.fields, body);
        await assertMailDomain(deps, sub.email);
        // A form that asks for the language has the visitor's answer; else the browser's says it.
        const browserLocale = form.fields.some((f) => f.key === LOCALE_KEY)
          ? null
          : (acceptedLanguages(req.headers['accept-language'])[0] ?? null);
        ({ confirmationRequired } = await takeSubmission(
          deps,
          form,
          sub,
          { ...publicOrigin(req, 'form'), formId: form.id },
          browserLocale,
        ).catch((err: unknown) => {
          // The project's monthly cap is the sender's business, not the visitor's: said without numbers.
          if (err instanceof AppError && err.code === 'BILLING_LIMIT_EXCEEDED') {
            throw new AppError('INTERNAL_SERVER_ERROR', 'This form cannot take sign-ups right now; try again later', {
              status: 503,
              headers: { 'Retry-After': '3600' },
            });
          }
          throw err;
        }));
      }
      if (!wantsPage(req)) return reply.type('application/json').send({ success: true, confirmationRequired });
      if (form.redirectUrl) return reply.redirect(form.redirectUrl, 303);
      return send(reply, submittedPage(form));
    },
  );

  app.get<{ Params: { token: string } }>(
    '/confirm/:token',
    {
      config: { auth: 'none', quotas: pageQuotas(deps.config) },
      schema: {
        tags,
        summary:
          'The link of a double opt-in mail: a page with the button that confirms (opening it changes nothing: scanners open every link)',
        params: tokenParams,
        response: replies({ 200: page }),
      },
    },
    async (req, reply) => {
      const out = await confirmState(deps, req.params.token);
      const t = await confirmT(req, req.params.token);
      if (out.kind === 'invalid') return send(reply, notFoundPage(t), 404);
      if (out.kind === 'expired') return send(reply, expiredPage(publicUrl(), out.form, t), 410);
      loaded.set(req, out.form);
      if (out.kind === 'confirmed') return send(reply, confirmedPage(out.form, t));
      return send(reply, confirmPage(out.form, `/confirm/${encodeURIComponent(req.params.token)}`, t));
    },
  );

  app.post<{ Params: { token: string } }>(
    '/confirm/:token',
    {
      config: { auth: 'none', formPosts: true, quotas: pageQuotas(deps.config) },
      schema: {
        tags,
        summary:
          'Confirm a double opt-in sign-up (the button of its page): subscribes, joins the topics, records consent',
        params: tokenParams,
        response: replies({ 200: page, 303: redirect }),
      },
    },
    async (req, reply) => {
      const out = await confirmSignup(deps, req.params.token, publicOrigin(req, 'form'));
      const t = await confirmT(req, req.params.token);
      if (out.kind === 'invalid') return send(reply, notFoundPage(t), 404);
      if (out.kind === 'expired') return send(reply, expiredPage(publicUrl(), out.form, t), 410);
      loaded.set(req, out.form);
      if (out.form.redirectUrl) return reply.redirect(out.form.redirectUrl, 303);
      return send(reply, confirmedPage(out.form, t));
    },
  );
}
