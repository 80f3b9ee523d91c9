import type { FastifyInstance } from 'fastify';

/**
 * Registers, in the plugin scope `app`, the parsers of HTML form posts for routes whose config says
 * `formPosts` (http/input-guard.ts lets those bodies past its JSON-only rule):
 * `application/x-www-form-urlencoded` read into an object of strings (a repeated name keeps its last
 * value), the same shape a JSON body of strings gives, so one body schema validates both; with
 * `dropMultipart`, `multipart/form-data` read to its end and dropped (`{}`), for RFC 8058 one-click
 * POSTs, which some providers send as multipart and whose body carries nothing the route needs.
 * `bodyLimit` is in bytes.
 */
export function acceptFormPosts(app: FastifyInstance, bodyLimit: number, dropMultipart = false): void {
  app.addContentTypeParser(
    'application/x-www-form-urlencoded',
    { parseAs: 'string', bodyLimit },
    (_req, body, done) => {
      done(null, Object.fromEntries(new URLSearchParams(body as string)));
    },
  );
  if (!dropMultipart) return;
  app.addContentTypeParser('multipart/form-data', { bodyLimit }, (_req, payload, done) => {
    payload.resume();
    payload.on('end', () => done(null, {}));
    payload.on('error', (err) => done(err));
  });
}
