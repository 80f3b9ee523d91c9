import type { FastifyInstance } from 'fastify';
import type { Deps } from '../deps.js';

/** Activity feed (api.md §4.3 activity). */
export async function activityRoutes(app: FastifyInstance, deps: Deps): Promise<void> {
  void app;
  void deps;
}
