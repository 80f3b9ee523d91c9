import type { FastifyInstance } from 'fastify';
import type { Deps } from '../deps.js';

/** Templates (api.md §4.2, §4.3 templates). */
export async function templatesRoutes(app: FastifyInstance, deps: Deps): Promise<void> {
  void app;
  void deps;
}
