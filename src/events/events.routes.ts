import type { FastifyInstance } from 'fastify';
import type { Deps } from '../deps.js';

/** Dashboard event endpoints: list, stats, names, usage, delete (api.md §4.3 events). */
export async function eventsRoutes(app: FastifyInstance, deps: Deps): Promise<void> {
  void app;
  void deps;
}
