import type { FastifyInstance } from 'fastify';
import type { Deps } from '../deps.js';

/** POST /v1/verify (api.md §4.1, §2.8; decisions.md: /v1/verify). */
export async function verifyRoutes(app: FastifyInstance, deps: Deps): Promise<void> {
  void app;
  void deps;
}
