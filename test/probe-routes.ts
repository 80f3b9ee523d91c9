import type { FastifyInstance } from 'fastify';
import type { AuthMode } from '../src/http/auth.js';

/**
 * Test-only routes, one per authentication mode, that echo who the caller is: they test the auth,
 * rate-limit and idempotency mechanisms independently of any feature.
 */
export function probeRoutes(app: FastifyInstance): void {
  for (const mode of ['public', 'secret', 'dashboard'] as AuthMode[]) {
    app.get(`/test/${mode}`, { config: { auth: mode } }, async (req) => ({
      projectId: req.auth.projectId ?? null,
      via: req.auth.via,
      role: req.auth.role ?? null,
    }));
  }
}
