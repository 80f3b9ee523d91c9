import type { FastifyInstance } from 'fastify';
import type { Deps } from '../deps.js';

/** POST /v1/track and its dashboard alias POST /events/track (api.md §4.1). */
export async function trackRoutes(app: FastifyInstance, deps: Deps): Promise<void> {
  void app;
  void deps;
}
