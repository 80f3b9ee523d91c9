import type { FastifyInstance } from 'fastify';
import type { Deps } from '../deps.js';

/** Segments (api.md §4.2, §4.3 segments). */
export async function segmentsRoutes(app: FastifyInstance, deps: Deps): Promise<void> {
  void app;
  void deps;
}
