import type { FastifyInstance } from 'fastify';
import type { Deps } from '../deps.js';

/** Analytics (api.md §4.3 analytics). */
export async function analyticsRoutes(app: FastifyInstance, deps: Deps): Promise<void> {
  void app;
  void deps;
}
