import { existsSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import fastifyStatic from '@fastify/static';
import { z } from 'zod';
import { replies } from '../http/responses.js';
import { FAVICON_LINK } from './favicon.js';
import type { FastifyInstance, FastifyReply } from 'fastify';

/** Where `npm run build -w web` (run by the root `prepare` script on `npm install`) writes the bundle. */
export const WEB_DIST_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..', 'web', 'dist');

/** The dashboard's base path; Vite builds with the same `base`, so every asset URL starts with it. */
export const WEB_BASE = '/app/';

// Hashed file names (Vite's `assets/<name>-<hash>.js`) never change content: cache for a year.
const IMMUTABLE = 'public, max-age=31536000, immutable';
// The page itself must be revalidated on every load, or a browser keeps pointing at old hashed files.
const REVALIDATE = 'no-cache';

/**
 * The page's security headers: only same-origin scripts, styles inline (Mantine's style props),
 * no framing (the dashboard holds account actions: clickjacking), no referrer to other sites.
 */
const PAGE_HEADERS = {
  'cache-control': REVALIDATE,
  'content-security-policy': [
    "default-src 'self'",
    "script-src 'self'",
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data: blob:",
    "font-src 'self' data:",
    "connect-src 'self'",
    "frame-ancestors 'none'",
    "base-uri 'self'",
    "form-action 'self'",
    "object-src 'none'",
  ].join('; '),
  'x-frame-options': 'DENY',
  'referrer-policy': 'same-origin',
  'x-content-type-options': 'nosniff',
};

const NOT_BUILT_PAGE = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Pigeon: dashboard not built</title>${FAVICON_LINK}
<style>body{font:16px/1.5 system-ui,sans-serif;max-width:40rem;margin:4rem auto;padding:0 1rem;color:#212529}
code{background:#f1f3f5;padding:.1rem .3rem;border-radius:4px}</style></head>
<body><h1>The dashboard is not built yet</h1>
<p>Pigeon's API is running, but the dashboard's files (<code>web/dist</code>) are missing.
<code>npm install</code> builds them; to build them by hand, run</p>
<pre><code>npm run build -w web</code></pre>
<p>and reload this page (no restart needed). The API itself works: see <a href="/docs">/docs</a>.</p>
</body></html>
`;

/** True when `rel` names a regular file inside `root` (no escaping it with `..`). */
function isFileInside(root: string, rel: string): boolean {
  const full = path.resolve(root, rel);
  if (!full.startsWith(root + path.sep)) return false;
  try {
    return statSync(full).isFile();
  } catch {
    return false;
  }
}

/**
 * Serves the dashboard from `distDir` (default {@link WEB_DIST_DIR}) under {@link WEB_BASE}:
 * - `GET /` answers 302 to `/app/`; API paths are untouched (`GET /contacts` stays the API);
 * - `GET /app/<file>` serves a file of the bundle (gzip/brotli siblings when the client accepts
 *   them), hashed assets cached for a year;
 * - any other `GET /app/*` is a client route: `index.html`, never cached (SPA fallback), except
 *   under `/app/assets/`, where a missing file is a 404 (an old hash after a deploy must not get HTML);
 * - `GET /verify-email` and `GET /reset-password` (the links in account mails) redirect to the
 *   dashboard's pages with their query string, `GET /invitations/:id` (the invitation mail's link)
 *   to the dashboard's invitation page;
 * - without a built bundle, `/app/*` answers 503 with a page saying how to build it; the server starts.
 */
export function webRoutesFrom(distDir: string) {
  const root = path.resolve(distDir);
  // The second argument (`deps` from routes.ts, plugin options elsewhere) is not needed.
  return async function webRoutes(app: FastifyInstance, _deps?: unknown): Promise<void> {
    if (!existsSync(path.join(root, 'index.html'))) {
      app.log.warn({ dir: root }, 'dashboard bundle not built: run npm run build -w web');
    }
    await app.register(fastifyStatic, {
      root,
      serve: false,
      preCompressed: true,
      cacheControl: false,
      suppressWarning: true,
      index: false,
    });
    const config = { auth: 'none' as const };
    // Not part of the API document, but declared like every route (the contract tests check it).
    const html = { description: 'An HTML page', content: { 'text/html': { schema: z.string() } } };
    const redirect = { description: 'Redirect to the dashboard', content: { 'text/plain': { schema: z.string() } } };
    const file = {
      description: 'A file of the dashboard bundle, or its start page',
      content: { '*/*': { schema: z.unknown() } },
    };
    const redirectSchema = { hide: true, response: replies({ 302: redirect }) };
    const pageSchema = { hide: true, response: replies({ 200: html, 503: html }) };
    const fileSchema = { hide: true, response: replies({ 200: file, 503: html }) };

    const page = (reply: FastifyReply) => {
      if (!existsSync(path.join(root, 'index.html'))) {
        return reply
          .code(503)
          .headers({ 'cache-control': 'no-store' })
          .type('text/html; charset=utf-8')
          .send(NOT_BUILT_PAGE);
      }
      return reply.headers(PAGE_HEADERS).sendFile('index.html');
    };

    app.get('/', { config, schema: redirectSchema }, async (_req, reply) => reply.redirect(WEB_BASE, 302));
    for (const p of ['verify-email', 'reset-password']) {
      app.get(`/${p}`, { config, schema: redirectSchema }, async (req, reply) => {
        const query = req.url.includes('?') ? req.url.slice(req.url.indexOf('?')) : '';
        return reply.redirect(`${WEB_BASE}${p}${query}`, 302);
      });
    }
    app.get('/invitations/:invitationLink', { config, schema: redirectSchema }, async (req, reply) => {
      const id = (req.params as { invitationLink: string }).invitationLink;
      return reply.redirect(`${WEB_BASE}invitations/${encodeURIComponent(id)}`, 302);
    });
    // `/app` and `/app/` are one route (ignoreTrailingSlash): the app's start page.
    app.get('/app', { config, schema: pageSchema }, async (_req, reply) => page(reply));
    app.get('/app/*', { config, schema: fileSchema }, async (req, reply) => {
      // find-my-way has already percent-decoded the wildcard.
      const rel = (req.params as { '*'?: string })['*'] ?? '';
      if (rel && rel !== 'index.html' && isFileInside(root, rel)) {
        reply.header('cache-control', rel.startsWith('assets/') ? IMMUTABLE : REVALIDATE);
        reply.header('x-content-type-options', 'nosniff');
        return reply.sendFile(rel);
      }
      if (rel.startsWith('assets/')) return reply.callNotFound();
      return page(reply);
    });
  };
}

/** The dashboard's routes over the bundle built into `web/dist`. */
export const webRoutes = webRoutesFrom(WEB_DIST_DIR);
