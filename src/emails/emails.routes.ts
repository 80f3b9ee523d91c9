import type { FastifyInstance } from 'fastify';
import type { Deps } from '../deps.js';

/** POST /v1/send, open/click tracking and unsubscribe pages (api.md §4.1; decisions.md: sending, tracking). */
export async function emailsRoutes(app: FastifyInstance, deps: Deps): Promise<void> {
  void app;
  void deps;
}
