import type { FastifyInstance, FastifyRequest } from 'fastify';
import { AppError, type FieldError } from './errors.js';

/**
 * Deepest nesting of arrays and objects a request may carry. The deepest legitimate input, a condition
 * tree of five levels (segments/condition.schema.ts), stays far below; a deeper value would only serve
 * to exhaust the stack of a recursive reader (JSON.stringify of a jsonb value, a schema walk).
 */
export const MAX_INPUT_DEPTH = 64;

const JSON_TYPE = /^application\/([\w.+-]+\+)?json(\s*;.*)?$/i;
const FORM_TYPE = /^(application\/x-www-form-urlencoded|multipart\/form-data)(\s*;.*)?$/i;

declare module 'fastify' {
  interface FastifyContextConfig {
    /**
     * The route also takes HTML form posts (`application/x-www-form-urlencoded`, `multipart/form-data`)
     * besides JSON: public pages whose forms work without script, RFC 8058 one-click, hosted forms. Its
     * scope registers the parsers; its body schema validates what they produce.
     */
    formPosts?: boolean;
  }
}

/**
 * Why PostgreSQL would refuse `s`, or null: NUL (U+0000) cannot be stored in `text` (SQLSTATE 22021)
 * nor in `jsonb` (22P05), and an unpaired UTF-16 surrogate is no Unicode character (`jsonb` refuses its
 * `\uD800` escape; `text` would silently get U+FFFD).
 */
export function unstorableText(s: string): string | null {
  if (s.includes('\u0000')) return 'must not contain the NUL character (U+0000)';
  if (!(s as string & { isWellFormed(): boolean }).isWellFormed())
    return 'must not contain unpaired UTF-16 surrogates (invalid Unicode)';
  return null;
}

/**
 * The problems of a parsed value: strings and object keys {@link unstorableText} refuses, nesting
 * deeper than {@link MAX_INPUT_DEPTH}. Iterative, so any depth is safe to walk; stops after 20 problems.
 * `prefix` names the root in `field` (`querystring`, `params`, or none for the body).
 */
export function inputProblems(value: unknown, prefix?: string): FieldError[] {
  const problems: FieldError[] = [];
  const stack: Array<{ v: unknown; path: string[]; depth: number }> = [
    { v: value, path: prefix ? [prefix] : [], depth: 0 },
  ];
  const name = (path: string[]) => path.join('.') || 'body';
  while (stack.length && problems.length < 20) {
    const { v, path, depth } = stack.pop()!;
    if (typeof v === 'string') {
      const why = unstorableText(v);
      if (why) problems.push({ field: name(path), code: 'invalid_string', message: `Value ${why}` });
      continue;
    }
    if (v === null || typeof v !== 'object') continue;
    if (depth >= MAX_INPUT_DEPTH) {
      // Named by its top-level field: the full path of a value this deep says nothing more.
      problems.push({
        field: name(path.slice(0, prefix ? 2 : 1)),
        code: 'too_big',
        message: `Values may nest at most ${MAX_INPUT_DEPTH} levels deep`,
      });
      continue;
    }
    for (const [k, child] of Object.entries(v)) {
      const why = unstorableText(k);
      if (why) {
        problems.push({
          field: name(path),
          code: 'invalid_string',
          message: `Key ${JSON.stringify(k.slice(0, 50))} ${why}`,
        });
        continue;
      }
      stack.push({ v: child, path: [...path, k], depth: depth + 1 });
    }
  }
  return problems;
}

/** True when the request carries a body (a length above zero, or chunked). */
function hasBody(req: FastifyRequest): boolean {
  const length = req.headers['content-length'];
  return (length !== undefined && length !== '0') || req.headers['transfer-encoding'] !== undefined;
}

/**
 * Installs the `preValidation` hook that keeps input PostgreSQL would refuse from reaching it, so such
 * input is a 4xx rather than a 500, whatever the route:
 * - 400 BAD_REQUEST for a body that is not JSON on a route with a JSON body schema (a non-JSON
 *   body, wrong content type included, is 400, never 415 nor 422), HTML form posts aside on a route
 *   whose config says `formPosts`;
 * - 422 VALIDATION_ERROR naming each string or key of the path parameters, query or body that holds
 *   NUL or an unpaired surrogate, and each value nested deeper than {@link MAX_INPUT_DEPTH}.
 * Runs after authentication (onRequest), so a caller without a credential still gets 401 first.
 */
export function registerInputGuard(app: FastifyInstance): void {
  app.addHook('preValidation', async (req) => {
    const contentType = req.headers['content-type'];
    const accepted = (t: string) =>
      JSON_TYPE.test(t) || (req.routeOptions.config.formPosts === true && FORM_TYPE.test(t));
    if (req.routeOptions.schema?.body && hasBody(req) && !(contentType && accepted(contentType))) {
      throw new AppError('BAD_REQUEST', 'Send a JSON body with Content-Type: application/json', {
        details: { contentType: contentType ?? null },
      });
    }
    const problems = [
      ...inputProblems(req.params, 'params'),
      ...inputProblems(req.query, 'querystring'),
      ...(req.body === undefined ? [] : inputProblems(req.body)),
    ];
    if (problems.length) {
      throw new AppError(
        'VALIDATION_ERROR',
        `Invalid request: ${problems.map((p) => `${p.field}: ${p.message}`).join('; ')}`,
        { errors: problems },
      );
    }
  });
}
