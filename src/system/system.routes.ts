import { readFileSync } from 'node:fs';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { Deps } from '../deps.js';
import { replies } from '../http/responses.js';

const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };
/** Pigeon's version, from package.json. */
export const VERSION = pkg.version;

const configOut = z.object({
  signups: z.boolean(),
  billing: z.object({ enabled: z.boolean() }),
  oauth: z.object({ google: z.boolean(), github: z.boolean() }),
  storage: z.enum(['disk', 's3']),
  version: z.string(),
});

/** `GET /config` and `GET /health`. */
export async function systemRoutes(app: FastifyInstance, deps: Deps): Promise<void> {
  const r = app.withTypeProvider<ZodTypeProvider>();
  r.get(
    '/config',
    {
      config: { auth: 'none' },
      schema: {
        tags: ['system'],
        summary: 'Feature flags of this server (no credential)',
        response: replies({ 200: configOut }),
      },
    },
    async () => ({
      // Open to anyone; `invite` and `sso-only` (GET /auth/oauth-config `signup`) are not.
      signups: deps.config.SIGNUP === 'open',
      billing: { enabled: false },
      oauth: { google: false, github: false },
      // S3-compatible storage when S3_BUCKET is set.
      storage: deps.config.S3_BUCKET ? ('s3' as const) : ('disk' as const),
      version: VERSION,
    }),
  );

  r.get(
    '/health',
    {
      config: { auth: 'none' },
      schema: {
        tags: ['system'],
        summary: 'Liveness and database reachability',
        response: replies({ 200: z.object({ ok: z.boolean() }) }),
      },
    },
    async () => {
      await deps.pool.query('select 1');
      return { ok: true };
    },
  );
}
